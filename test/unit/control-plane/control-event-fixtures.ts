/**
 * Builders of control events for the control-plane tests: each returns a complete, valid event
 * with a fresh eventId; `overrides` replace fields of the event body.
 */
import { randomUUID } from 'node:crypto';
import type {
  AdminTokenCreated,
  AdminTokenRevoked,
  AlertWebhookSet,
  BudgetSet,
  ChannelUpserted,
  ControlEvent,
  KeyCreated,
  KeyRevoked,
  KeyUpdated,
  PriceSet,
  TeamCreated,
  TeamMemberSet,
  TeamUpdated,
  UserCreated,
  UserCredentialsSet,
  UserUpdated,
} from '../../../schemas/control-plane/control-plane-events.ts';
import { encryptCredential } from '../../../gateway/control-plane/credential-cipher.ts';

/** A fixed 32-byte master key for tests. */
export const TEST_MASTER_KEY = Buffer.alloc(32, 7);
/** A fixed HMAC secret for tests. */
export const TEST_HMAC_SECRET = Buffer.from('test-hmac-secret-0123456789abcdefghijkl', 'utf8');

const header = (occurredAt = 1_767_225_600_000) => ({ eventId: randomUUID(), occurredAt, actor: 'admin' });

export function userCreated(overrides: Partial<UserCreated> = {}): ControlEvent {
  return {
    type: 'UserCreated',
    event: {
      ...header(),
      userId: 'usr_1',
      name: 'Ada',
      role: 'user',
      rpm: 60,
      tpm: null,
      quotaNanoUsd: '5000000000',
      ...overrides,
    },
  };
}

export function userUpdated(overrides: Partial<UserUpdated> = {}): ControlEvent {
  return {
    type: 'UserUpdated',
    event: {
      ...header(),
      userId: 'usr_1',
      name: 'Ada L.',
      role: 'admin',
      rpm: null,
      tpm: 10_000,
      quotaNanoUsd: null,
      disabled: true,
      ...overrides,
    },
  };
}

/** Credentials of usr_1 (login `ada`); the hash is a fixed well-formed text, not a real password's. */
export function userCredentialsSet(overrides: Partial<UserCredentialsSet> = {}): ControlEvent {
  return {
    type: 'UserCredentialsSet',
    event: {
      ...header(),
      userId: 'usr_1',
      login: 'ada',
      passwordHash: `scrypt$16384$8$1$${'s'.repeat(22)}$${'h'.repeat(43)}`,
      ...overrides,
    },
  };
}

export function keyCreated(overrides: Partial<KeyCreated> = {}): ControlEvent {
  return {
    type: 'KeyCreated',
    event: {
      ...header(),
      keyId: 'key_abc',
      publicId: 'abcdefghijkl',
      digest: 'd'.repeat(64),
      name: 'ci key',
      userId: 'usr_1',
      rpm: 100,
      tpm: 200_000,
      quotaNanoUsd: '1000000000',
      expiresAt: null,
      models: ['gpt-4o-mini', 'claude-sonnet-4-5'],
      teamId: null,
      tags: [],
      rpd: null,
      tpd: null,
      modelLimits: [],
      ...overrides,
    },
  };
}

export function keyUpdated(overrides: Partial<KeyUpdated> = {}): ControlEvent {
  return {
    type: 'KeyUpdated',
    event: {
      ...header(),
      keyId: 'key_abc',
      name: 'renamed',
      rpm: null,
      tpm: null,
      quotaNanoUsd: null,
      expiresAt: 1_800_000_000_000,
      models: null,
      enabled: false,
      teamId: null,
      tags: [],
      rpd: null,
      tpd: null,
      modelLimits: [],
      ...overrides,
    },
  };
}

export function keyRevoked(overrides: Partial<KeyRevoked> = {}): ControlEvent {
  return {
    type: 'KeyRevoked',
    event: { ...header(), keyId: 'key_abc', effectiveAt: 1_767_225_600_000, reason: null, ...overrides },
  };
}

/** A mock channel whose credential `apiKey` is encrypted under `masterKey` (default TEST_MASTER_KEY). */
export function channelUpserted(
  overrides: Partial<ChannelUpserted> = {},
  apiKey = 'sk-upstream-secret',
  masterKey = TEST_MASTER_KEY,
): ControlEvent {
  return {
    type: 'ChannelUpserted',
    event: {
      ...header(),
      channelId: 'ch-1',
      provider: 'mock',
      protocol: 'openai-chat',
      baseUrl: null,
      apiKeyCiphertext: encryptCredential(masterKey, apiKey),
      models: ['mock-1'],
      modelMap: { 'gpt-4o': 'mock-1' },
      priority: 1,
      weight: 2.5,
      enabled: true,
      timeoutMs: 30_000,
      rpm: 600,
      tpm: null,
      ...overrides,
    },
  };
}

export function channelRemoved(channelId = 'ch-1'): ControlEvent {
  return { type: 'ChannelRemoved', event: { ...header(), channelId } };
}

export function priceSet(overrides: Partial<PriceSet> = {}): ControlEvent {
  return {
    type: 'PriceSet',
    event: {
      ...header(),
      priceId: 'price_1',
      model: 'gpt-4o',
      channel: null,
      inputPerMTok: 2.5,
      outputPerMTok: 10,
      cacheReadPerMTok: 1.25,
      cacheWritePerMTok: null,
      cacheWrite1hPerMTok: null,
      effectiveFrom: 1_735_689_600_000,
      ...overrides,
    },
  };
}

/** A personal admin token `alice` (digest `a…a`). */
export function adminTokenCreated(overrides: Partial<AdminTokenCreated> = {}): ControlEvent {
  return {
    type: 'AdminTokenCreated',
    event: { ...header(), tokenId: 'adm_0123456789abcdef', name: 'alice', digest: 'a'.repeat(64), ...overrides },
  };
}

export function adminTokenRevoked(overrides: Partial<AdminTokenRevoked> = {}): ControlEvent {
  return {
    type: 'AdminTokenRevoked',
    event: { ...header(), tokenId: 'adm_0123456789abcdef', reason: null, ...overrides },
  };
}

/** Team `team_1` ("Search"): limits, a model allowlist, one per-model limit and a default tag. */
export function teamCreated(overrides: Partial<TeamCreated> = {}): ControlEvent {
  return {
    type: 'TeamCreated',
    event: {
      ...header(),
      teamId: 'team_1',
      name: 'Search',
      rpm: 600,
      tpm: null,
      rpd: 10_000,
      tpd: null,
      models: ['gpt-4o-mini'],
      modelLimits: [{ model: 'gpt-4o-mini', rpm: 60, tpm: null, rpd: null, tpd: 1_000_000 }],
      tags: ['project=search'],
      ...overrides,
    },
  };
}

/** Team `team_1` renamed and disabled, every model, no limits. */
export function teamUpdated(overrides: Partial<TeamUpdated> = {}): ControlEvent {
  return {
    type: 'TeamUpdated',
    event: {
      ...header(),
      teamId: 'team_1',
      name: 'Search v2',
      rpm: null,
      tpm: null,
      rpd: null,
      tpd: null,
      models: null,
      modelLimits: [],
      tags: [],
      disabled: true,
      ...overrides,
    },
  };
}

/** usr_1 joins team_1 as a member. */
export function teamMemberSet(overrides: Partial<TeamMemberSet> = {}): ControlEvent {
  return {
    type: 'TeamMemberSet',
    event: { ...header(), teamId: 'team_1', userId: 'usr_1', role: 'member', ...overrides },
  };
}

/** usr_1 leaves team_1. */
export function teamMemberRemoved(teamId = 'team_1', userId = 'usr_1'): ControlEvent {
  return { type: 'TeamMemberRemoved', event: { ...header(), teamId, userId } };
}

/** Budget `bgt_1`: 10 USD a day on team_1, in Berlin time, alerts at 50 and 80 %. */
export function budgetSet(overrides: Partial<BudgetSet> = {}): ControlEvent {
  return {
    type: 'BudgetSet',
    event: {
      ...header(),
      budgetId: 'bgt_1',
      name: 'search daily',
      scope: 'team',
      scopeId: 'team_1',
      limitNanoUsd: '10000000000',
      limitTokens: null,
      period: 'day',
      rollingMs: null,
      timeZone: 'Europe/Berlin',
      thresholds: [50, 80],
      downgradeModel: null,
      ...overrides,
    },
  };
}

export function budgetRemoved(budgetId = 'bgt_1'): ControlEvent {
  return { type: 'BudgetRemoved', event: { ...header(), budgetId } };
}

/** Webhook `whk_1` (JSON format), its secret encrypted under TEST_MASTER_KEY. */
export function alertWebhookSet(overrides: Partial<AlertWebhookSet> = {}): ControlEvent {
  return {
    type: 'AlertWebhookSet',
    event: {
      ...header(),
      webhookId: 'whk_1',
      name: 'ops',
      url: 'https://hooks.example.com/tollgate',
      format: 'json',
      secretCiphertext: encryptCredential(TEST_MASTER_KEY, 'whsec_dGVzdA=='),
      enabled: true,
      ...overrides,
    },
  };
}

export function alertWebhookRemoved(webhookId = 'whk_1'): ControlEvent {
  return { type: 'AlertWebhookRemoved', event: { ...header(), webhookId } };
}

/**
 * Control-plane commands: every bad input gives a CommandError with the right status, a message
 * naming the field and the field itself; good input gives exactly the events expected (digests
 * and ciphertext only, never a secret), folded here by the in-memory stand-in.
 */
import { describe, expect, it } from 'vitest';
import { decryptCredential } from '../../../gateway/control-plane/credential-cipher.ts';
import { digestApiKey } from '../../../gateway/control-plane/key-material.ts';
import {
  createKey,
  createUser,
  nanoToUsd,
  removeChannel,
  revokeKey,
  rotateKey,
  setPrice,
  updateKey,
  updateUser,
  upsertChannel,
  type CommandContext,
} from '../../../gateway/control-plane/commands.ts';
import { RecordingControlPlane } from './recording-control-plane.ts';
import { commandRefusal, runCommand } from './run-command.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const masterKey = Buffer.alloc(32, 7);
const hmacSecret = Buffer.from('h'.repeat(40));
const ctx: CommandContext = { now: NOW, actor: 'admin', secrets: { masterKey, hmacSecret } };

function setup(): RecordingControlPlane {
  return new RecordingControlPlane(masterKey);
}

describe('createUser / updateUser', () => {
  it.each([
    [{}, 'name', 'name: is required'],
    [{ name: 5 }, 'name', 'name: expected string, got number'],
    [{ name: '  ' }, 'name', 'name: must not be empty'],
    [{ name: 'x'.repeat(201) }, 'name', 'name: must be at most 200 characters'],
    [{ name: 'a', role: 'root' }, 'role', "role: must be 'admin' or 'user'"],
    [{ name: 'a', rpm: -1 }, 'rpm', 'rpm: must be a positive integer or null'],
    [{ name: 'a', rpm: 0 }, 'rpm', 'rpm: must be a positive integer or null'],
    [{ name: 'a', rpm: 1.5 }, 'rpm', 'rpm: must be a positive integer or null'],
    [{ name: 'a', rpm: '10' }, 'rpm', 'rpm: must be a positive integer or null'],
    [{ name: 'a', tpm: -100 }, 'tpm', 'tpm: must be a positive integer or null'],
    [{ name: 'a', tpm: 1e300 }, 'tpm', 'tpm: must be a positive integer or null'],
    [{ name: 'a', quotaUsd: -1 }, 'quotaUsd', 'quotaUsd: must be a USD amount ≥ 0 with at most 9 decimal places'],
    [
      { name: 'a', quotaUsd: 0.0000000001 },
      'quotaUsd',
      'quotaUsd: must be a USD amount ≥ 0 with at most 9 decimal places',
    ],
    [
      { name: 'a', quotaUsd: '1.1234567891' },
      'quotaUsd',
      'quotaUsd: must be a USD amount ≥ 0 with at most 9 decimal places',
    ],
    [{ name: 'a', quotaUsd: 'ten' }, 'quotaUsd', 'quotaUsd: must be a USD amount ≥ 0 with at most 9 decimal places'],
    [{ name: 'a', quotaUsd: true }, 'quotaUsd', 'quotaUsd: must be a USD amount (number or decimal string) or null'],
    [{ name: 'a', foo: 1 }, 'foo', "unknown field 'foo'"],
  ])('createUser %j → 400 on %s', (body, field, message) => {
    expect(commandRefusal(() => createUser(setup(), body, ctx))).toEqual({ status: 400, field, message });
  });

  it.each([[[]], [null], ['x'], [42]])('createUser with body %j → 400 request body', (body) => {
    expect(commandRefusal(() => createUser(setup(), body, ctx))).toEqual({
      status: 400,
      field: undefined,
      message: 'request body: must be a JSON object',
    });
  });

  it('creates a user with defaults and an exact nano-USD quota', async () => {
    const cp = setup();
    const { userId } = await runCommand(cp, () =>
      createUser(cp, { name: ' Ada ', quotaUsd: '12.000000001', tpm: 5000 }, ctx),
    );
    expect(userId).toMatch(/^usr_[0-9a-f]{16}$/);
    expect(cp.published).toEqual([
      {
        type: 'UserCreated',
        event: {
          eventId: expect.any(String),
          occurredAt: NOW,
          actor: 'admin',
          userId,
          name: 'Ada',
          role: 'user',
          rpm: null,
          tpm: 5000,
          quotaNanoUsd: '12000000001',
        },
      },
    ]);
    const { userId: second } = await runCommand(cp, () =>
      createUser(cp, { name: 'Bo', role: 'admin', quotaUsd: 0.1 }, ctx),
    );
    expect(cp.user(second)).toMatchObject({ role: 'admin', quotaNanoUsd: 100_000_000n });
  });

  it('updates only the given fields and refuses unknown users, empty bodies and bad values', async () => {
    const cp = setup();
    const { userId } = await runCommand(cp, () => createUser(cp, { name: 'Ada', rpm: 10, quotaUsd: 5 }, ctx));
    await runCommand(cp, () => updateUser(cp, userId, { disabled: true, quotaUsd: null }, ctx));
    expect(cp.user(userId)).toMatchObject({ name: 'Ada', rpm: 10, quotaNanoUsd: null, disabled: true });
    expect(cp.published[1]).toMatchObject({
      type: 'UserUpdated',
      event: { userId, name: 'Ada', role: 'user', rpm: 10, tpm: null, quotaNanoUsd: null, disabled: true },
    });
    expect(commandRefusal(() => updateUser(cp, 'usr_nope', { name: 'x' }, ctx))).toEqual({
      status: 404,
      field: 'id',
      message: "user 'usr_nope' not found",
    });
    expect(commandRefusal(() => updateUser(cp, userId, {}, ctx))).toEqual({
      status: 400,
      field: undefined,
      message: 'request body: no fields to update',
    });
    expect(commandRefusal(() => updateUser(cp, userId, { disabled: 'yes' }, ctx))).toEqual({
      status: 400,
      field: 'disabled',
      message: 'disabled: must be true or false',
    });
    expect(commandRefusal(() => updateUser(cp, userId, { createdAt: 1 }, ctx))).toEqual({
      status: 400,
      field: 'createdAt',
      message: "unknown field 'createdAt'",
    });
  });
});

describe('createKey / updateKey', () => {
  it.each([
    [{}, 400, 'name', 'name: is required'],
    [{ name: 'k', expiresAt: '2026-03-01T11:59:59Z' }, 400, 'expiresAt', 'expiresAt: must be in the future'],
    [
      { name: 'k', expiresAt: 'tomorrow' },
      400,
      'expiresAt',
      'expiresAt: must be an ISO-8601 date-time with a time zone, e.g. 2030-01-01T00:00:00Z',
    ],
    [
      { name: 'k', expiresAt: '2030-01-01T00:00:00' },
      400,
      'expiresAt',
      'expiresAt: must be an ISO-8601 date-time with a time zone, e.g. 2030-01-01T00:00:00Z',
    ],
    [
      { name: 'k', expiresAt: 1900000000000 },
      400,
      'expiresAt',
      'expiresAt: must be an ISO-8601 date-time string or null',
    ],
    [{ name: 'k', models: [] }, 400, 'models', 'models: must list at least one model (null allows every model)'],
    [{ name: 'k', models: ['a', 3] }, 400, 'models.1', 'models.1: must be a model name string'],
    [{ name: 'k', models: ['a', ''] }, 400, 'models.1', 'models.1: must not be empty'],
    [{ name: 'k', models: 'a,b' }, 400, 'models', 'models: must be an array of model names or null'],
    [{ name: 'k', userId: 'usr_nope' }, 404, 'userId', "user 'usr_nope' not found"],
    [{ name: 'k', userId: 5 }, 400, 'userId', 'userId: must be a user id string or null'],
    [{ name: 'k', rpm: -5 }, 400, 'rpm', 'rpm: must be a positive integer or null'],
    [
      { name: 'k', quotaUsd: '-0.5' },
      400,
      'quotaUsd',
      'quotaUsd: must be a USD amount ≥ 0 with at most 9 decimal places',
    ],
    [{ name: 'k', digest: 'abc' }, 400, 'digest', "unknown field 'digest'"],
  ])('createKey %j → %i on %s', (body, status, field, message) => {
    expect(commandRefusal(() => createKey(setup(), body, ctx))).toEqual({ status, field, message });
  });

  it('mints sk-<publicId>-<secret>, publishes only its HMAC digest, and keeps every setting', async () => {
    const cp = setup();
    const { userId } = await runCommand(cp, () => createUser(cp, { name: 'Ada' }, ctx));
    const { events, result } = createKey(
      cp,
      {
        name: 'ci',
        userId,
        rpm: 60,
        tpm: 10000,
        quotaUsd: 2.5,
        expiresAt: '2027-01-01T00:00:00+01:00',
        models: ['gpt-x', 'gpt-x', 'claude'],
      },
      ctx,
    );
    expect(result.apiKey).toMatch(/^sk-[a-z2-7]{12}-[0-9A-Za-z]{32}$/);
    const publicId = result.apiKey.slice(3, 15);
    expect(result.keyId).toBe(`key_${publicId}`);
    expect(events).toEqual([
      {
        type: 'KeyCreated',
        event: {
          eventId: expect.any(String),
          occurredAt: NOW,
          actor: 'admin',
          keyId: `key_${publicId}`,
          publicId,
          digest: digestApiKey(hmacSecret, result.apiKey),
          name: 'ci',
          userId,
          rpm: 60,
          tpm: 10000,
          quotaNanoUsd: '2500000000',
          expiresAt: Date.parse('2026-12-31T23:00:00Z'),
          models: ['gpt-x', 'claude'],
          teamId: null,
          tags: [],
          rpd: null,
          tpd: null,
          modelLimits: [],
        },
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(result.apiKey.slice(16));
    const again = createKey(cp, { name: 'ci' }, ctx).result.apiKey;
    expect(again).not.toBe(result.apiKey);
  });

  it('updates a key, clears settings with null, and refuses unknown, revoked and past-expiry updates', async () => {
    const cp = setup();
    const { keyId } = await runCommand(cp, () =>
      createKey(cp, { name: 'ci', rpm: 5, models: ['a'], expiresAt: '2030-01-01T00:00:00Z' }, ctx),
    );
    const publicId = cp.key(keyId)!.publicId;
    await runCommand(cp, () =>
      updateKey(cp, publicId, { models: null, expiresAt: null, enabled: false, quotaUsd: '0.000000001' }, ctx),
    );
    expect(cp.key(keyId)).toMatchObject({
      name: 'ci',
      rpm: 5,
      models: null,
      expiresAt: null,
      enabled: false,
      quotaNanoUsd: 1n,
    });
    expect(commandRefusal(() => updateKey(cp, 'key_nope', { name: 'x' }, ctx))).toEqual({
      status: 404,
      field: 'id',
      message: "key 'key_nope' not found",
    });
    expect(commandRefusal(() => updateKey(cp, keyId, {}, ctx))).toEqual({
      status: 400,
      field: undefined,
      message: 'request body: no fields to update',
    });
    expect(commandRefusal(() => updateKey(cp, keyId, { expiresAt: '2020-01-01T00:00:00Z' }, ctx))).toEqual({
      status: 400,
      field: 'expiresAt',
      message: 'expiresAt: must be in the future',
    });
    expect(commandRefusal(() => updateKey(cp, keyId, { enabled: 1 }, ctx))).toEqual({
      status: 400,
      field: 'enabled',
      message: 'enabled: must be true or false',
    });
    expect(commandRefusal(() => updateKey(cp, keyId, { userId: 'usr_x' }, ctx))).toEqual({
      status: 400,
      field: 'userId',
      message: "unknown field 'userId'",
    });
    await runCommand(cp, () => revokeKey(cp, keyId, {}, ctx));
    expect(commandRefusal(() => updateKey(cp, keyId, { name: 'x' }, ctx))).toEqual({
      status: 409,
      field: 'id',
      message: `key '${keyId}' is revoked and cannot be changed`,
    });
  });
});

describe('revokeKey / rotateKey', () => {
  it('revokes now, with a reason, once', async () => {
    const cp = setup();
    const { keyId } = await runCommand(cp, () => createKey(cp, { name: 'ci' }, ctx));
    expect(commandRefusal(() => revokeKey(cp, keyId, { reason: 5 }, ctx))).toEqual({
      status: 400,
      field: 'reason',
      message: 'reason: must be a string or null',
    });
    await runCommand(cp, () => revokeKey(cp, keyId, { reason: 'leaked' }, ctx));
    expect(cp.published[1]).toEqual({
      type: 'KeyRevoked',
      event: {
        eventId: expect.any(String),
        occurredAt: NOW,
        actor: 'admin',
        keyId,
        effectiveAt: NOW,
        reason: 'leaked',
      },
    });
    expect(commandRefusal(() => revokeKey(cp, keyId, undefined, ctx))).toEqual({
      status: 409,
      field: 'id',
      message: `key '${keyId}' is already revoked`,
    });
    expect(commandRefusal(() => revokeKey(cp, 'nope', undefined, ctx))).toEqual({
      status: 404,
      field: 'id',
      message: "key 'nope' not found",
    });
  });

  it('rotates: same settings under a new secret, old key revoked after the grace period', async () => {
    const cp = setup();
    const { keyId: oldId } = await runCommand(cp, () =>
      createKey(
        cp,
        { name: 'ci', rpm: 7, tpm: 700, quotaUsd: 3, models: ['m'], expiresAt: '2030-01-01T00:00:00Z' },
        ctx,
      ),
    );
    await runCommand(cp, () => updateKey(cp, oldId, { enabled: false }, ctx));
    const { keyId, apiKey, replacedKeyId } = await runCommand(cp, () =>
      rotateKey(cp, oldId, { graceSeconds: 90 }, ctx),
    );
    expect(replacedKeyId).toBe(oldId);
    expect(cp.published.slice(2).map((e) => e.type)).toEqual(['KeyCreated', 'KeyUpdated', 'KeyRevoked']);
    expect(cp.key(keyId)).toMatchObject({
      digest: digestApiKey(hmacSecret, apiKey),
      name: 'ci',
      rpm: 7,
      tpm: 700,
      quotaNanoUsd: 3_000_000_000n,
      models: new Set(['m']),
      expiresAt: Date.parse('2030-01-01T00:00:00Z'),
      enabled: false,
      revokedAt: null,
    });
    expect(cp.published.at(-1)).toMatchObject({
      event: { keyId: oldId, effectiveAt: NOW + 90_000, reason: `rotated to ${keyId}` },
    });
    expect(commandRefusal(() => rotateKey(cp, oldId, {}, ctx))).toEqual({
      status: 409,
      field: 'id',
      message: `key '${oldId}' is already being revoked and cannot be rotated`,
    });
    expect(commandRefusal(() => rotateKey(cp, oldId, {}, { ...ctx, now: NOW + 90_000 }))).toEqual({
      status: 409,
      field: 'id',
      message: `key '${oldId}' is already revoked and cannot be rotated`,
    });
    await runCommand(cp, () => revokeKey(cp, oldId, {}, ctx));
    expect(cp.key(oldId)!.revokedAt).toBe(NOW);
  });

  it.each([
    [{ graceSeconds: -1 }, 'graceSeconds: must be ≥ 0'],
    [{ graceSeconds: 1.5 }, 'graceSeconds: must be a whole number of seconds'],
    [{ graceSeconds: '60' }, 'graceSeconds: must be a whole number of seconds'],
    [{ graceSeconds: 2_592_001 }, 'graceSeconds: must be at most 2592000 (30 days)'],
  ])('rotateKey %j → 400', async (body, message) => {
    const cp = setup();
    const { keyId } = await runCommand(cp, () => createKey(cp, { name: 'ci' }, ctx));
    expect(commandRefusal(() => rotateKey(cp, keyId, body, ctx))).toEqual({
      status: 400,
      field: 'graceSeconds',
      message,
    });
  });

  it('refuses to rotate an expired key', async () => {
    const cp = setup();
    const { keyId } = await runCommand(cp, () => createKey(cp, { name: 'ci', expiresAt: '2026-03-01T12:00:01Z' }, ctx));
    expect(commandRefusal(() => rotateKey(cp, keyId, {}, { ...ctx, now: NOW + 1000 }))).toEqual({
      status: 409,
      field: 'id',
      message: `key '${keyId}' has expired and cannot be rotated: create a new key`,
    });
  });
});

describe('upsertChannel / removeChannel', () => {
  const good = {
    provider: 'deepseek',
    protocol: 'openai-chat',
    baseUrl: 'https://api.example.com/v1',
    models: ['deepseek-chat'],
  };

  it.each([
    [{}, 'provider', 'provider: is required'],
    [
      { ...good, provider: 'acme' },
      'provider',
      'provider: must be one of "openai", "anthropic", "gemini", "deepseek", "dashscope", "moonshot", "minimax", "zhipu", "xiaomi", "openai-compatible", "anthropic-compatible", "openrouter", "groq", "mistral", "xai", "together", "fireworks", "volcengine-ark", "siliconflow", "ollama", "vllm", "lmstudio", "azure", "bedrock", "vertex", "mock"',
    ],
    [
      { ...good, protocol: 'grpc' },
      'protocol',
      'protocol: must be one of "openai-responses", "openai-chat", "anthropic-messages", "gemini", "bedrock-converse"',
    ],
    [{ ...good, baseUrl: 'ftp://x' }, 'baseUrl', 'baseUrl: must be an http(s) URL'],
    [{ ...good, models: [] }, 'models', 'models: must serve at least one model (models or modelMap)'],
    [{ ...good, weight: 0 }, 'weight', 'weight: must be > 0'],
    [{ ...good, priority: '1' }, 'priority', 'priority: expected number, got string'],
    [{ ...good, timeoutMs: -1 }, 'timeoutMs', 'timeoutMs: must be > 0'],
    [{ ...good, apiKey: null }, 'apiKey', 'apiKey: expected string, got null'],
    [{ ...good, rpm: -5 }, 'rpm', 'rpm: must be a positive integer or null'],
    [{ ...good, tpm: 'lots' }, 'tpm', 'tpm: must be a positive integer or null'],
    [{ ...good, mock: { latencyMs: 1 } }, 'mock', 'mock: is only supported in the config file'],
    [{ ...good, id: 'other' }, 'id', "id: must equal the channel id in the path ('ch-1')"],
    [{ ...good, secret: 'x' }, 'secret', "unknown field 'secret'"],
  ])('upsertChannel %j → 400 on %s', (body, field, message) => {
    expect(commandRefusal(() => upsertChannel(setup(), 'ch-1', body, ctx))).toEqual({ status: 400, field, message });
  });

  it('refuses a bad channel id and a missing channel', () => {
    expect(commandRefusal(() => upsertChannel(setup(), 'a b', good, ctx))).toEqual({
      status: 400,
      field: 'id',
      message: 'id: may contain only letters, digits, ".", "_", ":" and "-"',
    });
    expect(commandRefusal(() => removeChannel(setup(), 'ghost', ctx))).toEqual({
      status: 404,
      field: 'id',
      message: "channel 'ghost' not found",
    });
  });

  it('encrypts the credential and keeps it when an update omits apiKey', async () => {
    const cp = setup();
    const created = await runCommand(cp, () =>
      upsertChannel(cp, 'ch-1', { ...good, apiKey: 'sk-upstream-secret', rpm: 100 }, ctx),
    );
    expect(created).toEqual({ channelId: 'ch-1', created: true });
    const first = cp.published[0]!;
    expect(JSON.stringify(first)).not.toContain('sk-upstream-secret');
    expect(first.type === 'ChannelUpserted' && decryptCredential(masterKey, first.event.apiKeyCiphertext)).toBe(
      'sk-upstream-secret',
    );
    expect(first.event).toMatchObject({
      channelId: 'ch-1',
      provider: 'deepseek',
      protocol: 'openai-chat',
      baseUrl: 'https://api.example.com/v1',
      models: ['deepseek-chat'],
      modelMap: {},
      priority: 0,
      weight: 1,
      enabled: true,
      timeoutMs: 600000,
      rpm: 100,
      tpm: null,
    });
    const updated = await runCommand(cp, () =>
      upsertChannel(cp, 'ch-1', { provider: 'deepseek', modelMap: { fast: 'deepseek-chat' }, enabled: false }, ctx),
    );
    expect(updated).toEqual({ channelId: 'ch-1', created: false });
    expect(cp.channels()[0]).toMatchObject({
      config: {
        id: 'ch-1',
        apiKey: 'sk-upstream-secret',
        modelMap: { fast: 'deepseek-chat' },
        enabled: false,
        models: [],
      },
      rpm: null,
    });
    await runCommand(cp, () => upsertChannel(cp, 'ch-1', { ...good, apiKey: '' }, ctx));
    expect(cp.channels()[0]!.config.apiKey).toBe('');
    await runCommand(cp, () => removeChannel(cp, 'ch-1', ctx));
    expect(cp.channels()).toEqual([]);
    expect(cp.published.at(-1)).toMatchObject({ type: 'ChannelRemoved', event: { channelId: 'ch-1' } });
  });
});

describe('setPrice', () => {
  const good = { model: 'deepseek-chat', inputPerMTok: 0.27, outputPerMTok: 1.1 };

  it.each([
    [{}, 'model', 'model: is required'],
    [{ ...good, inputPerMTok: -1 }, 'inputPerMTok', 'inputPerMTok: must be ≥ 0'],
    [{ ...good, outputPerMTok: 1.0000000001 }, 'outputPerMTok', 'outputPerMTok: must have at most 9 decimal places'],
    [{ ...good, inputPerMTok: '1' }, 'inputPerMTok', 'inputPerMTok: expected number, got string'],
    [{ ...good, cacheReadPerMTok: -0.1 }, 'cacheReadPerMTok', 'cacheReadPerMTok: must be ≥ 0'],
    [
      { ...good, effectiveFrom: 'yesterday' },
      'effectiveFrom',
      'effectiveFrom: must be an ISO-8601 date or date-time with a time zone, e.g. 2025-01-01 or 2025-01-01T00:00:00Z',
    ],
    [{ ...good, channel: '' }, 'channel', 'channel: must not be empty'],
    [{ ...good, currency: 'EUR' }, 'currency', "unknown field 'currency'"],
  ])('setPrice %j → 400 on %s', (body, field, message) => {
    expect(commandRefusal(() => setPrice(setup(), undefined, body, ctx))).toEqual({ status: 400, field, message });
  });

  it('derives a stable id so the same model, channel and start replace the entry', async () => {
    const cp = setup();
    await runCommand(cp, () => upsertChannel(cp, 'ch-1', { provider: 'deepseek', models: ['deepseek-chat'] }, ctx));
    expect(
      await runCommand(cp, () =>
        setPrice(cp, undefined, { ...good, channel: 'ch-1', effectiveFrom: '2026-01-01' }, ctx),
      ),
    ).toEqual({ priceId: 'deepseek-chat|ch-1|2026-01-01T00:00:00.000Z', created: true });
    expect(
      await runCommand(cp, () =>
        setPrice(
          cp,
          undefined,
          { ...good, channel: 'ch-1', effectiveFrom: '2026-01-01T00:00:00Z', outputPerMTok: 2 },
          ctx,
        ),
      ),
    ).toEqual({ priceId: 'deepseek-chat|ch-1|2026-01-01T00:00:00.000Z', created: false });
    expect(cp.prices()).toEqual([
      {
        priceId: 'deepseek-chat|ch-1|2026-01-01T00:00:00.000Z',
        model: 'deepseek-chat',
        channel: 'ch-1',
        inputPerMTok: 0.27,
        outputPerMTok: 2,
        effectiveFrom: '2026-01-01T00:00:00.000Z',
      },
    ]);
    expect(cp.published[1]).toMatchObject({
      type: 'PriceSet',
      event: {
        channel: 'ch-1',
        cacheReadPerMTok: null,
        cacheWritePerMTok: null,
        effectiveFrom: Date.parse('2026-01-01T00:00:00Z'),
      },
    });
    // A general price from now would lose to ch-1's own price once that starts: refused, unless forced.
    const shadowed = commandRefusal(() => setPrice(cp, 'promo', { ...good, effectiveFrom: '2026-02-01' }, ctx));
    expect(shadowed).toMatchObject({ status: 400, field: 'channel' });
    expect(shadowed.message).toContain(
      "price 'deepseek-chat|ch-1|2026-01-01T00:00:00.000Z' (model deepseek-chat, channel ch-1, from 2026-01-01T00:00:00.000Z, input 0.27, output 2 USD per million tokens) wins on channel 'ch-1'",
    );
    expect(
      await runCommand(cp, () => setPrice(cp, 'promo', { ...good, effectiveFrom: '2026-02-01', force: true }, ctx)),
    ).toEqual({ priceId: 'promo', created: true });
    expect(commandRefusal(() => setPrice(cp, 'promo', { ...good, priceId: 'other' }, ctx))).toEqual({
      status: 400,
      field: 'priceId',
      message: "priceId: must equal the price id in the path ('promo')",
    });
  });
});

describe('nanoToUsd', () => {
  it.each([
    [0n, '0'],
    [1n, '0.000000001'],
    [2_500_000_000n, '2.5'],
    [12_000_000_001n, '12.000000001'],
    [123_456_789_000_000_000n, '123456789'],
  ])('%s nano-USD → %s', (nano, usd) => {
    expect(nanoToUsd(nano)).toBe(usd);
  });
});

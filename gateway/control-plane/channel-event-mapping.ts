/**
 * The two directions between a config-file channel (ChannelConfig, credential in clear) and a
 * ChannelUpserted event (credential encrypted): `channelUpsertFields` builds the event body,
 * `channelRecordFromEvent` rebuilds a routable ChannelRecord from it. Only the latter ever holds a
 * decrypted credential, in memory; neither logs.
 */
import type { ChannelUpserted, RateLimits } from '../../schemas/control-plane/control-plane-events.ts';
import { channelSchema, type ChannelConfig } from '../config/config-schema.ts';
import type { CloudSettings } from '../providers/provider-preset.ts';
import { resolveChannel } from '../routing/channel.ts';
import type { ChannelRecord } from './control-plane-view.ts';
import { decryptCredential, encryptCredential } from './credential-cipher.ts';

/** The body of a ChannelUpserted, without the event header. */
export type ChannelUpsertFields = Omit<ChannelUpserted, 'eventId' | 'occurredAt' | 'actor'>;

/**
 * The event fields for a channel config: every config field under its own name (a copy), the
 * credential encrypted under `masterKey` (a key pool's every credential encrypted the same way,
 * `apiKeyCiphertext` then holding an empty string), absent protocol/baseUrl/mock as null, limits
 * as given (null = unlimited).
 * @throws Error when `masterKey` is not 32 bytes
 */
export function channelUpsertFields(config: ChannelConfig, masterKey: Buffer, limits: RateLimits): ChannelUpsertFields {
  const { id, protocol, baseUrl, apiKey, mock, cloud, credentials, ...rest } = structuredClone(config);
  // Every other config field travels under its own name: a config field the event lacks fails to compile here.
  const settings: Pick<ChannelUpsertFields, keyof typeof rest> = rest;
  return {
    channelId: id,
    protocol: protocol ?? null,
    baseUrl: baseUrl ?? null,
    apiKeyCiphertext: encryptCredential(masterKey, apiKey),
    ...settings,
    rpm: limits.rpm,
    tpm: limits.tpm,
    mock: mock ? { ...mock, failStatus: mock.failStatus ?? null } : null,
    cloud: cloud ? cloudFields(cloud) : null,
    credentials: (credentials ?? []).map((credential) => ({
      id: credential.id,
      apiKeyCiphertext: encryptCredential(masterKey, credential.apiKey),
      rpm: credential.rpm,
      tpm: credential.tpm,
    })),
  };
}

/** A channel's cloud settings as the event's ChannelCloud record: every field, absent as null. */
function cloudFields(cloud: CloudSettings): NonNullable<ChannelUpserted['cloud']> {
  return {
    auth: cloud.auth ?? null,
    region: cloud.region ?? null,
    project: cloud.project ?? null,
    apiVersion: cloud.apiVersion ?? null,
    tenantId: cloud.tenantId ?? null,
    clientId: cloud.clientId ?? null,
    roleArn: cloud.roleArn ?? null,
    externalId: cloud.externalId ?? null,
  };
}

/** A projected channel, or why it could not be projected. */
export interface ChannelProjection {
  /** undefined when the event does not describe a valid channel (then `warning` says why). */
  readonly record: ChannelRecord | undefined;
  /** Set when the channel is left out, or kept but disabled (credential not decryptable). */
  readonly warning: string | undefined;
  /** True when the credential could not be decrypted (the channel is kept, disabled, with an empty key). */
  readonly undecryptable: boolean;
  /** Whether the event carries a credential: non-empty once decrypted, or one that does not decrypt. */
  readonly hasCredential: boolean;
}

/**
 * Rebuilds the channel of a ChannelUpserted: decrypts the credential (or every credential of its
 * key pool; an event older than version 4 has none, so its one credential is `apiKey`) with `masterKey`, validates
 * the result with the config file's channel schema, and checks that routing can resolve it
 * (resolveChannel). A credential that does not decrypt keeps the channel but disabled, with an
 * empty key and a warning; an invalid channel (unknown provider, no models, no endpoint) gives
 * no record and a warning. Never throws.
 */
export function channelRecordFromEvent(event: ChannelUpserted, masterKey: Buffer): ChannelProjection {
  let undecryptable = false;
  const decrypt = (ciphertext: string): string => {
    try {
      return decryptCredential(masterKey, ciphertext);
    } catch {
      undecryptable = true;
      return '';
    }
  };
  const apiKey = decrypt(event.apiKeyCiphertext);
  const pool = (event.credentials ?? []).map((credential) => ({
    ...credential,
    apiKey: decrypt(credential.apiKeyCiphertext),
  }));
  const hasCredential = undecryptable || apiKey !== '' || pool.some((credential) => credential.apiKey !== '');
  const parsed = channelSchema.safeParse({
    ...configFieldsOf(event),
    apiKey,
    ...(pool.length > 0
      ? { credentials: pool.map(({ id, apiKey: key, rpm, tpm }) => ({ id, apiKey: key, rpm, tpm })) }
      : {}),
    enabled: event.enabled && !undecryptable,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      record: undefined,
      undecryptable,
      hasCredential,
      warning: `channel ${event.channelId} left out: ${issue ? `${issue.path.join('.') || 'channel'}: ${issue.message}` : 'invalid'}`,
    };
  }
  try {
    resolveChannel(parsed.data);
  } catch (error) {
    return {
      record: undefined,
      undecryptable,
      hasCredential,
      warning: `channel ${event.channelId} left out: ${(error as Error).message}`,
    };
  }
  const record: ChannelRecord = { config: parsed.data, rpm: event.rpm, tpm: event.tpm, updatedAt: event.occurredAt };
  const warning = undecryptable
    ? `channel ${event.channelId} disabled: its credential cannot be decrypted with this TOLLGATE_MASTER_KEY (wrong key or tampered event)`
    : undefined;
  return { record, undecryptable, hasCredential, warning };
}

/** The config fields a ChannelUpserted carries (`channelId` as `id`); null = absent, at any depth, so the config's default applies. */
function configFieldsOf(event: ChannelUpserted): Record<string, unknown> {
  const source: Readonly<Record<string, unknown>> = { ...event, id: event.channelId };
  const fields: Record<string, unknown> = {};
  for (const name of Object.keys(channelSchema.shape)) {
    if (name === 'credentials') continue; // decrypted by channelRecordFromEvent
    const value = withoutNulls(source[name]);
    if (value !== undefined) fields[name] = value;
  }
  return fields;
}

/** `value` with null object entries left out (recursively through plain objects; arrays as they are); null itself → undefined. */
function withoutNulls(value: unknown): unknown {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(value)) {
    const inner = withoutNulls(entry);
    if (inner !== undefined) kept[name] = inner;
  }
  return kept;
}

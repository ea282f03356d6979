/**
 * The config file as control events (actor `config-file`): its keys, channels and prices are
 * appended to the config topic at start-up — but only what differs from the current projection,
 * so applying the same file on every start appends nothing.
 *
 * What the file controls, and what it leaves alone:
 * - Keys: the key (by its HMAC digest) and its name. A key missing from the projection gives a
 *   KeyCreated (keyId `key_<publicId>`, publicId = first 12 hex chars of the digest, no user, no
 *   limits, no quota, no expiry, every model); a known key whose name changed gives a KeyUpdated
 *   that keeps its limits, quota, expiry, models, team, tags and enabled flag as set through the admin API.
 *   A key revoked through the admin API stays revoked (a revocation never un-revokes).
 * - Channels: every field of the file's channel (credential included; compared in clear, since
 *   each encryption differs). A new or changed channel gives a ChannelUpserted; its RPM/TPM
 *   limits (not in the file) are kept from the projection. So the file wins over admin edits of
 *   the same channel at the next start.
 * - Prices: one PriceSet per entry, id `config:<model>:<channel|*>:<effectiveFrom ISO>`, when no
 *   price of that id exists or its amounts differ.
 * - Entities removed from the file are NOT removed from the control plane: the file only adds
 *   and updates. Remove them through the admin API (`channels remove`, `keys revoke`).
 */
import { randomUUID } from 'node:crypto';
import type { ControlEvent, ControlEventHeader } from '../../schemas/control-plane/control-plane-events.ts';
import type { ChannelConfig, GatewayConfig } from '../config/config-schema.ts';
import { channelUpsertFields } from './channel-event-mapping.ts';
import { priceSetFields } from './price-event-mapping.ts';
import type { ControlPlaneView } from './control-plane-view.ts';
import { keyUpdatedBody } from './commands-keys.ts';
import { digestApiKey } from './key-material.ts';

/** The actor of events made from the config file. */
export const CONFIG_FILE_ACTOR = 'config-file';

/** The secrets needed to turn the file into events. */
export interface ConfigFileSecrets {
  /** 32-byte AES-256-GCM key for channel credentials. */
  readonly masterKey: Buffer;
  /** HMAC secret for key digests. */
  readonly hmacSecret: Buffer;
}

/** The keyId given to a config-file key with HMAC digest `digest` (`key_` + first 12 hex chars). */
export function configKeyId(digest: string): string {
  return `key_${digest.slice(0, 12)}`;
}

/** The priceId given to a config-file price entry: `config:<model>:<channel|*>:<effectiveFrom ISO>`. */
export function configPriceId(entry: GatewayConfig['prices'][number]): string {
  return `config:${entry.model}:${entry.channel ?? '*'}:${new Date(Date.parse(entry.effectiveFrom)).toISOString()}`;
}

/**
 * The events that bring `view` up to date with the file's keys, channels and prices (see the
 * module doc), in file order: keys, then channels, then prices. `now` (ms) is every event's
 * occurredAt. Never contains a plain key or credential.
 * @throws Error when `secrets.masterKey` is not 32 bytes
 */
export function eventsForConfigFile(
  config: Pick<GatewayConfig, 'keys' | 'channels' | 'prices'>,
  view: ControlPlaneView,
  secrets: ConfigFileSecrets,
  now: number,
): ControlEvent[] {
  const header = (): ControlEventHeader => ({ eventId: randomUUID(), occurredAt: now, actor: CONFIG_FILE_ACTOR });
  return [
    ...keyEvents(config.keys, view, secrets.hmacSecret, header),
    ...channelEvents(config.channels, view, secrets.masterKey, header),
    ...priceEvents(config.prices, view, header),
  ];
}

function keyEvents(
  keys: GatewayConfig['keys'],
  view: ControlPlaneView,
  hmacSecret: Buffer,
  header: () => ControlEventHeader,
): ControlEvent[] {
  const events: ControlEvent[] = [];
  const seen = new Set<string>();
  for (const { name, key } of keys) {
    const digest = digestApiKey(hmacSecret, key);
    if (seen.has(digest)) continue;
    seen.add(digest);
    const existing = view.keyByDigest(digest) ?? view.key(configKeyId(digest));
    if (!existing) {
      const publicId = digest.slice(0, 12);
      events.push({
        type: 'KeyCreated',
        event: {
          ...header(),
          keyId: configKeyId(digest),
          publicId,
          digest,
          name,
          userId: null,
          rpm: null,
          tpm: null,
          quotaNanoUsd: null,
          expiresAt: null,
          models: null,
        },
      });
    } else if (existing.name !== name) {
      events.push({ type: 'KeyUpdated', event: { ...header(), ...keyUpdatedBody(existing), name } });
    }
  }
  return events;
}

function channelEvents(
  channels: ReadonlyArray<ChannelConfig>,
  view: ControlPlaneView,
  masterKey: Buffer,
  header: () => ControlEventHeader,
): ControlEvent[] {
  const projected = new Map(view.channels().map((record) => [record.config.id, record]));
  const events: ControlEvent[] = [];
  for (const channel of channels) {
    const existing = projected.get(channel.id);
    if (existing && sameChannelConfig(existing.config, channel)) continue;
    const limits = { rpm: existing?.rpm ?? null, tpm: existing?.tpm ?? null };
    events.push({
      type: 'ChannelUpserted',
      event: { ...header(), ...channelUpsertFields(channel, masterKey, limits) },
    });
  }
  return events;
}

/** Whether two channel configs route identically (absent optional fields = null; key order, of modelMap too, ignored). */
export function sameChannelConfig(a: ChannelConfig, b: ChannelConfig): boolean {
  return JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b));
}

/** `value` with the keys of every plain object sorted (arrays keep their order), for comparison as JSON. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([, entry]) => entry !== undefined && entry !== null);
  return Object.fromEntries(
    entries.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([name, entry]) => [name, sortedKeys(entry)]),
  );
}

function priceEvents(
  prices: GatewayConfig['prices'],
  view: ControlPlaneView,
  header: () => ControlEventHeader,
): ControlEvent[] {
  const projected = new Map(view.prices().map((price) => [price.priceId, price]));
  const events: ControlEvent[] = [];
  const seen = new Set<string>();
  for (const entry of prices) {
    const priceId = configPriceId(entry);
    if (seen.has(priceId)) continue;
    seen.add(priceId);
    const existing = projected.get(priceId);
    const fields = priceSetFields(entry, priceId);
    if (
      existing &&
      existing.inputPerMTok === fields.inputPerMTok &&
      existing.outputPerMTok === fields.outputPerMTok &&
      (existing.cacheReadPerMTok ?? null) === fields.cacheReadPerMTok &&
      (existing.cacheWritePerMTok ?? null) === fields.cacheWritePerMTok &&
      (existing.cacheWrite1hPerMTok ?? null) === (fields.cacheWrite1hPerMTok ?? null)
    ) {
      continue;
    }
    events.push({ type: 'PriceSet', event: { ...header(), ...fields } });
  }
  return events;
}

/**
 * Decodes any record of Tollgate's topics for printing: traffic events (Avro single-object
 * encoding, schemas/events/traffic-event-codec.ts) and control events (the config topic,
 * schemas/control-plane/control-event-codec.ts), each written with any registered schema version.
 * Secrets never leave: the fields the console's audit history leaves out (a key's `digest`, a
 * channel's `apiKeyCiphertext` and its pooled credentials', a user's `passwordHash`) are dropped here too.
 */
import { SECRET_FIELDS, withoutSecretFields } from '../../schemas/control-plane/audit-history.ts';
import { CONFIG_TOPIC } from '../../schemas/topics.ts';
import { decodeControlEvent, isControlEventValue } from '../../schemas/control-plane/control-event-codec.ts';
import { decodeTrafficEvent } from '../../schemas/events/traffic-event-codec.ts';

/** What a record holds. */
export type DecodedLogRecord =
  /** An event: its schema name and its fields (secrets removed). */
  | { readonly kind: 'event'; readonly type: string; readonly event: Readonly<Record<string, unknown>> }
  /** A config-topic sync marker (empty value): not an event. */
  | { readonly kind: 'marker' }
  /** Not decodable with any registered schema; `reason` is the codec's message. */
  | { readonly kind: 'undecodable'; readonly reason: string };

/**
 * Decodes the value of a record of `topic` (the unprefixed name). The config topic holds control
 * events and empty sync markers; other topics hold traffic events, and a topic that is neither
 * (a full name given by hand) is tried as traffic, then as control. Never throws.
 */
export function decodeLogRecord(topic: string, value: Buffer): DecodedLogRecord {
  if (topic === CONFIG_TOPIC) {
    if (!isControlEventValue(value)) return { kind: 'marker' };
    return attempt(() => decodeControlEvent(value));
  }
  const traffic = attempt(() => decodeTrafficEvent(value));
  if (traffic.kind === 'event' || value.length === 0) return traffic;
  const control = attempt(() => decodeControlEvent(value));
  return control.kind === 'event' ? control : traffic;
}

function attempt(decode: () => { readonly type: string; readonly event: object }): DecodedLogRecord {
  try {
    const { type, event } = decode();
    return { kind: 'event', type, event: withoutSecrets(event) };
  } catch (error) {
    return { kind: 'undecodable', reason: (error as Error).message };
  }
}

function withoutSecrets(event: object): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(event))
    if (!SECRET_FIELDS.has(name)) kept[name] = withoutSecretFields(value);
  return kept;
}

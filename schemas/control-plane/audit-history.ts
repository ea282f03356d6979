/**
 * The audit history of the control plane: every applied control event as an AuditEntry (who
 * changed what, when), oldest first, without secrets. Kept by the projection in memory, newest
 * 100 000 entries at most; the config topic itself keeps everything.
 */
import type { ControlEvent } from './control-plane-events.ts';
import { controlEventKey } from './control-event-codec.ts';
import type { AuditEntry } from './control-plane-records.ts';

/** Entries kept by default (the newest). */
export const MAX_AUDIT_ENTRIES = 100_000;

/** Control-event fields that hold a secret or a secret's digest: never copied into `changes`, never printed. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'digest',
  'apiKeyCiphertext',
  'passwordHash',
  'secretCiphertext',
]);

/**
 * The audit entry of one event: header fields on their own, the entity id (controlEventKey), and
 * `changes` = every other field except SECRET_FIELDS (also inside lists of records: a key pool's
 * `credentials` keep their ids and limits, never their ciphertexts); a ChannelUpserted gets `hasApiKey` =
 * `hasCredential` (whether its credential is non-empty, or does not decrypt) in place of its
 * ciphertext, an AlertWebhookSet `hasSecret` (whether its signing secret is non-empty) in place of its.
 */
export function auditEntryOf(source: ControlEvent, hasCredential: boolean): AuditEntry {
  const { eventId, occurredAt, actor, ...fields } = source.event;
  const changes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (!SECRET_FIELDS.has(name)) changes[name] = withoutSecretFields(value);
  }
  if (source.type === 'ChannelUpserted') changes.hasApiKey = hasCredential;
  if (source.type === 'AlertWebhookSet') changes.hasSecret = source.event.secretCiphertext !== '';
  return { eventId, occurredAt, actor, type: source.type, entityId: controlEventKey(source), changes };
}

/**
 * An event field's value with SECRET_FIELDS left out of the records of a list (a key pool's
 * `credentials`; one level: the event schemas nest secrets no deeper); any other value as it is.
 */
export function withoutSecretFields(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((entry: unknown) =>
    typeof entry === 'object' && entry !== null && !Array.isArray(entry)
      ? Object.fromEntries(Object.entries(entry).filter(([name]) => !SECRET_FIELDS.has(name)))
      : entry,
  );
}

/** A bounded, append-only list of audit entries (the newest `capacity` are kept). */
export class AuditHistory {
  private entries: AuditEntry[] = [];
  private snapshot: ReadonlyArray<AuditEntry> | undefined;

  /** @param capacity entries kept (default 100 000); older ones are dropped */
  constructor(private readonly capacity: number = MAX_AUDIT_ENTRIES) {}

  /** Appends one entry, dropping the oldest beyond the capacity (in batches, amortised O(1)). */
  record(entry: AuditEntry): void {
    this.entries.push(entry);
    this.snapshot = undefined;
    if (this.entries.length >= this.capacity + Math.max(1, Math.floor(this.capacity / 10)))
      this.entries = this.entries.slice(-this.capacity);
  }

  /** The newest `capacity` entries, oldest first (the same array until the next `record`). */
  list(): ReadonlyArray<AuditEntry> {
    return (this.snapshot ??=
      this.entries.length > this.capacity ? this.entries.slice(-this.capacity) : [...this.entries]);
  }
}

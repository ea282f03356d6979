/**
 * The config audit's pure projection: one audit entry of a control-plane event (who changed what,
 * when, secrets already removed) → one `config_audit` row
 * (schemas/analytics/migrations/010-config-audit.sql). The table is a ReplacingMergeTree ordered
 * by (toDate(occurred_at), event_type, entity_id, event_id), all fields of the event, so a
 * redelivered event projects to the same sorting key and replaces its own row.
 */

/**
 * One applied control-plane event as the audit shows it, as this projection reads it. Declared
 * here, structurally, so the projection depends on no control-plane module: the control plane's
 * own AuditEntry (same fields, `type` narrowed to its event names) is assignable to it.
 */
export interface AuditEntry {
  readonly eventId: string;
  /** ms since epoch */
  readonly occurredAt: number;
  /** `admin`, `cli`, `config-file`, `bootstrap` or a user id */
  readonly actor: string;
  /** The control-plane event type, e.g. `PriceSet`. */
  readonly type: string;
  /** The user, key, channel or price id the event is about. */
  readonly entityId: string;
  /** The event's fields without its header and without secrets (removed by whoever builds the entry). */
  readonly changes: Readonly<Record<string, unknown>>;
}

/** A `config_audit` row as inserted (JSONEachRow). Times: seconds (occurred_at) and ms. */
export type ConfigAuditRow = {
  event_id: string;
  /** seconds since epoch (DateTime, UTC) */
  occurred_at: number;
  /** ms since epoch */
  occurred_at_ms: number;
  actor: string;
  event_type: string;
  entity_id: string;
  /** `changes` as a JSON object; bigint values as decimal strings */
  changes: string;
};

/**
 * Projects one audit entry. `changes` is rendered with JSON.stringify, except that bigint values
 * (at any depth) become decimal strings (`12345678901234567890n` → `"12345678901234567890"`),
 * which JSON cannot hold as numbers without losing digits; undefined values are left out, as in
 * JSON. Secrets are not filtered here: the entry must come without them.
 * @throws TypeError when `changes` holds a cycle (JSON.stringify's error).
 */
export function projectConfigAuditRow(entry: AuditEntry): ConfigAuditRow {
  return {
    event_id: entry.eventId,
    occurred_at: Math.floor(entry.occurredAt / 1000),
    occurred_at_ms: entry.occurredAt,
    actor: entry.actor,
    event_type: entry.type,
    entity_id: entry.entityId,
    changes: JSON.stringify(entry.changes, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
  };
}

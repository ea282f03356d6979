/**
 * The config audit's pure projection: one audit entry of a control-plane event (who changed what,
 * when, secrets already removed) → one `config_audit` row
 * (schemas/analytics/migrations/010-config-audit.sql). The table is a ReplacingMergeTree ordered
 * by (toDate(occurred_at), event_type, entity_id, event_id), all fields of the event, so a
 * redelivered event projects to the same sorting key and replaces its own row.
 */

import type { ConfigAuditRow } from '../../schemas/analytics/tables.ts';
import type { AuditEntry } from '../../schemas/control-plane/control-plane-records.ts';

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
    changes: JSON.stringify(entry.changes, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    ),
  };
}

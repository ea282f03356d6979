/**
 * Which decoded events `tollgate events` prints: every given condition must hold (AND).
 * Times compare the event's `occurredAt` (ms since epoch): `fromMs` inclusive, `toMs` exclusive.
 * An event without the field a condition looks at (a control event has no `requestId`; only key
 * events carry a `keyId`) does not match that condition.
 */
import { CURRENT_CONTROL_SCHEMAS } from '../../schemas/control-plane/control-avro-schemas.ts';
import { CURRENT_TRAFFIC_SCHEMAS } from '../../schemas/events/avro-schemas.ts';

/** Conditions on events; absent ones always hold. */
export interface EventFilter {
  /** occurredAt >= fromMs (ms since epoch). */
  readonly fromMs?: number;
  /** occurredAt < toMs (ms since epoch). */
  readonly toMs?: number;
  readonly requestId?: string;
  readonly keyId?: string;
  /** Schema names (`RequestCompleted`, `KeyCreated`, …); empty or absent = any. */
  readonly types?: ReadonlySet<string>;
}

/** Every event type a Tollgate topic can hold: traffic, then control-plane events. */
export const EVENT_TYPES: ReadonlyArray<string> = [
  ...Object.keys(CURRENT_TRAFFIC_SCHEMAS),
  ...Object.keys(CURRENT_CONTROL_SCHEMAS),
];

/** Whether an event of `type` with fields `event` passes `filter`. */
export function matchesEventFilter(
  filter: EventFilter,
  type: string,
  event: Readonly<Record<string, unknown>>,
): boolean {
  if (filter.types && filter.types.size > 0 && !filter.types.has(type)) return false;
  if (filter.requestId !== undefined && event.requestId !== filter.requestId) return false;
  if (filter.keyId !== undefined && event.keyId !== filter.keyId) return false;
  if (filter.fromMs === undefined && filter.toMs === undefined) return true;
  const at = typeof event.occurredAt === 'bigint' ? Number(event.occurredAt) : event.occurredAt;
  if (typeof at !== 'number') return false;
  return (filter.fromMs === undefined || at >= filter.fromMs) && (filter.toMs === undefined || at < filter.toMs);
}

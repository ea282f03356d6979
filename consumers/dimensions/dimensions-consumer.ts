/**
 * The dimensions consumer: the config topic (`tollgate.config`) → the `users`, `keys` and
 * `channels` tables (migration 015) and `teams` and `team_members` (019), one row per entity, so
 * analysts join spend to names, owners, teams, limits and status in plain SQL. Group `tollgate.dimensions`, offsets committed after
 * the insert. Per batch it loads the current rows of the ids the batch is about, folds the
 * events in log order (fold-dimension-rows.ts; an event at or below a row's version is skipped),
 * and inserts the rows that changed, each with the offset of its last event as `version`.
 * Idempotent: a redelivered or replayed batch finds its events folded and writes nothing new.
 * Sync markers (empty values) and undecodable records are skipped.
 */
import { DEFAULT_CONSUMER_BATCHING } from '../consumer-batching.ts';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { decodeControlEvent, isControlEventValue } from '../../schemas/control-plane/control-event-codec.ts';
import { type ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import { CONFIG_TOPIC } from '../../schemas/topics.ts';
import type { DeliveredRecord, Subscription } from '../../schemas/event-log/event-log.ts';
import type { ConfigAuditConsumerOptions } from '../config-audit/config-audit-consumer.ts';
import type { ConsumerLog } from '../run-consumers.ts';
import { dimensionRow, loadDimensionStates } from './dimension-store.ts';
import { DIMENSION_TABLES, dimensionOf, foldDimensionEvent, type DimensionTable } from './fold-dimension-rows.ts';

/** Options of the dimensions subscription: those of the config-audit consumer, the other reader of the config topic. */
export type DimensionsConsumerOptions = ConfigAuditConsumerOptions;

/** Subscribes the dimensions consumer; resolves once it runs. A failed query or insert rejects the batch (redelivered). */
export async function startDimensionsConsumer(options: DimensionsConsumerOptions): Promise<Subscription> {
  return options.eventLog.subscribe({
    groupId: `${options.groupPrefix ?? 'tollgate.'}dimensions`,
    topics: [CONFIG_TOPIC],
    maxBatchSize: options.maxBatchSize ?? DEFAULT_CONSUMER_BATCHING.maxBatchSize,
    ...(options.maxBatchWaitMs ? { maxBatchWaitMs: options.maxBatchWaitMs } : {}),
    handleBatch: async (records) => {
      await writeDimensions(options.analytics, decodeBatch(records, options.log));
      options.onBatchDone?.('dimensions', records);
    },
  });
}

/** A decoded control event and its config-topic offset. */
export interface PositionedEvent {
  readonly event: ControlEvent;
  readonly offset: number;
}

/** The batch's control events about a dimension, in log order; sync markers and undecodable records left out (logged). */
function decodeBatch(records: ReadonlyArray<DeliveredRecord>, log: ConsumerLog): PositionedEvent[] {
  const events: PositionedEvent[] = [];
  for (const record of records) {
    if (!isControlEventValue(record.value)) continue;
    try {
      const event = decodeControlEvent(record.value);
      if (dimensionOf(event)) events.push({ event, offset: Number(record.offset) });
    } catch (error) {
      log('error', 'dimensions: undecodable config event skipped', {
        topic: record.topic,
        offset: record.offset,
        reason: (error as Error).message,
      });
    }
  }
  return events;
}

/**
 * Folds `events` into the stored rows of their ids and inserts the changed rows, one insert per table.
 * @throws the store's Error when a query or an insert fails
 */
export async function writeDimensions(store: AnalyticsStore, events: ReadonlyArray<PositionedEvent>): Promise<void> {
  if (events.length === 0) return;
  const ids = emptyIdSets();
  for (const { event } of events) {
    const target = dimensionOf(event);
    if (target) ids[target.table].add(target.id);
  }
  const states = await loadDimensionStates(store, ids);
  const changed = emptyIdSets();
  for (const { event, offset } of events) {
    const table = foldDimensionEvent(states, event, offset);
    if (table) changed[table].add(dimensionOf(event)!.id);
  }
  for (const table of DIMENSION_TABLES) {
    const rows = [...changed[table]].map((id) => dimensionRow(table, states[table].get(id)!));
    if (rows.length > 0) await store.insert(table, rows);
  }
}

/** An empty set of ids per dimension table. */
function emptyIdSets(): Record<DimensionTable, Set<string>> {
  return { users: new Set(), keys: new Set(), channels: new Set(), teams: new Set(), team_members: new Set() };
}

/**
 * The config-audit consumer: every control event of the config topic (`tollgate.config`) → the
 * `config_audit` table (who changed what, when), through the same audit rule the console uses
 * (schemas/control-plane/audit-history.ts): no key digests, credentials or password hashes.
 * Group `tollgate.config-audit`, offsets committed after the insert; idempotent: the table is a
 * ReplacingMergeTree keyed by event id. Sync markers (empty values) and undecodable records are skipped.
 */
import { DEFAULT_CONSUMER_BATCHING } from '../consumer-batching.ts';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES } from '../../schemas/analytics/tables.ts';
import { auditEntryOf } from '../../schemas/control-plane/audit-history.ts';
import { decodeControlEvent, isControlEventValue } from '../../schemas/control-plane/control-event-codec.ts';
import { CONFIG_TOPIC } from '../../schemas/topics.ts';
import type { DeliveredRecord, EventLog, Subscription } from '../../schemas/event-log/event-log.ts';
import type { ConsumerLog } from '../run-consumers.ts';
import { projectConfigAuditRow } from './project-config-audit-row.ts';

/** Options of the config-audit subscription. */
export interface ConfigAuditConsumerOptions {
  readonly eventLog: EventLog;
  readonly analytics: AnalyticsStore;
  readonly log: ConsumerLog;
  /** Consumer group prefix (default `tollgate.`). */
  readonly groupPrefix?: string;
  /** Max records per batch (default DEFAULT_CONSUMER_BATCHING.maxBatchSize, 10 000). */
  readonly maxBatchSize?: number;
  /** Longest a partial batch is held for more events, ms (default 0). */
  readonly maxBatchWaitMs?: number;
  /** Told after each handled batch, before its offsets are committed. */
  readonly onBatchDone?: (consumer: string, records: ReadonlyArray<DeliveredRecord>) => void;
}

/** Subscribes the config-audit consumer; resolves once it runs. */
export async function startConfigAuditConsumer(options: ConfigAuditConsumerOptions): Promise<Subscription> {
  return options.eventLog.subscribe({
    groupId: `${options.groupPrefix ?? 'tollgate.'}config-audit`,
    topics: [CONFIG_TOPIC],
    maxBatchSize: options.maxBatchSize ?? DEFAULT_CONSUMER_BATCHING.maxBatchSize,
    ...(options.maxBatchWaitMs ? { maxBatchWaitMs: options.maxBatchWaitMs } : {}),
    handleBatch: async (records) => {
      const rows = [];
      for (const record of records) {
        if (!isControlEventValue(record.value)) continue;
        try {
          const event = decodeControlEvent(record.value);
          rows.push(
            projectConfigAuditRow(
              auditEntryOf(event, event.type === 'ChannelUpserted' && event.event.apiKeyCiphertext !== ''),
            ),
          );
        } catch (error) {
          options.log('error', 'config-audit: undecodable config event skipped', {
            topic: record.topic,
            offset: record.offset,
            reason: (error as Error).message,
          });
        }
      }
      if (rows.length > 0) await options.analytics.insert(TABLES.configAudit, rows);
      options.onBatchDone?.('config-audit', records);
    },
  });
}

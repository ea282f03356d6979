/**
 * The consumers' Prometheus metrics (prom-client, https://github.com/siimon/prom-client), named
 * after https://prometheus.io/docs/practices/naming/: the cost billed (from the billing consumer,
 * once per line, where a price applied) and each consumer group's lag per topic and partition, read
 * from the event log at scrape time (end offset − committed offset: records on Kafka, bytes on the
 * file log). In `npm run consumers` the registry also holds the process metrics and is served over
 * HTTP (serve-metrics-http.ts); on the all-in-one server's worker thread the gateway asks for a
 * snapshot and merges it into its own /metrics.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { collectProcessMetrics } from '../../schemas/metrics/collect-process-metrics.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import { measureConsumerLag, type PartitionLag } from '../../schemas/event-log/measure-consumer-lag.ts';
import type { ConsumerGroupTopics } from '../start-consumer-pipeline.ts';

/** Options of ConsumerMetrics. */
export interface ConsumerMetricsOptions {
  /** Also collect the process metrics (schemas/metrics/collect-process-metrics.ts; off on a worker thread: the gateway's registry has them). */
  readonly processMetrics?: boolean;
  /** Told when reading the lag fails (the gauge keeps its last values). */
  readonly onLagError?: (error: Error) => void;
}

/** One nano-USD in USD. */
const USD_PER_NANO_USD = 1e-9;

/** The consumers' registry. */
export class ConsumerMetrics {
  readonly registry = new Registry();
  private readonly cost: Counter<'model'>;
  private readonly costByModel = new Map<string, Counter.Internal>();
  private watched: { readonly eventLog: EventLog; readonly groups: ReadonlyArray<ConsumerGroupTopics> } | undefined;

  constructor(options: ConsumerMetricsOptions = {}) {
    const registers = [this.registry];
    this.cost = new Counter({
      name: 'tollgate_cost_usd_total',
      help: 'Cost of the usage billed, USD, by the priced upstream model (unpriced usage is not counted).',
      labelNames: ['model'],
      registers,
    });
    const readLag = () => this.readLag();
    new Gauge({
      name: 'tollgate_consumer_lag_offsets',
      help: 'End offset minus the consumer group committed offset, per topic and partition (Kafka: records; file log: bytes).',
      labelNames: ['group', 'topic', 'partition'],
      registers,
      async collect() {
        const lags = await readLag().catch((error: unknown) => void options.onLagError?.(error as Error));
        if (!lags) return;
        this.reset();
        for (const { groupId, partitions } of lags)
          for (const { topic, partition, lag } of partitions) this.labels(groupId, topic, String(partition)).set(lag);
      },
    });
    if (options.processMetrics) collectProcessMetrics(this.registry);
  }

  /** The billing consumer's CostListener: adds one line's cost (nano-USD) to `model`'s counter. */
  readonly recordCost = (model: string, costNanoUsd: bigint): void => {
    let child = this.costByModel.get(model);
    if (!child) this.costByModel.set(model, (child = this.cost.labels(model)));
    child.inc(Number(costNanoUsd) * USD_PER_NANO_USD);
  };

  /** Reads the lag of `groups` on `eventLog` at each scrape (RunningConsumerPipeline.groups). */
  watchConsumerGroups(eventLog: EventLog, groups: ReadonlyArray<ConsumerGroupTopics>): void {
    this.watched = { eventLog, groups };
  }

  /** Prometheus text of every family. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** Every family as `registry.getMetricsAsJSON()` (for a registry that merges it). */
  snapshot(): Promise<object[]> {
    return this.registry.getMetricsAsJSON();
  }

  private async readLag(): Promise<Array<{ groupId: string; partitions: PartitionLag[] }>> {
    const watched = this.watched;
    if (!watched) return [];
    return Promise.all(
      watched.groups.map(async ({ groupId, topics }) => ({
        groupId,
        partitions: await measureConsumerLag(watched.eventLog, groupId, topics),
      })),
    );
  }
}

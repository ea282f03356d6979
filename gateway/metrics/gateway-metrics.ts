/**
 * The gateway's Prometheus metrics (prom-client, https://github.com/siimon/prom-client), named
 * after https://prometheus.io/docs/practices/naming/ (`tollgate_` prefix, base units, `_total`
 * counters). Requests, latency, time to first token, tokens, upstream errors, failovers and the
 * channel-limit refusals are recorded from the outcome sink, once per request; admission refusals
 * and live streams by the client route (exchange/serve-generation.ts). The event log's publisher and the
 * control-plane lag are read when scraped.
 *
 * Hot path: each (format, model, channel, status) combination gets one bundle of counter cells and
 * histogram children the first time it is seen, found again with one Map lookup on a joined key;
 * counters and gauges are plain additions (metric-cells.ts), only the two histograms go through
 * prom-client per request. Label values are bounded:
 * formats, configured models and channels (a model no channel serves counts as `none`), error kinds
 * and HTTP statuses; never a user or free text. The prompt-cache families alone carry a key id and
 * a team id (never a key itself): both are created by admins, and past MAX_CACHE_KEY_LABELS
 * distinct key ids the further ones count under the key `other`.
 */
import { AggregatorRegistry, Registry, type Histogram } from 'prom-client';
import { collectProcessMetrics } from '../../schemas/metrics/collect-process-metrics.ts';
import type { ClientFormat } from '../canonical/formats.ts';
import { cacheWrite1hTokens } from '../canonical/usage.ts';
import { cacheSavingsNanoUsd, type Price } from '../../schemas/billing/price-book.ts';
import type { ExchangeOutcome } from '../exchange/exchange-outcome.ts';
import type { MetricCell } from './metric-cells.ts';
import { createOutcomeFamilies, type OutcomeFamilies } from './outcome-families.ts';
import { registerCredentialFamilies, type ChannelCredentialStates } from './credential-families.ts';
import type { AdmissionLimit } from '../policy/admit-request.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import { measureConsumerLag } from '../../schemas/event-log/measure-consumer-lag.ts';

/** Label value of a request that no channel served (unknown model, refused or cancelled before routing). */
export const NO_CHANNEL = 'none';

/**
 * Distinct key ids the prompt-cache families label before counting further keys under `other`
 * (each key id adds five series per channel and model it uses).
 */
export const MAX_CACHE_KEY_LABELS = 1000;

/** Key label of the keys past MAX_CACHE_KEY_LABELS. */
export const OTHER_KEYS = 'other';

/** Where the prompt-cache savings find prices: the gateway's view of the price book (policy/request-pricer.ts). */
export interface CachePriceSource {
  /** The price billing would apply to `upstreamModel` on `channelId` at `atMs` (ms), or undefined when none. */
  priceOf(upstreamModel: string, channelId: string, atMs: number): Price | undefined;
}

/** Metrics of another registry (a worker thread's `registry.getMetricsAsJSON()`), merged into each scrape. */
export type MetricsSource = () => Promise<object[]>;

/** The config follower whose distance to the config topic's end is the control-plane lag. */
export interface FollowedConfigTopic {
  readonly eventLog: EventLog;
  /** The follower's consumer group (ConfigFollower.groupId). */
  readonly groupId: string;
  readonly topic: string;
}

/** Options of GatewayMetrics. */
export interface GatewayMetricsOptions {
  /**
   * Also collect the process metrics (prom-client's defaults: CPU, memory, event loop, GC;
   * schemas/metrics/collect-process-metrics.ts). Default false: the composition root turns it on once per process.
   */
  readonly processMetrics?: boolean;
}

/** The cells and histogram children one (format, model, channel, status) combination records into. */
interface OutcomeSeries {
  readonly requests: MetricCell;
  readonly duration: Histogram.Internal<'format' | 'model'>;
  readonly timeToFirstToken: Histogram.Internal<'format' | 'model'>;
  readonly inputTokens: MetricCell;
  readonly outputTokens: MetricCell;
  readonly cachedTokens: MetricCell;
  readonly reasoningTokens: MetricCell;
}

/** The prompt-cache cells one (channel, model, key, team) combination adds to. */
interface CacheSeries {
  readonly inputTokens: MetricCell;
  readonly readTokens: MetricCell;
  readonly write5mTokens: MetricCell;
  readonly write1hTokens: MetricCell;
  /** USD */
  readonly savings: MetricCell;
}

/** The counters one failed attempt (channel, error kind) adds to. */
interface FailureSeries {
  readonly failovers: MetricCell;
  readonly upstreamErrors: MetricCell;
}

/** The gateway's registry and what records into it; one per app. */
export class GatewayMetrics {
  /** Where every family lives; `render` serializes it. */
  readonly registry = new Registry();
  private readonly families: OutcomeFamilies;
  private readonly outcomeSeries = new Map<string, OutcomeSeries>();
  private readonly failureSeries = new Map<string, FailureSeries>();
  private readonly refusalSeries = new Map<string, MetricCell>();
  private readonly liveStreamSeries = new Map<ClientFormat, MetricCell>();
  private readonly routingSeries = new Map<string, MetricCell>();
  private readonly cacheSeries = new Map<string, CacheSeries>();
  private readonly cacheKeyLabels = new Set<string>();
  private cachePrices: CachePriceSource | undefined;
  private readonly sources: MetricsSource[] = [];

  constructor(options: GatewayMetricsOptions = {}) {
    this.families = createOutcomeFamilies(this.registry);
    if (options.processMetrics) collectProcessMetrics(this.registry);
  }

  /** Records one finished request (the outcome sink calls it once per accepted request). Never throws. */
  recordOutcome(outcome: ExchangeOutcome): void {
    const series = this.seriesOf(outcome);
    series.requests.value += 1;
    series.duration.observe(outcome.latencyMs / 1000);
    if (outcome.stream && outcome.ttfbMs !== undefined && outcome.status === 'completed')
      series.timeToFirstToken.observe(outcome.ttfbMs / 1000);
    const usage = outcome.usage;
    if (usage) {
      series.inputTokens.value += usage.input.total;
      series.outputTokens.value += usage.output.total;
      series.cachedTokens.value += usage.input.cacheRead;
      series.reasoningTokens.value += usage.output.reasoning;
      if (outcome.channelId !== undefined) this.recordCacheUse(outcome, outcome.channelId);
    }
    // Every failed attempt is listed, the last one too (without a next channel: no failover then).
    for (const failed of outcome.failovers) {
      const failure = this.failureOf(failed.channelId, failed.errorKind);
      failure.upstreamErrors.value += 1;
      if (failed.nextChannelId !== undefined) failure.failovers.value += 1;
    }
    if (outcome.errorKind === 'rate-limited') this.recordRefusal(outcome.clientFormat, 'channel');
    if (outcome.status === 'completed')
      this.routingCell('affinity', outcome.model, outcome.affinity ?? 'off').value += 1;
    if (outcome.modelChain) this.routingCell('modelFallbacks', outcome.model, outcome.answeredModel ?? '').value += 1;
  }

  /**
   * The cell of a routing family for (requested model, affinity result or answering model), made
   * once per label pair (MetricCells adds a series per `cell` call). Both values are configured
   * model names or a fixed result, so the series stay bounded.
   */
  private routingCell(family: 'affinity' | 'modelFallbacks', model: string, value: string): MetricCell {
    const key = `${family}|${model}|${value}`;
    let cell = this.routingSeries.get(key);
    if (!cell) {
      cell =
        family === 'affinity'
          ? this.families.affinity.cell({ model, result: value })
          : this.families.modelFallbacks.cell({ model, answered_model: value });
      this.routingSeries.set(key, cell);
    }
    return cell;
  }

  /**
   * Records a refusal: 429 of a limit or quota, 503 of a closed store-outage policy, 429 when every
   * channel is at its limit (`channel`), or 503 of a draining node (`shutting_down`).
   */
  recordRefusal(format: ClientFormat, limit: AdmissionLimit | 'channel' | 'shutting_down'): void {
    const key = `${format}|${limit}`;
    let child = this.refusalSeries.get(key);
    if (!child) this.refusalSeries.set(key, (child = this.families.refusals.cell({ format, limit })));
    child.value += 1;
  }

  /** A streamed request was admitted; pair with streamClosed. */
  streamOpened(format: ClientFormat): void {
    this.liveStreamsOf(format).value += 1;
  }

  /** A streamed request finished, however it ended. */
  streamClosed(format: ClientFormat): void {
    this.liveStreamsOf(format).value -= 1;
  }

  /**
   * Prices the prompt-cache savings with `prices` from now on (the composition root passes the
   * request pricer); without it the savings family stays at 0 while the token families count.
   */
  priceCacheReads(prices: CachePriceSource): void {
    this.cachePrices = prices;
  }

  /** Reads the publisher's queue, spool and connection at each scrape (EventLog.status()). */
  watchEventLog(eventLog: EventLog): void {
    this.families.watchPublisher(() => eventLog.status());
  }

  /** Reads the config follower's lag at each scrape (records on Kafka, bytes on the file log); a failed read leaves the last value. */
  watchConfigFollower(followed: FollowedConfigTopic): void {
    this.families.watchControlPlaneLag(async () => {
      const partitions = await measureConsumerLag(followed.eventLog, followed.groupId, [followed.topic]);
      return partitions.reduce((sum, partition) => sum + partition.lag, 0);
    });
  }

  /**
   * Reads the channels' pooled credentials at each scrape (credential-families.ts: requests,
   * rotations, cooldown per channel and credential id). Call once per registry.
   */
  watchCredentialPool(read: () => ReadonlyArray<ChannelCredentialStates>): void {
    registerCredentialFamilies(this.registry, read);
  }

  /** Adds another registry's metrics (the consumers' worker thread) to every scrape. */
  addSource(source: MetricsSource): void {
    this.sources.push(source);
  }

  /** The Prometheus text exposition format's content type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * Every family as Prometheus text, with the added sources merged in (a source that fails is left
   * out). The sources are combined with prom-client's AggregatorRegistry.aggregate and merged with
   * this registry as it is (aggregating it too would drop its `omit` metrics, such as the start time);
   * a source's families must therefore not repeat this registry's.
   */
  async render(): Promise<string> {
    if (this.sources.length === 0) return this.registry.metrics();
    const snapshots = await Promise.all(this.sources.map((source) => source().catch(() => [])));
    return Registry.merge([this.registry, AggregatorRegistry.aggregate(snapshots)]).metrics();
  }

  private seriesOf(outcome: ExchangeOutcome): OutcomeSeries {
    const channel = outcome.channelId ?? NO_CHANNEL;
    // Only a model some channel served is a configured one: anything else the client typed is `none`.
    const model = outcome.channelId === undefined ? NO_CHANNEL : outcome.model;
    const key = `${outcome.clientFormat}|${model}|${channel}|${outcome.httpStatus}`;
    let series = this.outcomeSeries.get(key);
    if (!series)
      this.outcomeSeries.set(
        key,
        (series = this.newOutcomeSeries(outcome.clientFormat, model, channel, String(outcome.httpStatus))),
      );
    return series;
  }

  private newOutcomeSeries(format: ClientFormat, model: string, channel: string, status: string): OutcomeSeries {
    const { requests, duration, timeToFirstToken, tokens } = this.families;
    return {
      requests: requests.cell({ format, model, channel, status }),
      duration: duration.labels(format, model),
      timeToFirstToken: timeToFirstToken.labels(format, model),
      inputTokens: tokens.cell({ model, channel, type: 'input' }),
      outputTokens: tokens.cell({ model, channel, type: 'output' }),
      cachedTokens: tokens.cell({ model, channel, type: 'cached' }),
      reasoningTokens: tokens.cell({ model, channel, type: 'reasoning' }),
    };
  }

  /**
   * Adds a served request's input, cache-read and cache-write tokens (5-minute and 1-hour) and its
   * savings in USD, priced at the outcome's time as billing prices its UsageRecorded (nano-USD
   * rounded half up, then USD), to its (channel, model, key, team) series.
   */
  private recordCacheUse(outcome: ExchangeOutcome, channel: string): void {
    const usage = outcome.usage;
    if (!usage) return;
    const series = this.cacheSeriesOf(channel, outcome.model, outcome.keyId, outcome.attribution?.teamId ?? '');
    const written1h = cacheWrite1hTokens(usage);
    series.inputTokens.value += usage.input.total;
    series.readTokens.value += usage.input.cacheRead;
    series.write5mTokens.value += usage.input.cacheWrite - written1h;
    series.write1hTokens.value += written1h;
    if (usage.input.cacheRead > 0 && this.cachePrices) {
      const price = this.cachePrices.priceOf(outcome.upstreamModel ?? outcome.model, channel, Date.now());
      if (price)
        series.savings.value += Number(cacheSavingsNanoUsd({ cachedInputTokens: usage.input.cacheRead }, price)) / 1e9;
    }
  }

  private cacheSeriesOf(channel: string, model: string, keyId: string, team: string): CacheSeries {
    let key = keyId;
    if (!this.cacheKeyLabels.has(key)) {
      if (this.cacheKeyLabels.size < MAX_CACHE_KEY_LABELS) this.cacheKeyLabels.add(key);
      else key = OTHER_KEYS;
    }
    const id = `${channel}|${model}|${key}|${team}`;
    let series = this.cacheSeries.get(id);
    if (!series) {
      const { cacheInputTokens, cacheReadTokens, cacheWriteTokens, cacheSavings } = this.families;
      const labels = { channel, model, key, team };
      series = {
        inputTokens: cacheInputTokens.cell(labels),
        readTokens: cacheReadTokens.cell(labels),
        write5mTokens: cacheWriteTokens.cell({ ...labels, ttl: '5m' }),
        write1hTokens: cacheWriteTokens.cell({ ...labels, ttl: '1h' }),
        savings: cacheSavings.cell(labels),
      };
      this.cacheSeries.set(id, series);
    }
    return series;
  }

  private failureOf(channel: string, kind: string): FailureSeries {
    const key = `${channel}|${kind}`;
    let series = this.failureSeries.get(key);
    if (!series)
      this.failureSeries.set(
        key,
        (series = {
          failovers: this.families.failovers.cell({ channel, kind }),
          upstreamErrors: this.families.upstreamErrors.cell({ kind, channel }),
        }),
      );
    return series;
  }

  private liveStreamsOf(format: ClientFormat): MetricCell {
    let cell = this.liveStreamSeries.get(format);
    if (!cell) this.liveStreamSeries.set(format, (cell = this.families.liveStreams.cell({ format })));
    return cell;
  }
}

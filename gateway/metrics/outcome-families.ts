/**
 * The metric families of the gateway (names and labels as documented in README, Operations →
 * Metrics), registered on one prom-client Registry. Gauges read at scrape time get their `collect`
 * here (https://github.com/siimon/prom-client#gauge, "collect").
 */
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { PublisherStatus } from '../../schemas/event-log/event-log.ts';
import { MetricCells } from './metric-cells.ts';

/** Request latency buckets, seconds: a cached answer to a long reasoning stream. */
const DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Time-to-first-token buckets, seconds. */
const FIRST_TOKEN_BUCKETS_SECONDS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** Labels of the prompt-cache families: the serving channel, the model asked for, the key id and the key's team ('' for none). */
export type CacheLabel = 'channel' | 'model' | 'key' | 'team';

/** The families and the two scrape-time hooks. */
export interface OutcomeFamilies {
  readonly requests: MetricCells<'format' | 'model' | 'channel' | 'status'>;
  readonly duration: Histogram<'format' | 'model'>;
  readonly timeToFirstToken: Histogram<'format' | 'model'>;
  readonly tokens: MetricCells<'model' | 'channel' | 'type'>;
  readonly upstreamErrors: MetricCells<'kind' | 'channel'>;
  readonly failovers: MetricCells<'channel' | 'kind'>;
  readonly refusals: MetricCells<'format' | 'limit'>;
  readonly liveStreams: MetricCells<'format'>;
  readonly affinity: MetricCells<'model' | 'result'>;
  readonly modelFallbacks: MetricCells<'model' | 'answered_model'>;
  /** Prompt-cache economics of served requests, by channel, model, key and team (see `cacheFamilies`). */
  readonly cacheInputTokens: MetricCells<CacheLabel>;
  readonly cacheReadTokens: MetricCells<CacheLabel>;
  readonly cacheWriteTokens: MetricCells<CacheLabel | 'ttl'>;
  readonly cacheSavings: MetricCells<CacheLabel>;
  /** The publisher gauges read `status` at each scrape. */
  watchPublisher(status: () => PublisherStatus): void;
  /** The control-plane lag gauge awaits `lag` at each scrape (a rejection keeps the last value). */
  watchControlPlaneLag(lag: () => Promise<number>): void;
}

/** Registers every gateway family on `registry`. */
export function createOutcomeFamilies(registry: Registry): OutcomeFamilies {
  const registers = [registry];
  let publisherStatus: (() => PublisherStatus) | undefined;
  let controlPlaneLag: (() => Promise<number>) | undefined;
  new Gauge({
    name: 'tollgate_event_log_pending_records',
    help: 'Records accepted by the event-log publisher and not yet acknowledged or spooled.',
    registers,
    collect() {
      if (publisherStatus) this.set(publisherStatus().pending);
    },
  });
  new Gauge({
    name: 'tollgate_event_log_spooled_records',
    help: 'Records waiting in the on-disk spool for the event log to come back.',
    registers,
    collect() {
      if (publisherStatus) this.set(publisherStatus().spooled);
    },
  });
  new Gauge({
    name: 'tollgate_event_log_connected',
    help: '1 while the event-log publisher is connected, else 0.',
    registers,
    collect() {
      if (publisherStatus) this.set(publisherStatus().connected ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tollgate_control_plane_lag_offsets',
    help: "How far this node's config follower is behind the config topic's end, in offsets (Kafka: records; file log: bytes).",
    registers,
    async collect() {
      if (controlPlaneLag) this.set(await controlPlaneLag().catch(() => NaN));
    },
  });
  return {
    requests: new MetricCells(registry, 'counter', {
      name: 'tollgate_requests_total',
      help: 'Accepted requests by client format, model, serving channel and HTTP status.',
      labelNames: ['format', 'model', 'channel', 'status'],
    }),
    duration: new Histogram({
      name: 'tollgate_request_duration_seconds',
      help: 'From request arrival to the last byte sent.',
      labelNames: ['format', 'model'],
      buckets: DURATION_BUCKETS_SECONDS,
      registers,
    }),
    timeToFirstToken: new Histogram({
      name: 'tollgate_time_to_first_token_seconds',
      help: 'Completed streams: from request arrival to the first byte of the answer sent.',
      labelNames: ['format', 'model'],
      buckets: FIRST_TOKEN_BUCKETS_SECONDS,
      registers,
    }),
    tokens: new MetricCells(registry, 'counter', {
      name: 'tollgate_tokens_total',
      help: 'Tokens by model, channel and type (input, output, cached = input read from cache, reasoning = part of output).',
      labelNames: ['model', 'channel', 'type'],
    }),
    upstreamErrors: new MetricCells(registry, 'counter', {
      name: 'tollgate_upstream_errors_total',
      help: 'Failed upstream attempts by error kind and channel.',
      labelNames: ['kind', 'channel'],
    }),
    failovers: new MetricCells(registry, 'counter', {
      name: 'tollgate_failovers_total',
      help: 'Attempts left for the next channel, by the channel left and why.',
      labelNames: ['channel', 'kind'],
    }),
    refusals: new MetricCells(registry, 'counter', {
      name: 'tollgate_admission_refusals_total',
      help: 'Requests refused by a gateway limit or quota, a closed store-outage policy or a draining node, by client format and limit.',
      labelNames: ['format', 'limit'],
    }),
    liveStreams: new MetricCells(registry, 'gauge', {
      name: 'tollgate_live_streams',
      help: 'Streamed requests admitted and not finished.',
      labelNames: ['format'],
    }),
    affinity: new MetricCells(registry, 'counter', {
      name: 'tollgate_affinity_requests_total',
      help: 'Served requests by model and how prompt-cache affinity ended: hit (the pinned channel served), moved (another channel served), new (first pin), off (no affinity).',
      labelNames: ['model', 'result'],
    }),
    modelFallbacks: new MetricCells(registry, 'counter', {
      name: 'tollgate_model_fallbacks_total',
      help: "Requests that followed their model's fallback chain, by requested model and the model that answered ('' when none did).",
      labelNames: ['model', 'answered_model'],
    }),
    ...cacheFamilies(registry),
    watchPublisher(status) {
      publisherStatus = status;
    },
    watchControlPlaneLag(lag) {
      controlPlaneLag = lag;
    },
  };
}

/**
 * The prompt-cache families (README, Operations → Metrics): input tokens (cached included),
 * cache-read tokens, cache-write tokens by lifetime (`ttl` = `5m` or `1h`, Anthropic's two
 * lifetimes) and the USD the cache reads saved against the input price. Hit rate in PromQL:
 * `sum(rate(tollgate_cache_read_tokens_total[1h])) / sum(rate(tollgate_cache_input_tokens_total[1h]))`.
 */
function cacheFamilies(registry: Registry) {
  const labelNames = ['channel', 'model', 'key', 'team'] as const;
  return {
    cacheInputTokens: new MetricCells<CacheLabel>(registry, 'counter', {
      name: 'tollgate_cache_input_tokens_total',
      help: 'Input tokens of served requests, cached included (the hit-rate denominator), by channel, model, key and team.',
      labelNames,
    }),
    cacheReadTokens: new MetricCells<CacheLabel>(registry, 'counter', {
      name: 'tollgate_cache_read_tokens_total',
      help: 'Input tokens read from the provider prompt cache, by channel, model, key and team.',
      labelNames,
    }),
    cacheWriteTokens: new MetricCells<CacheLabel | 'ttl'>(registry, 'counter', {
      name: 'tollgate_cache_write_tokens_total',
      help: 'Input tokens written to the provider prompt cache, by channel, model, key, team and cache lifetime (ttl: 5m or 1h).',
      labelNames: [...labelNames, 'ttl'],
    }),
    cacheSavings: new MetricCells<CacheLabel>(registry, 'counter', {
      name: 'tollgate_cache_savings_usd_total',
      help: 'USD the cache reads saved against the input price (cache-read tokens x (input - cache-read price)), by channel, model, key and team.',
      labelNames,
    }),
  };
}

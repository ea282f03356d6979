/**
 * The pipeline case's result (the `pipeline` field of test-artifacts/bench/latest.json) and its
 * plain-text table.
 */

/** One pipeline measurement. Times in ms unless named `S` (seconds); rates per second. */
export interface PipelineReport {
  readonly engines: {
    /** e.g. `Kafka 127.0.0.1:19092` or `file log (embedded)`. */
    readonly eventLog: string;
    /** e.g. `ClickHouse server 18.16.1` or `chdb (embedded) 26.7.2.1`. */
    readonly analytics: string;
    /** `Redis` or `memory`. */
    readonly stateStore: string;
    /** `separate process (infra/processes/tollgate-consumers.ts)` or `in the gateway process`. */
    readonly consumers: string;
  };
  /** The request sent (label of the bench case). */
  readonly requestKind: string;
  /** Measured requests (after the warm-up). */
  readonly requests: number;
  readonly warmupRequests: number;
  readonly concurrency: number;
  /** Events the gateway published for the measured requests (RequestCompleted + UsageRecorded + FailoverOccurred). */
  readonly events: number;
  /** Rows of the measured requests found in consumption_log FINAL. */
  readonly rows: number;
  /** From the first measured request sent to the poll that saw the last row, s. */
  readonly wallS: number;
  /** Time to send every measured request and read its answer, s. */
  readonly sendS: number;
  readonly eventsPerSecond: number;
  readonly rowsPerSecond: number;
  /** Lag from request end (occurred_at_ms) to the ledger building its row's insert (ingested_at_ms), nearest rank. */
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** CPU time (user + system) of the gateway child per measured request, µs (includes in-process consumers when they run there). */
  readonly gatewayCpuUsPerRequest: number;
  /** CPU time of the separate consumers process per measured request, µs (10 ms resolution; Linux /proc only). */
  readonly consumersCpuUsPerRequest?: number;
  /** How often consumption_log was polled while waiting for the last row, ms (the wall time's resolution). */
  readonly pollIntervalMs: number;
  /**
   * The consumers' own rate draining a backlog, events per second: backlogEvents / backlogDrainMs.
   * Null when not measured (consumers inside the gateway, or BENCH_PIPELINE_BACKLOG=0).
   */
  readonly consumerEventsPerSecond: number | null;
  /** Requests sent while the consumers process was stopped (BENCH_PIPELINE_BACKLOG); null when not measured. */
  readonly backlogRequests: number | null;
  /** Events the gateway published for them (RequestCompleted + UsageRecorded + FailoverOccurred); null when not measured. */
  readonly backlogEvents: number | null;
  /**
   * From the restarted consumers process logging `consumers running` to the poll that saw every
   * backlog row in consumption_log and billing_lines and the key's spend counter at its final
   * value, ms; null when not measured.
   */
  readonly backlogDrainMs: number | null;
  /** From spawning the consumers process again to its `consumers running` line, ms (not part of backlogDrainMs); null when not measured. */
  readonly backlogStartMs: number | null;
  /**
   * When each part of the drain was first seen complete, ms after `consumers running` (when
   * measured): every backlog row in consumption_log (ledger) and billing_lines (billing), and the
   * key's spend counter at its final value (billing; null without REDIS_URL). backlogDrainMs is the latest.
   */
  readonly backlogCompleteMs?: {
    readonly consumptionLog: number;
    readonly billingLines: number;
    readonly spend: number | null;
  };
  /** Spend the backlog added to the key's counter, nano-USD as a decimal string (with REDIS_URL, when measured; '0': the requests were unpriced). */
  readonly backlogSpendNanoUsd?: string;
  /**
   * Growth of the run's Redis keys per 1,000 measured requests, bytes (sum of MEMORY USAGE after
   * the consumers settled after the measured phase minus the same after the warm-up); null when
   * the state store is the in-process memory store (no REDIS_URL), which is not measured.
   */
  readonly redisBytesPer1000Requests: number | null;
  /** Growth of the number of the run's Redis keys per 1,000 measured requests; null when not measured. */
  readonly redisKeysPer1000Requests: number | null;
  /** The same two figures per kind of key (e.g. `spend:key:applied`, `health:ok`), when measured. */
  readonly redisPer1000RequestsByKind?: Readonly<Record<string, { readonly keys: number; readonly bytes: number }>>;
  /** The run's keys and their bytes after the measured phase (all requests, warm-up included), when measured. */
  readonly redisAfterRun?: { readonly keys: number; readonly bytes: number };
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** Rounds the measured figures for the report (rates to integers, seconds to ms precision). */
export function roundPipelineReport(report: PipelineReport): PipelineReport {
  return {
    ...report,
    wallS: round(report.wallS, 3),
    sendS: round(report.sendS, 3),
    eventsPerSecond: round(report.eventsPerSecond, 0),
    rowsPerSecond: round(report.rowsPerSecond, 0),
    gatewayCpuUsPerRequest: round(report.gatewayCpuUsPerRequest, 0),
    consumerEventsPerSecond: report.consumerEventsPerSecond === null ? null : round(report.consumerEventsPerSecond, 0),
    ...(report.consumersCpuUsPerRequest !== undefined
      ? { consumersCpuUsPerRequest: round(report.consumersCpuUsPerRequest, 0) }
      : {}),
    redisBytesPer1000Requests:
      report.redisBytesPer1000Requests === null ? null : round(report.redisBytesPer1000Requests, 0),
    redisKeysPer1000Requests:
      report.redisKeysPer1000Requests === null ? null : round(report.redisKeysPer1000Requests, 1),
    ...(report.redisPer1000RequestsByKind
      ? {
          redisPer1000RequestsByKind: Object.fromEntries(
            Object.entries(report.redisPer1000RequestsByKind).map(([kind, f]) => [
              kind,
              { keys: round(f.keys, 1), bytes: round(f.bytes, 0) },
            ]),
          ),
        }
      : {}),
  };
}

const formatBytes = (bytes: number): string =>
  Math.abs(bytes) >= 10_000 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes.toFixed(0)} B`;

/** The Redis rows of the table: totals, then one line per kind of key that changed. */
function redisRows(report: PipelineReport): Array<[string, string]> {
  if (report.redisBytesPer1000Requests === null || report.redisKeysPer1000Requests === null) {
    return [['Redis bytes per 1,000 requests', `not measured (${report.engines.stateStore} state store, embedded)`]];
  }
  const rows: Array<[string, string]> = [
    [
      'Redis bytes per 1,000 requests',
      `${formatBytes(report.redisBytesPer1000Requests)} (${report.redisBytesPer1000Requests.toFixed(0)} bytes)`,
    ],
    ['Redis keys per 1,000 requests', report.redisKeysPer1000Requests.toFixed(1)],
  ];
  for (const [kind, figures] of Object.entries(report.redisPer1000RequestsByKind ?? {})) {
    if (figures.keys !== 0 || figures.bytes !== 0)
      rows.push([`  ${kind}`, `${formatBytes(figures.bytes)}, ${figures.keys.toFixed(1)} keys`]);
  }
  if (report.redisAfterRun)
    rows.push([
      'Redis after the run',
      `${report.redisAfterRun.keys} keys, ${formatBytes(report.redisAfterRun.bytes)} (warm-up included)`,
    ]);
  return rows;
}

/** The backlog rows of the table: the consumers' own rate and how it was taken, or why it was not. */
function backlogRows(report: PipelineReport): Array<[string, string]> {
  const { consumerEventsPerSecond, backlogRequests, backlogEvents, backlogDrainMs, backlogStartMs } = report;
  if (
    consumerEventsPerSecond === null ||
    backlogRequests === null ||
    backlogEvents === null ||
    backlogDrainMs === null ||
    backlogStartMs === null
  ) {
    const reason = report.engines.consumers.startsWith('in the gateway')
      ? 'consumers inside the gateway'
      : 'BENCH_PIPELINE_BACKLOG=0';
    return [['consumer events/s (backlog)', `not measured (${reason})`]];
  }
  const complete = report.backlogCompleteMs;
  return [
    ['consumer events/s (backlog)', consumerEventsPerSecond.toFixed(0)],
    [
      'backlog drain',
      `${backlogEvents} events of ${backlogRequests} requests in ${backlogDrainMs} ms after "consumers running" (process start to running: ${backlogStartMs} ms, not included)`,
    ],
    ...(complete
      ? [
          [
            '  complete at',
            `consumption_log ${complete.consumptionLog} ms, billing_lines ${complete.billingLines} ms${complete.spend === null ? '' : `, spend counter ${complete.spend} ms`}`,
          ] as [string, string],
        ]
      : []),
  ];
}

/** The report as an aligned two-column table (name, value). */
export function formatPipelineTable(report: PipelineReport): string {
  const rows: Array<[string, string]> = [
    ['event log', report.engines.eventLog],
    ['analytics', report.engines.analytics],
    ['state store', report.engines.stateStore],
    ['consumers', report.engines.consumers],
    [
      'requests',
      `${report.requests} × ${report.requestKind}, ${report.concurrency} at once (after ${report.warmupRequests} warm-up)`,
    ],
    ['events published', String(report.events)],
    ['rows in consumption_log', String(report.rows)],
    [
      'wall time',
      `${report.wallS.toFixed(2)} s (sending took ${report.sendS.toFixed(2)} s; last row in ${((report.wallS - report.sendS) * 1000).toFixed(0)} ms after the last answer)`,
    ],
    ['events/s', report.eventsPerSecond.toFixed(0)],
    ['rows/s', report.rowsPerSecond.toFixed(0)],
    ...backlogRows(report),
    ['lag p50', `${report.lagP50Ms} ms`],
    ['lag p99', `${report.lagP99Ms} ms`],
    ['lag max', `${report.lagMaxMs} ms`],
    [
      'gateway CPU',
      `${report.gatewayCpuUsPerRequest.toFixed(0)} µs/request${report.engines.consumers.startsWith('in the gateway') ? ' (consumers included)' : ''}`,
    ],
    ...(report.consumersCpuUsPerRequest !== undefined
      ? [['consumers CPU', `${report.consumersCpuUsPerRequest.toFixed(0)} µs/request`] as [string, string]]
      : []),
    ...redisRows(report),
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n');
}

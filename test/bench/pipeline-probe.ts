/**
 * What the pipeline benchmark reads from ClickHouse, in one interface with two transports:
 * - createAnalyticsProbe: runs the queries on an AnalyticsStore (the parent's ClickHouse server
 *   connection, or — in the gateway child — the store its in-process consumers write to);
 * - createRemoteProbe: asks a bench gateway child's control server, which answers with
 *   answerProbeRequest on its own store (embedded chdb allows one process per data directory,
 *   so the parent cannot open it while the child runs).
 * Statements run on ClickHouse 18.16 and chdb alike; 64-bit numbers are read as strings.
 */
import { request } from 'undici';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';

/** Reads consumption_log and billing_lines for the requests that ended at or after `sinceMs` (ms since epoch). */
export interface PipelineProbe {
  /** The analytics engine's version, e.g. `18.16.1` or `26.7.2.1`. */
  version(): Promise<string>;
  /** Rows in `consumption_log FINAL` with occurred_at_ms ≥ sinceMs. */
  rowCount(sinceMs: number): Promise<number>;
  /** ingested_at_ms − occurred_at_ms (ms) of those rows with an ingestion time, unsorted. */
  lagsMs(sinceMs: number): Promise<number[]>;
  /** Rows in `billing_lines FINAL` with occurred_at_ms ≥ sinceMs (the billing consumer inserts them before it adds the spend). */
  billingLineCount(sinceMs: number): Promise<number>;
}

/** Path prefix of the probe on a bench child's control server. */
export const PROBE_PATH = '/pipeline/';

const since = (sinceMs: number): number => {
  if (!Number.isSafeInteger(sinceMs) || sinceMs < 0) throw new Error(`pipeline probe: invalid since ${sinceMs}`);
  return sinceMs;
};

/** The probe as queries on `store`. @throws the store's Error when a query fails */
export function createAnalyticsProbe(store: AnalyticsStore): PipelineProbe {
  return {
    version: () => store.version(),
    async rowCount(sinceMs) {
      const rows = await store.query<{ n: string }>(
        `SELECT toString(count()) AS n FROM consumption_log FINAL WHERE occurred_at_ms >= ${since(sinceMs)}`,
      );
      return Number(rows[0]?.n ?? 0);
    },
    async lagsMs(sinceMs) {
      const rows = await store.query<{ lag: string }>(
        `SELECT toString(toInt64(ingested_at_ms) - toInt64(occurred_at_ms)) AS lag FROM consumption_log FINAL WHERE occurred_at_ms >= ${since(sinceMs)} AND ingested_at_ms > 0`,
      );
      return rows.map((row) => Number(row.lag));
    },
    async billingLineCount(sinceMs) {
      const rows = await store.query<{ n: string }>(
        `SELECT toString(count()) AS n FROM billing_lines FINAL WHERE occurred_at_ms >= ${since(sinceMs)}`,
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}

/**
 * Child side: answers a control-server GET for `url` (`/pipeline/version`, `/pipeline/rows?since=MS`,
 * `/pipeline/lags?since=MS`, `/pipeline/billing?since=MS`) with `probe`. Undefined when `url` is not a probe path.
 * @throws Error for an unknown probe path or a failed query
 */
export async function answerProbeRequest(probe: PipelineProbe, url: string): Promise<unknown> {
  const parsed = new URL(url, 'http://localhost');
  if (!parsed.pathname.startsWith(PROBE_PATH)) return undefined;
  const sinceMs = Number(parsed.searchParams.get('since') ?? 0);
  switch (parsed.pathname.slice(PROBE_PATH.length)) {
    case 'version':
      return { version: await probe.version() };
    case 'rows':
      return { rows: await probe.rowCount(sinceMs) };
    case 'lags':
      return { lags: await probe.lagsMs(sinceMs) };
    case 'billing':
      return { rows: await probe.billingLineCount(sinceMs) };
    default:
      throw new Error(`unknown probe path ${parsed.pathname}`);
  }
}

async function getJson<T>(url: string): Promise<T> {
  const answer = await request(url);
  const text = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`pipeline probe ${url} answered ${answer.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Parent side: the probe of the bench child whose control server is at `controlOrigin`. */
export function createRemoteProbe(controlOrigin: string): PipelineProbe {
  const at = (path: string): string => `${controlOrigin}${PROBE_PATH}${path}`;
  return {
    version: async () => (await getJson<{ version: string }>(at('version'))).version,
    rowCount: async (sinceMs) => (await getJson<{ rows: number }>(at(`rows?since=${since(sinceMs)}`))).rows,
    lagsMs: async (sinceMs) => (await getJson<{ lags: number[] }>(at(`lags?since=${since(sinceMs)}`))).lags,
    billingLineCount: async (sinceMs) => (await getJson<{ rows: number }>(at(`billing?since=${since(sinceMs)}`))).rows,
  };
}

/**
 * The process metrics every Tollgate process exposes on its `/metrics` (the gateway node and the
 * consumers process): prom-client's default metrics (CPU, memory, handles, GC, event loop), with
 * the event loop's delay sampled every EVENT_LOOP_SAMPLE_MS instead of prom-client's 10 ms.
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * How often the event loop's delay is sampled, ms (`nodejs_eventloop_lag_p50_seconds` … `_p99`,
 * `_max`). prom-client measures it with `perf_hooks.monitorEventLoopDelay`, whose timer wakes the
 * loop once per resolution (https://nodejs.org/api/perf_hooks.html#perf_hooksmonitoreventloopdelayoptions):
 * at prom-client's default of 10 ms that is 100 wake-ups a second, measured as 0.67 % of a core
 * out of the 0.90 % an otherwise idle `npm start` used (per-thread CPU over 30 s). At 100 ms a
 * stall of the loop longer than the period is still caught, and the percentiles are drawn from
 * ten samples a second.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** Registers the default process metrics on `registry` (once per registry). */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

/**
 * The slice of autocannon 8's API the load benchmark uses (the package ships no types).
 * Shapes follow autocannon/lib/run.js and lib/aggregateResult.js.
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    /** Options of one run. `duration` and `timeout` in seconds. */
    interface AutocannonOptions {
      url: string;
      method?: 'GET' | 'POST';
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      pipelining?: number;
      duration?: number;
      timeout?: number;
    }

    /** The aggregated result. Latency figures are whole ms (an hdr histogram of integers). */
    interface AutocannonResult {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: { p50: number; p99: number; average: number };
      requests: { average: number; total: number; sent: number };
    }

    /**
     * The running job. Emits `response` (client, statusCode, resBytes, responseTime in ms as a
     * float) for each answer and `reqError` (error) for each failed request.
     */
    interface AutocannonInstance extends EventEmitter {
      stop(): void;
    }
  }

  /** Starts a run; `callback` receives the aggregated result when it ends. */
  function autocannon(
    options: autocannon.AutocannonOptions,
    callback: (error: Error | null, result: autocannon.AutocannonResult) => void,
  ): autocannon.AutocannonInstance;

  export = autocannon;
}

/**
 * Messages between the embedded server's request thread and its consumers' worker thread
 * (consumer-thread.ts starts the worker, consumer-thread-worker.ts is its body).
 */
import type { MessagePort } from 'node:worker_threads';
import type { ConsumerBatching } from '../../consumers/consumer-batching.ts';
import type { EngineSettings } from '../open-adapters.ts';

/** The worker's `workerData`. */
export interface ConsumerThreadData {
  /** Where the engines are (the request thread's settings without its log function). */
  readonly settings: Omit<EngineSettings, 'log'>;
  readonly batching: ConsumerBatching;
  /** Present when the state store is the request thread's memory store (no REDIS_URL): serveConsumerState answers it. */
  readonly statePort?: MessagePort;
  /** Present when analytics is the process's chdb engine (no CLICKHOUSE_URL): a ChdbStore.openClientPort() port. */
  readonly analyticsPort?: MessagePort;
}

/** Worker → request thread. */
export type ConsumerThreadReport =
  | {
      readonly kind: 'log';
      readonly level: 'debug' | 'info' | 'warn' | 'error';
      readonly message: string;
      readonly extra?: Record<string, unknown>;
    }
  /** The consumers run (migrations applied, config history folded). */
  | { readonly kind: 'ready' }
  /** Start-up failed; the worker exits after this. */
  | { readonly kind: 'failed'; readonly message: string }
  /** The consumers stopped after their in-flight batches and the worker's engines are closed. */
  | { readonly kind: 'stopped' }
  /** The answer to a ConsumerThreadMetricsRequest: the worker registry's `getMetricsAsJSON()`. */
  | { readonly kind: 'metrics'; readonly id: number; readonly metrics: object[] };

/** Request thread → worker: finish the in-flight batches, close, report `stopped`. */
export interface ConsumerThreadStop {
  readonly kind: 'stop';
}

/** Request thread → worker: answer with a `metrics` report of the same id (cost, consumer lag). */
export interface ConsumerThreadMetricsRequest {
  readonly kind: 'metrics';
  readonly id: number;
}

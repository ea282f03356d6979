/**
 * Body of the embedded consumers' worker thread (see consumer-thread.ts): opens its own event log
 * over the same engines (the file log in the same data directory, or Kafka), reaches the state
 * store and chdb through the ports it was given (or Redis/ClickHouse directly when their URLs are
 * set), runs the consumer pipeline, and reports over the parent port (consumer-thread-contract.ts).
 */
import { inspect } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { startMeteredConsumerPipeline } from './consumer-pipeline-runners.ts';
import { webhookSecretOpenerFrom } from './webhook-secret-opener.ts';
import type { ConsumerStateStore, RunningConsumerPipeline } from '../../consumers/start-consumer-pipeline.ts';
import type { ConsumerLog } from '../../consumers/run-consumers.ts';
import { createChdbStoreClient } from '../analytics/chdb/chdb-store.ts';
import { openAnalyticsStore, openEventLog } from '../open-adapters.ts';
import { openConsumerState } from './open-consumer-state.ts';
import { consumerStateOverPort } from './consumer-state-over-port.ts';
import { lowerThisThreadPriority } from '../lower-thread-priority.mjs';
import { ConsumerMetrics } from '../../consumers/metrics/consumer-metrics.ts';
import { startIdleMemoryReducer } from '../../gateway/lifecycle/idle-memory-reducer.ts';
import type {
  ConsumerThreadData,
  ConsumerThreadMetricsRequest,
  ConsumerThreadReport,
  ConsumerThreadStop,
} from './consumer-thread-contract.ts';

const data = workerData as ConsumerThreadData;
// Requests preempt the consumers' work when they share a core (infra/lower-thread-priority.mjs).
lowerThisThreadPriority();
const report = (message: ConsumerThreadReport): void => parentPort?.postMessage(message);

const log: ConsumerLog = (level, message, extra) => {
  try {
    report({ kind: 'log', level, message, ...(extra ? { extra } : {}) });
  } catch {
    // extra held something structured clone cannot carry (a function, a socket): send its text
    report({ kind: 'log', level, message, extra: { detail: inspect(extra) } });
  }
};

// This thread only reads the file log: it is woken by the request thread's writes.
const settings = {
  ...data.settings,
  log,
  ...(data.settings.fileLogWriteSignal
    ? { fileLogWriteSignal: { signal: data.settings.fileLogWriteSignal.signal, side: 'reader' as const } }
    : {}),
};
const eventLog = openEventLog(settings);
const state: ConsumerStateStore & { close(): unknown } = data.statePort
  ? consumerStateOverPort(data.statePort)
  : openConsumerState(settings);
const analytics = data.analyticsPort ? createChdbStoreClient(data.analyticsPort) : openAnalyticsStore(settings);

async function closeEngines(): Promise<void> {
  await eventLog
    .close()
    .catch((error: unknown) => log('warn', 'consumer thread: closing the event log failed', { error: String(error) }));
  await Promise.resolve(state.close()).catch(() => undefined);
  await analytics.close().catch(() => undefined);
}

// Process metrics come from the request thread's registry, which merges this one into its /metrics.
const metrics = new ConsumerMetrics({
  onLagError: (error) => log('warn', 'metrics: reading the consumer lag failed', { reason: error.message }),
});
let pipeline: RunningConsumerPipeline | undefined;
try {
  // The gateway node of this process loaded (or generated) the master key before this thread started.
  const openWebhookSecret = webhookSecretOpenerFrom(process.env, settings.dataDir);
  pipeline = await startMeteredConsumerPipeline(
    { eventLog, state, analytics, log, ...data.batching, ...(openWebhookSecret ? { openWebhookSecret } : {}) },
    metrics,
  );
  report({ kind: 'ready' });
} catch (error) {
  report({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  await closeEngines();
  process.exit(1);
}

// This thread's own heap (a V8 isolate of its own) is given back between bursts of events, as the request thread's.
const memoryReducer = startIdleMemoryReducer();

parentPort?.on('message', (message: ConsumerThreadStop | ConsumerThreadMetricsRequest) => {
  if (message.kind === 'metrics') {
    void metrics.snapshot().then(
      (snapshot) => report({ kind: 'metrics', id: message.id, metrics: snapshot }),
      () => report({ kind: 'metrics', id: message.id, metrics: [] }),
    );
    return;
  }
  if (message.kind !== 'stop') return;
  memoryReducer.stop();
  void (async () => {
    await pipeline
      ?.stop()
      .catch((error: unknown) =>
        log('error', 'consumer thread: stopping the consumers failed', { error: String(error) }),
      );
    await closeEngines();
    report({ kind: 'stopped' });
    parentPort?.close();
  })();
});

/**
 * Runs the consumer pipeline of the all-in-one server on a worker thread
 * (https://nodejs.org/api/worker_threads.html), so Avro decoding, folding, pricing and the building
 * of ClickHouse inserts never take turns on the event loop that serves requests. The worker
 * (consumer-thread-worker.ts) opens its own event log over the same engines; what must stay one per
 * process is shared through MessagePorts:
 * - the in-memory state store (no REDIS_URL), which the gateway reads for spend and channel health:
 *   the worker's spend and health writes are answered here (consumer-state-over-port.ts);
 * - the chdb engine (no CLICKHOUSE_URL), one process per data directory (ClickHouse locks it): the
 *   worker talks to the thread that relays to the engine's process directly
 *   (ChdbStore.openClientPort), never through this one.
 * With REDIS_URL / CLICKHOUSE_URL set the worker opens its own connections instead.
 *
 * A worker that dies (it should not) is logged and started again after RESTART_DELAY_MS; its
 * consumers resume from their committed offsets, so nothing is lost or counted twice.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { ConsumerBatching } from '../../consumers/consumer-batching.ts';
import type { ConsumerLog } from '../../consumers/run-consumers.ts';
import type { ConsumerStateStore } from '../../consumers/start-consumer-pipeline.ts';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { ChdbStore } from '../analytics/chdb/chdb-store.ts';
import { usesRedis, type EngineSettings } from '../open-adapters.ts';
import { serveConsumerState } from './consumer-state-over-port.ts';
import type {
  ConsumerThreadData,
  ConsumerThreadMetricsRequest,
  ConsumerThreadReport,
  ConsumerThreadStop,
} from './consumer-thread-contract.ts';

/**
 * The worker's entry. Run from source (`node --import tsx`, this module is .ts) the worker must
 * register tsx itself (consumer-thread-entry.mjs); built by `npm run build` (dist/, this module is
 * .js) the worker body is plain JavaScript next to this file and needs no loader.
 */
const WORKER_ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./consumer-thread-entry.mjs', import.meta.url)
  : new URL('./consumer-thread-worker.js', import.meta.url);

/** Delay before a worker that exited unexpectedly is started again, ms. */
const RESTART_DELAY_MS = 1000;
/** Longest metrics() waits for the worker's answer before answering without it, ms (below Prometheus' default 10 s scrape timeout). */
const METRICS_TIMEOUT_MS = 5000;
/** Longest stop() waits for the worker to finish its batches before terminating it, ms. */
const STOP_TIMEOUT_MS = 30_000;

/** What the consumer thread runs on: this thread's engines and settings. */
export interface ConsumerThreadOptions {
  readonly settings: EngineSettings;
  readonly batching: ConsumerBatching;
  /** The process's state store; served to the worker when it is the memory store (no Redis: usesRedis). */
  readonly state: ConsumerStateStore;
  /** The process's analytics store; must be the chdb store when `settings.clickhouseUrl` is absent. */
  readonly analytics: AnalyticsStore;
  /** Receives this module's lines and the worker's. */
  readonly log: ConsumerLog;
}

/** The running consumer thread. */
export interface RunningConsumerThread {
  /** Lets the in-flight batches finish (commit after ack), closes the worker's engines and ends the worker. Idempotent. */
  stop(): Promise<void>;
  /** The worker's metrics (cost, consumer lag) as `getMetricsAsJSON()`; `[]` when it does not answer within METRICS_TIMEOUT_MS or is stopping. Never rejects. */
  metrics(): Promise<object[]>;
}

/** A started worker and how its start-up went. */
interface StartedWorker {
  readonly worker: Worker;
  /** Resolves when the worker reports `ready`; rejects with its `failed` message or when it exits first. */
  readonly ready: Promise<void>;
  /** Resolves when the worker exited, with its exit code. */
  readonly exited: Promise<number>;
  readonly statePort?: MessagePort;
}

function isChdbStore(store: AnalyticsStore): store is ChdbStore {
  return typeof (store as Partial<ChdbStore>).openClientPort === 'function';
}

/**
 * Starts the worker; resolves once its consumers run (migrations applied, config history folded).
 * @throws Error with the worker's message when start-up failed there (a migration, the event log);
 *   Error when `settings.clickhouseUrl` is absent and `analytics` is not a chdb store
 */
export async function startConsumerThread(options: ConsumerThreadOptions): Promise<RunningConsumerThread> {
  const { log } = options;
  if (!options.settings.clickhouseUrl && !isChdbStore(options.analytics))
    throw new Error('the consumer thread needs the chdb store when CLICKHOUSE_URL is absent');
  let stopping = false;
  let current = startWorker(options);
  await current.ready;

  const watch = (started: StartedWorker): void => {
    void started.exited.then((code) => {
      started.statePort?.close();
      if (stopping) return;
      log('error', 'consumer thread exited unexpectedly; restarting it', { code, restartInMs: RESTART_DELAY_MS });
      setTimeout(() => {
        if (stopping) return;
        current = startWorker(options);
        current.ready.catch((error: unknown) =>
          log('error', 'consumer thread failed to restart', { error: (error as Error).message }),
        );
        watch(current);
      }, RESTART_DELAY_MS).unref();
    });
  };
  watch(current);

  let stopped: Promise<void> | undefined;
  let lastMetricsId = 0;
  return {
    metrics() {
      if (stopping) return Promise.resolve([]);
      lastMetricsId += 1;
      return askForMetrics(current.worker, lastMetricsId);
    },
    stop() {
      stopped ??= (async () => {
        stopping = true;
        const { worker, exited } = current;
        const finished = new Promise<void>((resolve) => {
          worker.on('message', (report: ConsumerThreadReport) => report.kind === 'stopped' && resolve());
          void exited.then(() => resolve());
        });
        worker.postMessage({ kind: 'stop' } satisfies ConsumerThreadStop);
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            log('warn', 'consumer thread did not stop in time; terminating it', { timeoutMs: STOP_TIMEOUT_MS });
            resolve();
          }, STOP_TIMEOUT_MS);
        });
        await Promise.race([finished, timedOut]);
        clearTimeout(timer);
        await worker.terminate();
      })();
      return stopped;
    },
  };
}

/** Starts one worker with fresh ports to the state store and chdb engine. */
function startWorker(options: ConsumerThreadOptions): StartedWorker {
  const { settings, log } = options;
  const { log: _log, ...clonableSettings } = settings;
  const transfer: MessagePort[] = [];
  // Without Redis the worker writes this thread's memory state store: port1 serves it, port2 goes to the worker.
  const stateChannel = usesRedis(settings) ? undefined : new MessageChannel();
  if (stateChannel) {
    serveConsumerState(options.state, stateChannel.port1);
    transfer.push(stateChannel.port2);
  }
  let analyticsPort: MessagePort | undefined;
  if (!settings.clickhouseUrl && isChdbStore(options.analytics)) {
    analyticsPort = options.analytics.openClientPort();
    transfer.push(analyticsPort);
  }
  const workerData: ConsumerThreadData = {
    settings: clonableSettings,
    batching: options.batching,
    ...(stateChannel ? { statePort: stateChannel.port2 } : {}),
    ...(analyticsPort ? { analyticsPort } : {}),
  };
  const worker = new Worker(WORKER_ENTRY, { workerData, transferList: transfer, name: 'tollgate-consumers' });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  worker.on('error', (error) => log('error', 'consumer thread failed', { error: error.message }));
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (report: ConsumerThreadReport) => {
      if (report.kind === 'log') log(report.level, report.message, report.extra);
      else if (report.kind === 'ready') resolve();
      else if (report.kind === 'failed') reject(new Error(report.message));
    });
    void exited.then((code) => reject(new Error(`consumer thread exited during start-up (code ${code})`)));
  });
  ready.catch(() => undefined);
  return { worker, ready, exited, ...(stateChannel ? { statePort: stateChannel.port1 } : {}) };
}

/** Posts a metrics request to `worker` and resolves with its answer, or `[]` after METRICS_TIMEOUT_MS. */
function askForMetrics(worker: Worker, id: number): Promise<object[]> {
  return new Promise((resolve) => {
    const done = (metrics: object[]): void => {
      clearTimeout(timer);
      worker.off('message', onReport);
      resolve(metrics);
    };
    const onReport = (report: ConsumerThreadReport): void => {
      if (report.kind === 'metrics' && report.id === id) done(report.metrics);
    };
    const timer = setTimeout(() => done([]), METRICS_TIMEOUT_MS);
    worker.on('message', onReport);
    worker.postMessage({ kind: 'metrics', id } satisfies ConsumerThreadMetricsRequest);
  });
}

/**
 * The event side of the bench gateway child for the pipeline case (BENCH_GATEWAY_EVENTS=1): the
 * engines the server root (infra/processes/tollgate-server.ts) would open from the same environment (openEventLog / openStateStore of
 * engineSettingsFromEnv: Kafka or the embedded file log in TOLLGATE_DATA_DIR, Redis or memory),
 * an event log wrapper that counts what the gateway publishes, and — with
 * BENCH_GATEWAY_CONSUMERS=in-process, as `npm start` does in embedded mode — the consumers in this
 * process, with a probe of the analytics store they write to.
 */
import { startConsumerPipeline } from '../../consumers/start-consumer-pipeline.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../infra/processes/consumer-pipeline-runners.ts';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import {
  engineSettingsFromEnv,
  openAnalyticsStore,
  openEventLog,
  openStateStore,
  type EngineSettings,
} from '../../infra/open-adapters.ts';
import type { StateStore } from '../../schemas/state-store/state-store.ts';
import { createAnalyticsProbe, type PipelineProbe } from './pipeline-probe.ts';

/** The opened event side. */
export interface BenchGatewayEvents {
  /** The event log to hand to buildApp; counts every publish. */
  readonly eventLog: EventLog;
  /** The state store to hand to buildApp (channel health), as the server root does. */
  readonly state: StateStore;
  /** Records published so far (one per traffic event). */
  published(): number;
  /** Present when the consumers run in this process. */
  readonly probe?: PipelineProbe;
  /** Flushes events, stops the consumers, closes every engine. */
  close(): Promise<void>;
}

/** Adapter warnings and errors go to stderr (the child's stdout carries only its ready line). */
const log: NonNullable<EngineSettings['log']> = (level, message, extra) => {
  if (level === 'warn' || level === 'error')
    process.stderr.write(`bench gateway ${level}: ${message} ${extra ? JSON.stringify(extra) : ''}\n`);
};

function countingEventLog(inner: EventLog, onPublish: () => void): EventLog {
  return {
    publish: (record) => {
      onPublish();
      inner.publish(record);
    },
    flush: () => inner.flush(),
    subscribe: (options) => inner.subscribe(options),
    status: () => inner.status(),
    close: () => inner.close(),
    endOffsets: (topic) => inner.endOffsets(topic),
  };
}

async function startInProcessConsumers(
  settings: EngineSettings,
  eventLog: EventLog,
  state: StateStore,
): Promise<{ analytics: AnalyticsStore; stop: () => Promise<void> }> {
  const analytics = openAnalyticsStore(settings);
  const running = await startConsumerPipeline({ runners: CONSUMER_PIPELINE_RUNNERS, eventLog, state, analytics, log });
  return { analytics, stop: () => running.stop() };
}

/**
 * Opens the engines named by `env` and, when `env.BENCH_GATEWAY_CONSUMERS === 'in-process'`,
 * migrates the analytics store and starts the consumers here.
 * @throws the adapters' Error when an engine cannot be reached at start (e.g. Kafka for a subscription)
 */
export async function startBenchGatewayEvents(env: NodeJS.ProcessEnv = process.env): Promise<BenchGatewayEvents> {
  const settings: EngineSettings = { ...engineSettingsFromEnv(env), log };
  const inner = openEventLog(settings);
  const state = openStateStore(settings);
  let published = 0;
  const eventLog = countingEventLog(inner, () => (published += 1));
  const consumers =
    env.BENCH_GATEWAY_CONSUMERS === 'in-process' ? await startInProcessConsumers(settings, inner, state) : undefined;
  return {
    eventLog,
    state,
    published: () => published,
    ...(consumers ? { probe: createAnalyticsProbe(consumers.analytics) } : {}),
    close: async () => {
      await inner.flush();
      await consumers?.stop();
      await inner.close();
      await state.close();
      await consumers?.analytics.close();
    },
  };
}

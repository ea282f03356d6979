/**
 * The consumer side of Tollgate in one call: applies ClickHouse migrations, follows the config
 * topic into the control-plane fold (prices for billing), then runs the ledger (consumption_log),
 * billing (billing_lines, spend tables, spend counters), health (channel health in the state
 * store), failovers (failovers table), config-audit (config_audit table), dimensions (users,
 * keys, teams, team members and channels tables) and alerts (budget alerts to webhooks, alert_deliveries) consumers;
 * billing publishes the budget alerts (consumers/alerts/publish-threshold-alerts.ts) when the
 * alerts consumer is among those run. Used by
 * `npm run consumers`, by the embedded all-in-one process and by `tollgate replay`.
 */
import type { AnalyticsStore } from '../schemas/analytics/analytics-store.ts';
import type { StartConfigFollower } from '../schemas/control-plane/config-follower.ts';
import { CONFIG_TOPIC } from '../schemas/topics.ts';
import type { EventLog, Subscription } from '../schemas/event-log/event-log.ts';
import type { StateStore } from '../schemas/state-store/state-store.ts';
import type { BudgetLedger } from '../schemas/state-store/budget-ledger.ts';
import type { ObservationBatchWriter } from './health/health-consumer.ts';
import { createBillingConsumer, type CostListener } from './billing/billing-consumer.ts';
import { startConfigAuditConsumer } from './config-audit/config-audit-consumer.ts';
import { ConsumerControlPlane } from './control-plane/consumer-control-plane.ts';
import { startDimensionsConsumer } from './dimensions/dimensions-consumer.ts';
import { createFailoverConsumer } from './failovers/failover-consumer.ts';
import { createHealthConsumer } from './health/health-consumer.ts';
import { createLedgerConsumer } from './ledger/ledger-consumer.ts';
import { createAlertsConsumer, type WebhookSecretOpener } from './alerts/alerts-consumer.ts';
import type { DeliveryRetryOptions } from './alerts/deliver-webhook.ts';
import { publishThresholdAlerts } from './alerts/publish-threshold-alerts.ts';
import { runConsumers, type BatchDoneListener, type ConsumerLog, type RunningConsumers } from './run-consumers.ts';
import type { TrafficConsumer } from './traffic-consumer.ts';

/** The consumers the pipeline can run. */
export const CONSUMER_NAMES = [
  'ledger',
  'billing',
  'health',
  'failovers',
  'config-audit',
  'dimensions',
  'alerts',
] as const;
export type ConsumerName = (typeof CONSUMER_NAMES)[number];

/** The part of the budget ledger the consumers use: window spend from the log, and the alerts published. */
export type ConsumerBudgetLedger = Pick<BudgetLedger, 'addBudgetSpendBatch' | 'readBudgetUse' | 'markThresholdAlerted'>;

/**
 * The part of the state store the consumers write: spend counters (billing) and channel health
 * (health), plus, for a store reached over a thread boundary, one call for a partition's
 * observations (see ObservationBatchWriter), and the process's budget ledger when it has one.
 */
export type ConsumerStateStore = Pick<StateStore, 'addSpendBatch' | 'recordChannelObservation'> &
  Partial<ObservationBatchWriter> & { readonly budgets?: ConsumerBudgetLedger };

/**
 * What the pipeline runs at start, given by the process's composition root:
 * infra/processes/consumer-pipeline-runners.ts holds the real ones.
 */
export interface ConsumerPipelineRunners {
  /**
   * Applies the ClickHouse migrations not yet applied to `analytics`; resolves to the names applied.
   * @throws the store's error when a migration fails
   */
  readonly migrate: (analytics: AnalyticsStore) => Promise<ReadonlyArray<string>>;
  /** Follows the config topic into the pipeline's control-plane fold (prices). */
  readonly startConfigFollower: StartConfigFollower;
}

/** What the pipeline runs on. */
export interface ConsumerPipelineDeps {
  readonly runners: ConsumerPipelineRunners;
  readonly eventLog: EventLog;
  readonly state: ConsumerStateStore;
  readonly analytics: AnalyticsStore;
  readonly log: ConsumerLog;
  /** Max records per batch (default 500). */
  readonly maxBatchSize?: number;
  /**
   * Longest a partial batch of the ClickHouse consumers (ledger, billing, failovers, config-audit, dimensions, alerts)
   * waits for more events, ms (default 0; the processes pass TOLLGATE_CONSUMER_BATCH_WAIT_MS,
   * default 1000, see infra/processes/consumer-batching-from-env.ts). Health waits at most STATE_BATCH_WAIT_MS (50 ms) of it.
   */
  readonly maxBatchWaitMs?: number;
  /** Consumer group prefix (default `tollgate.`); a fresh one replays every topic. */
  readonly groupPrefix?: string;
  /** Which consumers to run (default all). */
  readonly consumers?: ReadonlyArray<ConsumerName>;
  /** Told after each handled batch, before its offsets are committed. */
  readonly onBatchDone?: BatchDoneListener;
  /** Longest wait for the config topic to reach a traffic event's price revision, ms (default 10 000). */
  readonly priceWaitMs?: number;
  /** Told the cost of each newly billed, priced usage line (the consumers' metrics). */
  readonly onCost?: CostListener;
  /**
   * Opens an alert webhook's encrypted signing secret (the master key's decryption, given by the
   * composition root). None: the alerts consumer does not run (its group keeps its position, so
   * the alerts are delivered once a root gives one); billing still publishes the alerts.
   */
  readonly openWebhookSecret?: WebhookSecretOpener;
  /** Retries of each webhook delivery (default: deliver-webhook.ts's). */
  readonly alertDeliveryRetry?: DeliveryRetryOptions;
  /** Id of this pipeline's config follower, `[A-Za-z0-9_-]+` (default random): its consumer group is `tollgate.config.<id>`. */
  readonly configFollowerId?: string;
}

/** One consumer group the pipeline runs and the topics it reads (for lag). */
export interface ConsumerGroupTopics {
  /** As subscribed (before any topic prefix of the event log). */
  readonly groupId: string;
  readonly topics: ReadonlyArray<string>;
}

/** Running consumers, the control-plane fold they price with and their consumer groups. */
export interface RunningConsumerPipeline extends RunningConsumers {
  readonly controlPlane: ConsumerControlPlane;
  readonly groups: ReadonlyArray<ConsumerGroupTopics>;
}

/**
 * Migrates, joins the config topic (resolves once its history is applied), then starts the
 * consumers.
 * @throws the store's error when a migration fails; the event log's when it cannot subscribe;
 *   Error when the config topic's history is not applied within 60 s
 */
export async function startConsumerPipeline(deps: ConsumerPipelineDeps): Promise<RunningConsumerPipeline> {
  const applied = await deps.runners.migrate(deps.analytics);
  if (applied.length > 0) deps.log('info', 'applied ClickHouse migrations', { applied });
  const selected = new Set<ConsumerName>(deps.consumers ?? CONSUMER_NAMES);
  const controlPlane = new ConsumerControlPlane();
  const follower = await deps.runners.startConfigFollower({
    eventLog: deps.eventLog,
    projection: controlPlane,
    log: deps.log,
    ...(deps.configFollowerId ? { nodeId: deps.configFollowerId } : {}),
  });
  await follower.ready();
  const onWarning = (message: string): void => deps.log('warn', message);
  const pricing = {
    prices: controlPlane,
    onWarning,
    ...(deps.priceWaitMs === undefined ? {} : { priceWaitMs: deps.priceWaitMs }),
  };
  // Budget alerts are published by the pipeline that delivers them, never by an audit replay (ledger and billing alone).
  const budgets = deps.state.budgets;
  const publishAlerts =
    budgets && selected.has('alerts')
      ? async (uses: Parameters<typeof publishThresholdAlerts>[1]): Promise<void> => {
          const published = await publishThresholdAlerts(
            { eventLog: deps.eventLog, budgets, controlPlane: { budget: (id) => controlPlane.fold.budget(id) } },
            uses,
          );
          if (published.length > 0)
            deps.log('info', 'budget thresholds reached', { alerts: published.map((alert) => alert.eventId) });
        }
      : undefined;
  if (selected.has('alerts') && !deps.openWebhookSecret)
    deps.log('warn', 'budget alerts are published but not delivered: no master key to open the webhook secrets');
  const traffic: Array<[ConsumerName, () => TrafficConsumer]> = [
    ['ledger', () => createLedgerConsumer({ analytics: deps.analytics, ...pricing })],
    [
      'billing',
      () =>
        createBillingConsumer({
          analytics: deps.analytics,
          state: deps.state,
          ...(budgets ? { budgets } : {}),
          ...(publishAlerts ? { onBudgetUses: publishAlerts } : {}),
          ...pricing,
          ...(deps.onCost ? { onCost: deps.onCost } : {}),
        }),
    ],
    ['health', () => createHealthConsumer({ state: deps.state, onWarning })],
    ['failovers', () => createFailoverConsumer({ analytics: deps.analytics })],
  ];
  const openWebhookSecret = deps.openWebhookSecret;
  if (openWebhookSecret)
    traffic.push([
      'alerts',
      () =>
        createAlertsConsumer({
          analytics: deps.analytics,
          webhooks: () => controlPlane.fold.alertWebhooks(),
          openSecret: openWebhookSecret,
          log: deps.log,
          ...(deps.alertDeliveryRetry ? { retry: deps.alertDeliveryRetry } : {}),
        }),
    ]);
  const options = {
    groupPrefix: deps.groupPrefix ?? 'tollgate.',
    ...(deps.maxBatchSize === undefined ? {} : { maxBatchSize: deps.maxBatchSize }),
    ...(deps.maxBatchWaitMs ? { maxBatchWaitMs: deps.maxBatchWaitMs } : {}),
    ...(deps.onBatchDone ? { onBatchDone: deps.onBatchDone } : {}),
  };
  const consumers = traffic.filter(([name]) => selected.has(name)).map(([, create]) => create());
  const running = await runConsumers(deps.eventLog, consumers, deps.log, options);
  const audit: Subscription | undefined = selected.has('config-audit')
    ? await startConfigAuditConsumer({ eventLog: deps.eventLog, analytics: deps.analytics, log: deps.log, ...options })
    : undefined;
  const dimensions: Subscription | undefined = selected.has('dimensions')
    ? await startDimensionsConsumer({ eventLog: deps.eventLog, analytics: deps.analytics, log: deps.log, ...options })
    : undefined;
  const groups: ConsumerGroupTopics[] = consumers.map((consumer) => ({
    groupId: `${options.groupPrefix}${consumer.name}`,
    topics: consumer.topics,
  }));
  if (audit) groups.push({ groupId: `${options.groupPrefix}config-audit`, topics: [CONFIG_TOPIC] });
  if (dimensions) groups.push({ groupId: `${options.groupPrefix}dimensions`, topics: [CONFIG_TOPIC] });
  return {
    controlPlane,
    groups,
    async stop() {
      // The follower stops last: a batch in hand waiting for a price revision can still get it and commit.
      await Promise.all([running.stop(), audit?.stop(), dimensions?.stop()]);
      await follower.stop();
    },
  };
}

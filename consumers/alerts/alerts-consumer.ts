/**
 * The alerts consumer (name `alerts`, group `tollgate.alerts`): BudgetThresholdCrossed events
 * (topic `tollgate.alerts`) → a signed POST to every enabled alert webhook of the control plane
 * (alert-webhook-message.ts, deliver-webhook.ts), one row per alert and webhook in
 * `alert_deliveries` (migration 018).
 *
 * Once per alert and webhook: before sending, the pairs with a `delivered` row are left out, and
 * an alert met twice in a batch (published again after a crash) is sent once; the row is inserted
 * right after the delivery ends. So however often the consumers restart or the topic is replayed,
 * each alert reaches each webhook once — except when the process dies between a webhook's 2xx and
 * the row's insert: the alert is then sent again with the same `webhook-id`, by which receivers
 * deduplicate (Standard Webhooks: https://www.standardwebhooks.com/).
 *
 * A delivery whose attempts all failed is recorded `failed` and not retried by this group (one dead
 * receiver never blocks the others' alerts); a replay of the topic (a fresh group) tries it again.
 * Alerts to one webhook go in log order, webhooks concurrently. Secrets are opened per delivery
 * by `openSecret` and never logged, nor are signatures.
 */
import { lookupSlices, sqlLiteral, type AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES, type AlertDeliveryRow } from '../../schemas/analytics/tables.ts';
import type { AlertWebhookRecord } from '../../schemas/control-plane/control-plane-records.ts';
import type { BudgetThresholdCrossed } from '../../schemas/events/traffic-events.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { ConsumerLog } from '../run-consumers.ts';
import { analyticsConsumerOf, type TrafficConsumer } from '../traffic-consumer.ts';
import { signedAlertRequest } from './alert-webhook-message.ts';
import { deliverWebhook, type DeliveryResult, type DeliveryRetryOptions } from './deliver-webhook.ts';

/** Opens a webhook's encrypted signing secret (AES-256-GCM under the master key). @throws Error when it cannot. */
export type WebhookSecretOpener = (ciphertext: string) => string;

/** What the alerts consumer needs. */
export interface AlertsConsumerDeps {
  /** Migrated analytics store (alert_deliveries exists). */
  readonly analytics: AnalyticsStore;
  /** The control plane's webhooks as of now (the consumers' fold); only the enabled ones are sent to. */
  readonly webhooks: () => ReadonlyArray<AlertWebhookRecord>;
  /** Opens a webhook's `secretCiphertext` into its `whsec_…` secret. */
  readonly openSecret: WebhookSecretOpener;
  readonly log: ConsumerLog;
  /** Retries of each delivery (defaults: 5 attempts, 10 s each, backoff from 500 ms to 30 s). */
  readonly retry?: DeliveryRetryOptions;
  /** Clock of the rows' `delivered_at`, ms since epoch (default Date.now). */
  readonly now?: () => number;
}

/**
 * Creates the alerts consumer. A batch rejects (and is redelivered) only when the analytics store
 * fails; failed deliveries are recorded, not retried here.
 */
export function createAlertsConsumer(deps: AlertsConsumerDeps): TrafficConsumer {
  return analyticsConsumerOf('alerts', TOPICS.alerts, 'BudgetThresholdCrossed', async (events) => {
    const webhooks = deps.webhooks().filter((webhook) => webhook.enabled);
    if (webhooks.length === 0) return;
    const alerts = [...new Map(events.map(({ event }) => [event.eventId, event])).values()];
    const delivered = await deliveredPairs(deps.analytics, alerts, webhooks);
    await Promise.all(
      webhooks.map(async (webhook) => {
        for (const alert of alerts) {
          if (delivered.has(pairKey(alert.eventId, webhook.webhookId))) continue;
          const result = await deliverAlert(deps, alert, webhook);
          await deps.analytics.insert(TABLES.alertDeliveries, [deliveryRow(alert, webhook, result, deps.now)]);
        }
      }),
    );
  });
}

/** Sends one alert to one webhook; a secret that does not open fails it without an attempt. */
async function deliverAlert(
  deps: AlertsConsumerDeps,
  alert: BudgetThresholdCrossed,
  webhook: AlertWebhookRecord,
): Promise<DeliveryResult> {
  const context = { alertId: alert.eventId, webhookId: webhook.webhookId };
  let secret: string;
  try {
    secret = deps.openSecret(webhook.secretCiphertext);
  } catch (error) {
    deps.log('error', 'budget alert not delivered: the webhook secret cannot be opened', {
      ...context,
      reason: (error as Error).message,
    });
    return { outcome: 'failed', attempts: 0, httpStatus: 0, reason: 'secret cannot be opened' };
  }
  const result = await deliverWebhook(
    webhook.url,
    (nowMs) => signedAlertRequest(alert, webhook, secret, nowMs),
    deps.retry,
  );
  if (result.outcome === 'delivered')
    deps.log('info', 'budget alert delivered', { ...context, attempts: result.attempts, status: result.httpStatus });
  else
    deps.log('warn', 'budget alert not delivered: every attempt failed', {
      ...context,
      attempts: result.attempts,
      status: result.httpStatus,
      reason: result.reason,
    });
  return result;
}

/** `<alertId> <webhookId>` (neither holds a space). */
function pairKey(alertId: string, webhookId: string): string {
  return `${alertId} ${webhookId}`;
}

/**
 * The (alert, webhook) pairs among the batch's that alert_deliveries holds as delivered. Any row
 * marked delivered counts, merged or not, so no FINAL is needed.
 * @throws the store's error when the query fails
 */
async function deliveredPairs(
  analytics: AnalyticsStore,
  alerts: ReadonlyArray<BudgetThresholdCrossed>,
  webhooks: ReadonlyArray<AlertWebhookRecord>,
): Promise<Set<string>> {
  const list = (values: ReadonlyArray<string>): string => values.map((value) => sqlLiteral(value)).join(',');
  const delivered = new Set<string>();
  for (const alertSlice of lookupSlices(alerts)) {
    for (const webhookSlice of lookupSlices(webhooks)) {
      const rows = await analytics.query<{ alert_id: string; webhook_id: string }>(
        `SELECT alert_id, webhook_id FROM ${TABLES.alertDeliveries} ` +
          `WHERE alert_id IN (${list(alertSlice.map((alert) => alert.eventId))}) ` +
          `AND webhook_id IN (${list(webhookSlice.map((webhook) => webhook.webhookId))}) AND outcome = 'delivered'`,
      );
      for (const row of rows) delivered.add(pairKey(row.alert_id, row.webhook_id));
    }
  }
  return delivered;
}

/** The alert_deliveries row of a finished delivery. */
export function deliveryRow(
  alert: BudgetThresholdCrossed,
  webhook: Pick<AlertWebhookRecord, 'webhookId'>,
  result: DeliveryResult,
  now: () => number = Date.now,
): AlertDeliveryRow {
  const at = now();
  return {
    alert_id: alert.eventId,
    webhook_id: webhook.webhookId,
    budget_id: alert.budgetId,
    threshold_percent: alert.thresholdPercent,
    window_start: Math.floor(alert.windowStartMs / 1000),
    window_start_ms: alert.windowStartMs,
    delivered_at: Math.floor(at / 1000),
    delivered_at_ms: at,
    attempts: result.attempts,
    http_status: result.httpStatus,
    outcome: result.outcome,
  };
}

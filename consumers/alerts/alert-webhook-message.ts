/**
 * What a budget alert looks like on the wire, for each webhook format, and how it is signed.
 *
 * Every request carries the Standard Webhooks headers
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
 * - `webhook-id`: `<alertId>:<webhookId>`, the same on every attempt and every redelivery of this
 *   alert to this webhook, so a receiver deduplicates by it;
 * - `webhook-timestamp`: the attempt's time, integer seconds since epoch;
 * - `webhook-signature`: `v1,` + base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`,
 *   keyed with the bytes of the secret (`whsec_` + base64: the base64 part, decoded).
 *
 * Bodies: `json` is the Standard Webhooks payload `{ type, timestamp, data }` with type
 * `budget.threshold_crossed`; `slack` is a Slack incoming-webhook message `{ text }`
 * (https://api.slack.com/messaging/webhooks), signed all the same. Amounts are USD as exact
 * decimal strings, never floats.
 */
import { createHmac } from 'node:crypto';
import type { AlertWebhookFormat } from '../../schemas/control-plane/control-plane-records.ts';
import type { BudgetThresholdCrossed } from '../../schemas/events/traffic-events.ts';

/** The event type of the JSON payload. */
export const ALERT_EVENT_TYPE = 'budget.threshold_crossed';

/** Prefix of a Standard Webhooks signing secret. */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** The `data` of the JSON payload: the alert, times as ISO 8601 UTC and ms, money as USD decimal strings. */
export interface AlertPayloadData {
  readonly alertId: string;
  readonly budgetId: string;
  readonly budgetName: string;
  /** key, user, team, end_user or tag */
  readonly scope: string;
  readonly scopeId: string;
  readonly thresholdPercent: number;
  readonly windowStart: string;
  /** null: the window never resets (a lifetime budget) */
  readonly windowEnd: string | null;
  readonly windowStartMs: number;
  readonly windowEndMs: number | null;
  /** USD, exact decimal (`12.5`, `0.000001234`); null = no USD limit */
  readonly limitUsd: string | null;
  readonly limitTokens: number | null;
  /** USD billed into the window when the threshold was found reached, exact decimal */
  readonly spentUsd: string;
  readonly spentTokens: number;
}

/** One signed HTTP request to send. */
export interface SignedWebhookRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The `webhook-id` of an alert sent to a webhook: `<alertId>:<webhookId>`, stable across attempts and redeliveries. */
export function webhookMessageId(alertId: string, webhookId: string): string {
  return `${alertId}:${webhookId}`;
}

/** Nano-USD as decimal digits (`1234500000`) → USD as an exact decimal (`1.2345`; whole amounts `3`). */
export function nanoUsdToUsd(nanoUsd: string): string {
  const negative = nanoUsd.startsWith('-');
  const digits = (negative ? nanoUsd.slice(1) : nanoUsd).padStart(10, '0');
  const whole = digits.slice(0, -9).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(-9).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The `data` of an alert's JSON payload. */
export function alertPayloadData(alert: BudgetThresholdCrossed): AlertPayloadData {
  return {
    alertId: alert.eventId,
    budgetId: alert.budgetId,
    budgetName: alert.budgetName,
    scope: alert.scope,
    scopeId: alert.scopeId,
    thresholdPercent: alert.thresholdPercent,
    windowStart: new Date(alert.windowStartMs).toISOString(),
    windowEnd: alert.windowEndMs === null ? null : new Date(alert.windowEndMs).toISOString(),
    windowStartMs: alert.windowStartMs,
    windowEndMs: alert.windowEndMs,
    limitUsd: alert.limitNanoUsd === null ? null : nanoUsdToUsd(alert.limitNanoUsd),
    limitTokens: alert.limitTokens,
    spentUsd: nanoUsdToUsd(alert.spentNanoUsd),
    spentTokens: alert.spentTokens,
  };
}

/**
 * The sentence a Slack message carries, e.g. `Budget "Search team" (team team_1) reached 80% of
 * its limit of $10 (tokens: 1000000): $8.0125 and 412000 tokens spent in the window from
 * 2026-01-01T00:00:00.000Z to 2026-01-02T00:00:00.000Z.`
 */
export function alertSentence(alert: BudgetThresholdCrossed): string {
  const data = alertPayloadData(alert);
  const limits = [
    data.limitUsd === null ? undefined : `$${data.limitUsd}`,
    data.limitTokens === null ? undefined : `${data.limitTokens} tokens`,
  ].filter((part) => part !== undefined);
  const window =
    data.windowEnd === null ? 'over its lifetime' : `in the window from ${data.windowStart} to ${data.windowEnd}`;
  return (
    `Budget "${data.budgetName}" (${data.scope} ${data.scopeId}) reached ${data.thresholdPercent}% of its limit ` +
    `of ${limits.join(' and ')}: $${data.spentUsd} and ${data.spentTokens} tokens spent ${window}.`
  );
}

/** The body of an alert for a webhook of `format` (JSON text). */
export function alertWebhookBody(alert: BudgetThresholdCrossed, format: AlertWebhookFormat): string {
  if (format === 'slack') return JSON.stringify({ text: alertSentence(alert) });
  return JSON.stringify({
    type: ALERT_EVENT_TYPE,
    timestamp: new Date(alert.occurredAt).toISOString(),
    data: alertPayloadData(alert),
  });
}

/**
 * The key bytes of a Standard Webhooks secret: the base64 after `whsec_` (a secret without the
 * prefix is taken as base64 whole).
 * @throws Error `webhook secret is not base64` (never quoting the secret) when it does not decode
 */
export function signingKeyOf(secret: string): Buffer {
  const encoded = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded))
    throw new Error('webhook secret is not base64 (whsec_ followed by base64)');
  return Buffer.from(encoded, 'base64');
}

/**
 * The `webhook-signature` value: `v1,` + base64 HMAC-SHA256 of `<id>.<timestampSeconds>.<body>`.
 * @throws as signingKeyOf
 */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', signingKeyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The signed request of one attempt: Standard Webhooks headers and the body for `format`.
 * @param nowMs the attempt's time, ms since epoch (`webhook-timestamp` is its whole seconds)
 * @throws as signingKeyOf
 */
export function signedAlertRequest(
  alert: BudgetThresholdCrossed,
  webhook: { readonly webhookId: string; readonly format: AlertWebhookFormat },
  secret: string,
  nowMs: number,
): SignedWebhookRequest {
  const id = webhookMessageId(alert.eventId, webhook.webhookId);
  const timestamp = Math.floor(nowMs / 1000);
  const body = alertWebhookBody(alert, webhook.format);
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignature(secret, id, timestamp, body),
    },
    body,
  };
}

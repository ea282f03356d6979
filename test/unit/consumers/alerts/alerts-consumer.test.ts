/**
 * The alerts consumer against a local receiver: each alert once per enabled webhook, signed;
 * deliveries recorded in alert_deliveries and looked up before sending; duplicates in a batch sent
 * once; retries with backoff until a 2xx, a failure recorded after the last attempt; a secret that
 * does not open recorded as failed without a request, and never logged.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAlertsConsumer } from '../../../../consumers/alerts/alerts-consumer.ts';
import type { AnalyticsStore, AnalyticsValue } from '../../../../schemas/analytics/analytics-store.ts';
import type { AlertWebhookRecord } from '../../../../schemas/control-plane/control-plane-records.ts';
import type { BudgetThresholdCrossed } from '../../../../schemas/events/traffic-events.ts';
import { TOPICS } from '../../../../schemas/topics.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const START = Date.UTC(2026, 0, 5);
/** Fake "encryption": the ciphertext names the secret. */
const CIPHERTEXTS: Record<string, string> = { 'sealed-good': SECRET };
const openSecret = (ciphertext: string): string => {
  const secret = CIPHERTEXTS[ciphertext];
  if (!secret) throw new Error('channel credential cannot be decrypted: wrong TOLLGATE_MASTER_KEY');
  return secret;
};

function alertAt(percent: number, budgetId = 'bgt_00000000000000aa'): BudgetThresholdCrossed {
  return {
    eventId: `${budgetId}@${START}:${percent}`,
    occurredAt: START + 1000,
    budgetId,
    budgetName: 'daily',
    scope: 'key',
    scopeId: 'key_1',
    windowStartMs: START,
    windowEndMs: START + 86_400_000,
    thresholdPercent: percent,
    limitNanoUsd: '1000',
    limitTokens: null,
    spentNanoUsd: String(percent * 10),
    spentTokens: 1,
  };
}

let offset = 0;
function batch(...alerts: BudgetThresholdCrossed[]) {
  return alerts.map((event) => ({
    type: 'BudgetThresholdCrossed' as const,
    event,
    position: { topic: TOPICS.alerts, partition: 0, offset: String(offset++) },
  }));
}

/** alert_deliveries in memory: a query answers every row marked delivered (the consumer filters its pairs). */
function deliveriesStore(): AnalyticsStore & { rows: Array<Record<string, AnalyticsValue>> } {
  const rows: Array<Record<string, AnalyticsValue>> = [];
  return {
    rows,
    exec: async () => undefined,
    insert: async (table, inserted) => {
      expect(table).toBe('alert_deliveries');
      rows.push(...inserted);
    },
    query: async <T>() => rows.filter((row) => row.outcome === 'delivered') as T[],
    version: async () => 'fake',
    close: async () => undefined,
  };
}

let receiver: WebhookReceiver;
let logLines: string[];
const log = (level: string, message: string, extra?: Record<string, unknown>): void =>
  void logLines.push(`${level} ${message} ${JSON.stringify(extra ?? {})}`);

function webhook(overrides: Partial<AlertWebhookRecord> = {}): AlertWebhookRecord {
  return {
    webhookId: 'whk_00000000000000b1',
    name: 'ops',
    url: receiver.url,
    format: 'json',
    secretCiphertext: 'sealed-good',
    enabled: true,
    createdAt: 0,
    ...overrides,
  };
}

const FAST_RETRY = { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20, attemptTimeoutMs: 500 };

beforeAll(async () => {
  receiver = await startWebhookReceiver(SECRET);
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answers.length = 0;
  receiver.delayMs = 0;
  logLines = [];
});

describe('alerts consumer', () => {
  it('delivers each alert once per enabled webhook, signed, in log order, and records each delivery', async () => {
    const analytics = deliveriesStore();
    const hooks = [
      webhook(),
      webhook({ webhookId: 'whk_00000000000000b2', format: 'slack' }),
      webhook({ webhookId: 'whk_00000000000000b3', enabled: false }),
    ];
    const consumer = createAlertsConsumer({ analytics, webhooks: () => hooks, openSecret, log, retry: FAST_RETRY });
    expect(consumer.name).toBe('alerts');
    expect(consumer.topics).toEqual([TOPICS.alerts]);
    await consumer.handleBatch(batch(alertAt(50), alertAt(80), alertAt(50)));
    const ids = receiver.received.map((r) => r.id).sort();
    expect(ids).toEqual(
      [
        `bgt_00000000000000aa@${START}:50:whk_00000000000000b1`,
        `bgt_00000000000000aa@${START}:50:whk_00000000000000b2`,
        `bgt_00000000000000aa@${START}:80:whk_00000000000000b1`,
        `bgt_00000000000000aa@${START}:80:whk_00000000000000b2`,
      ].sort(),
    );
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    const toFirst = receiver.received
      .filter((r) => r.id.endsWith('b1'))
      .map((r) => JSON.parse(r.body).data.thresholdPercent);
    expect(toFirst).toEqual([50, 80]);
    expect(JSON.parse(receiver.received.find((r) => r.id.endsWith('b2'))!.body)).toHaveProperty('text');
    expect(
      analytics.rows.map((row) => [row.alert_id, row.webhook_id, row.outcome, row.attempts, row.http_status]),
    ).toHaveLength(4);
    expect(
      analytics.rows.every((row) => row.outcome === 'delivered' && row.attempts === 1 && row.http_status === 204),
    ).toBe(true);
    expect(analytics.rows[0]).toMatchObject({
      budget_id: 'bgt_00000000000000aa',
      window_start_ms: START,
      window_start: START / 1000,
    });

    // The same alerts again (a restart, a replay, a second publication): nothing is sent.
    await consumer.handleBatch(batch(alertAt(50), alertAt(80)));
    expect(receiver.received).toHaveLength(4);
    expect(analytics.rows).toHaveLength(4);
  });

  it('retries a failing receiver with backoff until it answers 2xx, each attempt signed anew', async () => {
    const analytics = deliveriesStore();
    receiver.answers.push(503, 500);
    const consumer = createAlertsConsumer({
      analytics,
      webhooks: () => [webhook()],
      openSecret,
      log,
      retry: FAST_RETRY,
    });
    await consumer.handleBatch(batch(alertAt(50, 'bgt_retry')));
    expect(receiver.received.map((r) => r.status)).toEqual([503, 500, 204]);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(analytics.rows).toMatchObject([{ outcome: 'delivered', attempts: 3, http_status: 204 }]);
  });

  it('records a failure after the last attempt (a timeout included) and tries it again on a later batch', async () => {
    const analytics = deliveriesStore();
    receiver.answers.push(500, 500, 500);
    const consumer = createAlertsConsumer({
      analytics,
      webhooks: () => [webhook()],
      openSecret,
      log,
      retry: FAST_RETRY,
    });
    await consumer.handleBatch(batch(alertAt(50, 'bgt_fail')));
    expect(analytics.rows).toMatchObject([{ outcome: 'failed', attempts: 3, http_status: 500 }]);
    expect(logLines.some((line) => line.startsWith('warn budget alert not delivered'))).toBe(true);

    receiver.delayMs = 1_000; // longer than attemptTimeoutMs
    await consumer.handleBatch(batch(alertAt(80, 'bgt_fail')));
    expect(analytics.rows[1]).toMatchObject({ outcome: 'failed', attempts: 3, http_status: 0 });

    receiver.delayMs = 0;
    await consumer.handleBatch(batch(alertAt(50, 'bgt_fail')));
    expect(analytics.rows[2]).toMatchObject({ alert_id: `bgt_fail@${START}:50`, outcome: 'delivered' });
  });

  it('records a webhook whose secret does not open as failed, sends nothing and logs no secret', async () => {
    const analytics = deliveriesStore();
    const consumer = createAlertsConsumer({
      analytics,
      webhooks: () => [webhook({ secretCiphertext: 'sealed-other' })],
      openSecret,
      log,
      retry: FAST_RETRY,
    });
    await consumer.handleBatch(batch(alertAt(50, 'bgt_secret')));
    expect(receiver.received).toEqual([]);
    expect(analytics.rows).toMatchObject([{ outcome: 'failed', attempts: 0, http_status: 0 }]);
    expect(logLines.join('\n')).not.toContain(SECRET.slice(6));
    expect(logLines.join('\n')).not.toContain('v1,');
  });

  it('does nothing without an enabled webhook', async () => {
    const analytics = deliveriesStore();
    const consumer = createAlertsConsumer({
      analytics,
      webhooks: () => [webhook({ enabled: false })],
      openSecret,
      log,
    });
    await consumer.handleBatch(batch(alertAt(50, 'bgt_none')));
    expect(receiver.received).toEqual([]);
    expect(analytics.rows).toEqual([]);
  });
});

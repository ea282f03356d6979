/**
 * Budget alerts fire once, on both engine sets (embedded: file log, memory state rebuilt from the
 * log, chdb; production: Kafka, Redis, ClickHouse 18.16). The real server runs (its consumers on
 * their worker thread); a key's daily token budget with thresholds 50 % and 80 % is driven across
 * both by requests; the process is SIGKILLed right after the request that crosses 50 % (the
 * alert not yet published, or published but not marked, or not yet delivered) and again while the
 * 80 % delivery is at the receiver, unanswered; after each restart the consumers finish the work.
 * Then the topics are replayed with a fresh consumer group prefix (billing and alerts). The
 * receiver verifies every Standard Webhooks signature and acknowledged exactly one delivery per
 * threshold, and alert_deliveries holds one delivered row per (alert, webhook).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startConsumerPipeline } from '../../../consumers/start-consumer-pipeline.ts';
import { takeEndOffsetSnapshot } from '../../../consumers/audit/end-offset-snapshot.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../../infra/processes/consumer-pipeline-runners.ts';
import { openConsumerState } from '../../../infra/processes/open-consumer-state.ts';
import { webhookSecretOpenerFrom } from '../../../infra/processes/webhook-secret-opener.ts';
import { openAnalyticsStore, openEventLog } from '../../../infra/open-adapters.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { engineEnvironment, ENGINE_SETS, isolatedEngineSettings } from '../../support/pipeline-harness.ts';
import { spawnGateway, withoutEngineVariables, type GatewayProcess } from '../../support/spawn-gateway.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../unit/consumers/alerts/webhook-receiver.ts';

const ADMIN_TOKEN = 'alerts-fire-once-admin-token-0123456789';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** Polls `check` until it returns true, or throws after `timeoutMs` with `describe()`. */
async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out: ${describe()}`);
}

describe.each(ENGINE_SETS)('budget alerts on the %s engines', (engines) => {
  let gateway: GatewayProcess | undefined;
  let receiver: WebhookReceiver | undefined;

  afterAll(async () => {
    await gateway?.stop();
    await receiver?.close();
  }, 60_000);

  it('delivers exactly one signed alert per threshold across SIGKILLs, restarts and a replay', async () => {
    const settings = await isolatedEngineSettings(engines);
    receiver = await startWebhookReceiver(SECRET);
    const configPath = join(settings.dataDir, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        channels: [{ id: 'mock-main', provider: 'mock', models: ['mock-1'] }],
        prices: [{ model: 'mock-1', inputPerMTok: 1, outputPerMTok: 1 }],
      }),
    );
    const env: NodeJS.ProcessEnv = {
      ...withoutEngineVariables(process.env, ['TOLLGATE_TOPIC_PREFIX']),
      ...engineEnvironment(settings),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      TOLLGATE_LOG_FORMAT: 'json',
      TOLLGATE_CONFIG: configPath,
      TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN,
      TOLLGATE_CONSUMER_BATCH_WAIT_MS: '0',
      ...(engines === 'production'
        ? {
            TOLLGATE_CONSUMERS: 'in-process',
            TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64'),
            TOLLGATE_KEY_HMAC_SECRET: randomBytes(32).toString('base64'),
          }
        : {}),
    };
    const admin = async (path: string, body: unknown): Promise<any> => {
      const response = await fetch(`${gateway!.origin}/admin/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await response.json();
      expect(response.status, JSON.stringify(json)).toBeLessThan(300);
      return json;
    };
    let apiKey = '';
    const chat = async (): Promise<number> => {
      const response = await fetch(`${gateway!.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-1', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] }),
      });
      const body = (await response.json()) as { usage?: { total_tokens: number } };
      expect(response.status, JSON.stringify(body)).toBe(200);
      return body.usage!.total_tokens;
    };
    const killHard = async (): Promise<void> => {
      gateway!.kill('SIGKILL');
      expect((await gateway!.exited).signal).toBe('SIGKILL');
    };
    /** Deliveries the receiver answered 2xx on a connection still open, by webhook-id. */
    const acknowledged = (): Map<string, number> => {
      const counts = new Map<string, number>();
      for (const r of receiver!.received) if (r.acknowledged) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
      return counts;
    };

    gateway = await spawnGateway(env);
    const created = await admin('/keys', { name: 'alerting' });
    apiKey = created.apiKey;
    const keyId: string = created.key.keyId;
    const perRequest = await chat(); // before the budget: counts in no window
    const { alertWebhook } = await admin('/alert-webhooks', { name: 'ops', url: receiver.url, secret: SECRET });
    const { budget } = await admin('/budgets', {
      name: 'alerting daily',
      scope: 'key',
      scopeId: keyId,
      period: 'day',
      limitTokens: perRequest * 10,
      thresholds: [50, 80],
    });
    // 50 %: the fifth request crosses it; the process dies while its consumers take it in. The
    // gateway appends a request's events on the next turn of its event loop after answering: 200 ms
    // lets them reach the log (a kill before that loses the request's events with the process).
    for (let i = 0; i < 5; i++) expect(await chat()).toBe(perRequest);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await killHard();
    gateway = await spawnGateway(env);
    await until(
      () => acknowledged().size === 1,
      60_000,
      () => `${JSON.stringify(receiver!.received)}\n${gateway?.output() ?? ''}`,
    );

    // 80 %: the eighth request crosses it; the process dies while the receiver holds the delivery.
    receiver.delayMs = 1_500;
    for (let i = 0; i < 3; i++) expect(await chat()).toBe(perRequest);
    await until(
      () => receiver!.arrivals > 1,
      60_000,
      () => `${JSON.stringify(receiver!.received)}\n${gateway?.output() ?? ''}`,
    );
    await killHard();
    receiver.delayMs = 0;
    gateway = await spawnGateway(env);
    await until(
      () => acknowledged().size === 2,
      60_000,
      () => `${JSON.stringify(receiver!.received)}\n${gateway?.output() ?? ''}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // room for a wrong second delivery
    await gateway.stop();
    gateway = undefined;

    // Replay every topic with fresh consumer groups: billing and alerts again, on the same engines.
    const eventLog = openEventLog(settings);
    const state = openConsumerState(settings);
    const analytics = openAnalyticsStore(settings);
    try {
      const openWebhookSecret = webhookSecretOpenerFrom(env, settings.dataDir)!;
      expect(openWebhookSecret).toBeDefined();
      const usage = await takeEndOffsetSnapshot(eventLog, [TOPICS.usage]);
      const seenAlerts: Array<{ topic: string; partition: number; offset: string }> = [];
      let alerts: Awaited<ReturnType<typeof takeEndOffsetSnapshot>> | undefined;
      const replay = await startConsumerPipeline({
        runners: CONSUMER_PIPELINE_RUNNERS,
        eventLog,
        state,
        analytics,
        log: () => undefined,
        groupPrefix: `tollgate.replay${randomBytes(4).toString('hex')}.`,
        consumers: ['billing', 'alerts'],
        openWebhookSecret,
        onBatchDone: (consumer, records) => {
          for (const record of records) {
            if (consumer === 'billing') usage.markSeen(record.topic, record.partition, record.offset);
            if (consumer === 'alerts') {
              seenAlerts.push(record);
              alerts?.markSeen(record.topic, record.partition, record.offset);
            }
          }
        },
      });
      try {
        // Billing has replayed every usage record (publishing again, with the same ids, what a fresh
        // ledger finds unmarked) before the alerts topic's end is taken: the alerts group reads to it.
        await usage.caughtUp;
        alerts = await takeEndOffsetSnapshot(eventLog, [TOPICS.alerts]);
        for (const record of seenAlerts) alerts.markSeen(record.topic, record.partition, record.offset);
        await alerts.caughtUp;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      } finally {
        await replay.stop();
      }

      expect(receiver.received.every((r) => r.verified)).toBe(true);
      // The 80 % delivery held at the kill never got its answer: sent again, same webhook-id, once acknowledged.
      const unanswered = receiver.received.filter((r) => !r.acknowledged).map((r) => r.id.split(':')[1]);
      expect(unanswered).toEqual(['80']);
      expect([...acknowledged().entries()].sort()).toEqual([
        [`${budget.budgetId}@${budgetWindowStart(receiver)}:50:${alertWebhook.webhookId}`, 1],
        [`${budget.budgetId}@${budgetWindowStart(receiver)}:80:${alertWebhook.webhookId}`, 1],
      ]);
      const rows = await analytics.query<{ alert_id: string; webhook_id: string; outcome: string; n: string }>(
        `SELECT alert_id, webhook_id, outcome, toString(count()) AS n FROM alert_deliveries FINAL GROUP BY alert_id, webhook_id, outcome ORDER BY alert_id`,
      );
      expect(rows.map((row) => [row.alert_id.split(':')[1], row.webhook_id, row.outcome, row.n])).toEqual([
        ['50', alertWebhook.webhookId, 'delivered', '1'],
        ['80', alertWebhook.webhookId, 'delivered', '1'],
      ]);
    } finally {
      await eventLog.close();
      await state.close();
      await analytics.close();
    }
  }, 400_000);
});

/** The window start the deliveries name (the budget's current UTC day). */
function budgetWindowStart(receiver: WebhookReceiver): number {
  const first = receiver.received[0];
  return JSON.parse(first!.body).data.windowStartMs as number;
}

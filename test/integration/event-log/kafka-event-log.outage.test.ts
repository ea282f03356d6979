/**
 * THE OUTAGE TEST: Kafka stopped while the gateway publishes, the gateway restarted during the
 * outage, Kafka started again — every record arrives exactly once, in order per key.
 *
 * It stops the run's Kafka (kafka-control.ts: the one the global setup started, or the developer's
 * `npm run infra:up` one) and ALWAYS starts it again in `finally`; other suites using Kafka at that
 * moment may see errors for those seconds, so run it sparingly. Against a broker it did not start
 * (KAFKA_BROKERS pointing elsewhere) it fails loudly rather than stop something it does not own.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';
import { kafkaIsControllable, setKafkaRunning } from '../../support/kafka-control.ts';
import { collect, RUN_ID, waitUntil } from './collect-records.ts';

const kafkaService = (verb: 'up' | 'down'): Promise<number> => setKafkaRunning(verb === 'up');

/** Publishes records `from`..`to - 1` (keys k0..k4, value = the number) and returns how long publish() took in total, ms. */
function publishRange(log: EventLog, topic: string, from: number, to: number): number {
  const started = performance.now();
  for (let i = from; i < to; i += 1) log.publish({ topic, key: `k${i % 5}`, value: Buffer.from(String(i)) });
  return performance.now() - started;
}

describe.skipIf(withoutEngines)('kafka outage', () => {
  it('spools while Kafka is down, survives a gateway restart and drains exactly once, in order', async () => {
    const brokers = (await requireEngineUrl('KAFKA_BROKERS')).split(',');
    expect(kafkaIsControllable(brokers), "the outage test stops the run's Kafka; KAFKA_BROKERS must point at it").toBe(
      true,
    );
    const spoolDir = await mkdtemp(join(tmpdir(), 'tollgate-outage-spool-'));
    const topic = `test.outage.${RUN_ID}`;
    const logLines: string[] = [];
    const logger = (level: string, message: string): void => void logLines.push(`${level} ${message}`);
    const figures: Record<string, number> = {};
    let kafkaStopped = false;
    const consumerLines: string[] = [];
    const t0 = Date.now();
    const consumerSide = createKafkaEventLog({
      brokers,
      spoolDir: join(spoolDir, 'consumer-side'),
      logger: (level, message) =>
        void (level !== 'debug' && consumerLines.push(`${Date.now() - t0}ms ${level} ${message}`)),
    });
    try {
      const before = createKafkaEventLog({ brokers, spoolDir, logger });
      publishRange(before, topic, 0, 100);
      await before.flush();
      expect(before.status()).toMatchObject({ pending: 0, spooled: 0, connected: true });
      const live = await collect(consumerSide, `outage-live-${RUN_ID}`, [topic]);
      await waitUntil('the live consumer to read the first 100', () => live.accepted.length === 100);

      kafkaStopped = true;
      figures.downMs = await kafkaService('down');
      const outageStarted = Date.now();
      figures.publishWhileDownMs = publishRange(before, topic, 100, 200);
      expect(figures.publishWhileDownMs).toBeLessThan(50);
      let started = Date.now();
      await before.flush();
      figures.firstFlushWhileDownMs = Date.now() - started;
      expect(before.status()).toMatchObject({ pending: 0, spooled: 100, connected: false });
      publishRange(before, topic, 200, 300);
      started = Date.now();
      await before.flush();
      figures.secondFlushWhileDownMs = Date.now() - started;
      expect(before.status().spooled).toBe(200);
      started = Date.now();
      await before.close();
      figures.closeWhileDownMs = Date.now() - started;
      figures.spoolBytes = (await stat(join(spoolDir, 'spool.log'))).size;

      started = Date.now();
      const after = createKafkaEventLog({ brokers, spoolDir, logger });
      publishRange(after, topic, 300, 400);
      await after.flush();
      figures.restartedFlushWhileDownMs = Date.now() - started;
      expect(after.status()).toMatchObject({ pending: 0, spooled: 300, connected: false });

      figures.upMs = await kafkaService('up');
      kafkaStopped = false;
      figures.outageMs = Date.now() - outageStarted;
      started = Date.now();
      publishRange(after, topic, 400, 450);
      await waitUntil('the spool to drain', () => after.status().spooled === 0 && after.status().connected, 30_000);
      figures.drainMs = Date.now() - started;
      publishRange(after, topic, 450, 500);
      await after.flush();
      expect((await stat(join(spoolDir, 'spool.log'))).size).toBe(0);

      const fresh = await collect(after, `outage-fresh-${RUN_ID}`, [topic]);
      await waitUntil('500 records in a fresh group', () => fresh.accepted.length >= 500, 30_000);
      await waitUntil('500 records in the live group', () => live.accepted.length >= 500, 30_000);
      figures.liveConsumerCaughtUpMs = Date.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 500));
      await fresh.subscription.stop();
      await live.subscription.stop();
      await after.close();

      for (const consumer of [fresh, live]) {
        const values = consumer.accepted.map((r) => Number(r.value.toString()));
        expect(values).toHaveLength(500);
        expect(new Set(values).size).toBe(500);
        for (let k = 0; k < 5; k += 1) {
          const ofKey = consumer.accepted.filter((r) => r.key === `k${k}`).map((r) => Number(r.value.toString()));
          expect(ofKey).toEqual(Array.from({ length: 100 }, (_, n) => n * 5 + k));
        }
      }
      expect(logLines).toContain('warn kafka: send failed, spooling events to disk');
      expect(logLines).toContain('warn kafka spool: records left by a previous run will be sent first');
      expect(logLines).toContain('info kafka spool: drained');
      console.info('outage figures', JSON.stringify(figures));
      console.info('consumer side during the outage:\n' + consumerLines.join('\n'));
    } finally {
      if (kafkaStopped) await kafkaService('up');
      await consumerSide.close().catch(() => {});
      await rm(spoolDir, { recursive: true, force: true });
    }
  }, 120_000);
});

/**
 * `tollgate replay` on both engine sets (embedded: file log + chdb in a temp data dir, the live
 * tables in chdb's `default` database; production: Kafka under its own topic prefix and a
 * ClickHouse 18.16 database of its own). The live pipeline first projects the traffic; a replay
 * then reports 0 differences; after one row is deleted from the live consumption_log (and one
 * from billing_lines), the replay names each key/model/day with the live and replay values and
 * the request id behind it, counts the differences as requests, and exits 1. No consumer group
 * or offsets folder is left behind (the replay's consumers and config follower read group-less).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { startConsumerPipeline } from '../../../consumers/start-consumer-pipeline.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../../infra/processes/consumer-pipeline-runners.ts';
import { openAnalyticsStore, openEventLog, type EngineSettings } from '../../../infra/open-adapters.ts';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import { eventually, isolatedEngineSettings, ENGINE_SETS, type EngineSet } from '../../support/pipeline-harness.ts';
import {
  leftoverGroups,
  priceSet,
  publishControl,
  publishTraffic,
  requestCompleted,
  runCommand,
  usageRecorded,
  type RequestSpec,
} from './audit-traffic.ts';

const DAY_1 = Date.parse('2025-04-01T09:30:00Z');
const DAY_2 = Date.parse('2025-04-02T17:45:00Z');
/** Requests over three keys, two models and two days; req-1 and req-2 share key-a/small-model/day 1. */
const REQUESTS: RequestSpec[] = [
  {
    requestId: 'req-1',
    keyId: 'key-a',
    occurredAt: DAY_1,
    model: 'small-model',
    upstreamModel: 'small-up',
    inputTokens: 1200,
    outputTokens: 300,
  },
  {
    requestId: 'req-2',
    keyId: 'key-a',
    occurredAt: DAY_1 + 60_000,
    model: 'small-model',
    upstreamModel: 'small-up',
    inputTokens: 800,
    outputTokens: 100,
  },
  {
    requestId: 'req-3',
    keyId: 'key-a',
    occurredAt: DAY_2,
    model: 'small-model',
    upstreamModel: 'small-up',
    inputTokens: 10,
    outputTokens: 7,
  },
  {
    requestId: 'req-4',
    keyId: 'key-b',
    occurredAt: DAY_1,
    model: 'big-model',
    upstreamModel: 'big-up',
    inputTokens: 5000,
    outputTokens: 2500,
  },
  {
    requestId: 'req-5',
    keyId: 'key-b',
    occurredAt: DAY_2,
    model: 'big-model',
    upstreamModel: 'big-up',
    inputTokens: 1,
    outputTokens: 1,
  },
  {
    requestId: 'req-6',
    keyId: 'key-b',
    occurredAt: DAY_2,
    model: 'small-model',
    upstreamModel: 'small-up',
    inputTokens: 333,
    outputTokens: 777,
  },
  {
    requestId: 'req-7',
    keyId: 'key-a',
    occurredAt: DAY_2,
    model: 'big-model',
    upstreamModel: 'big-up',
    inputTokens: 42,
    outputTokens: 0,
  },
  {
    requestId: 'req-8',
    keyId: 'key-b',
    occurredAt: DAY_1,
    model: 'small-model',
    upstreamModel: 'small-up',
    inputTokens: 0,
    outputTokens: 0,
  },
  // More than one batch (500 records) per topic, so a replay that stopped early would show.
  ...Array.from({ length: 600 }, (_, i): RequestSpec => ({
    requestId: `fill-${i}`,
    keyId: 'key-fill',
    occurredAt: DAY_2 + i,
    model: 'small-model',
    upstreamModel: 'small-up',
    inputTokens: 3,
    outputTokens: 2,
  })),
].map((spec) => ({ ...spec, priceRevision: 2 }));

/** The live database, as `tollgate replay` derives it. */
const liveDatabaseOf = (settings: EngineSettings): string => settings.clickhouseDatabase ?? 'default';

describe.each<EngineSet>(ENGINE_SETS)('tollgate replay on %s engines', (engines) => {
  let settings: EngineSettings;
  let log: EventLog;

  /** Runs `work` with a store on the live database, closed afterwards (chdb: one open store per process). */
  async function withLiveStore<T>(work: (store: AnalyticsStore) => Promise<T>): Promise<T> {
    const store = openAnalyticsStore(settings);
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }
  const count = (store: AnalyticsStore, table: string): Promise<number> =>
    store
      .query<{ n: string }>(`SELECT toString(count()) AS n FROM ${table} FINAL`)
      .then((rows) => Number(rows[0]?.n ?? -1));

  beforeAll(async () => {
    settings = await isolatedEngineSettings(engines);
    log = openEventLog(settings);
    // Prices with 9 significant decimals, so exact decimal comparison matters.
    publishControl(log, [priceSet('small', 'small-up', 0.123456789, 1.5), priceSet('big', 'big-up', 3, 15.000000001)]);
    publishTraffic(
      log,
      REQUESTS.flatMap((spec) => [requestCompleted(spec), usageRecorded(spec)]),
    );
    await log.flush();
    // The live pipeline (ledger and billing) projects the traffic into the live database.
    await withLiveStore(async (analytics) => {
      const state = createMemoryStateStore();
      const live = await startConsumerPipeline({
        runners: CONSUMER_PIPELINE_RUNNERS,
        eventLog: log,
        state,
        analytics,
        log: () => undefined,
        consumers: ['ledger', 'billing'],
      });
      try {
        await eventually(
          async () => [await count(analytics, 'consumption_log'), await count(analytics, 'billing_lines')],
          [REQUESTS.length, REQUESTS.length],
          60_000,
        );
      } finally {
        await live.stop();
        await state.close();
      }
    });
  }, 120_000);

  afterAll(async () => {
    await log?.close();
    if (settings?.clickhouseUrl) {
      await withLiveStore(async (store) => {
        // The live database last: the store's requests name it.
        for (const database of [
          `${liveDatabaseOf(settings)}_replay`,
          `${liveDatabaseOf(settings)}_audit`,
          liveDatabaseOf(settings),
        ])
          await store.exec(`DROP DATABASE IF EXISTS ${database}`);
      });
    }
  });

  it('reports 0 differences after re-projecting every request into the replay database', async () => {
    const run = await runCommand(settings, ['replay']);
    expect(run.stderr.filter((line) => / (warn|error):/.test(line))).toEqual([]);
    expect(run.stdout.at(-1)).toBe('reconciliation: 0 differences');
    expect(run.code).toBe(0);
    expect(await leftoverGroups(settings, 'tollgate.replay.')).toEqual([]);
    // Neither the live pipeline's config follower nor the replay's left a group or offsets folder.
    expect(await leftoverGroups(settings, 'tollgate.config.')).toEqual([]);
    expect(run.stdout[0]).toMatch(
      new RegExp(`^consumption_log: live requests ${REQUESTS.length}, .*; replay requests ${REQUESTS.length}, `),
    );
    await withLiveStore(async (store) => {
      const replayDatabase = `${liveDatabaseOf(settings)}_replay`;
      expect(await count(store, `${replayDatabase}.consumption_log`)).toBe(REQUESTS.length);
      expect(await count(store, `${replayDatabase}.billing_lines`)).toBe(REQUESTS.length);
      // Costs were priced (not 0): the replay followed the config topic.
      const [cost] = await store.query<{ c: string }>(
        `SELECT toString(sum(cost_usd)) AS c FROM ${replayDatabase}.billing_lines FINAL`,
      );
      expect(Number(cost?.c)).toBeGreaterThan(0);
    });
  }, 120_000);

  it('names the key/model/day and the request id of a row deleted from the live consumption_log, counts requests, and exits 1', async () => {
    await withLiveStore(async (store) => {
      // Mutations exist on 18.16 and chdb; they run asynchronously, so wait for the row to go.
      await store.exec(`ALTER TABLE ${liveDatabaseOf(settings)}.consumption_log DELETE WHERE request_id = 'req-2'`);
      await store.exec(`ALTER TABLE ${liveDatabaseOf(settings)}.billing_lines DELETE WHERE request_id = 'req-8'`);
      await eventually(
        async () => [await count(store, 'consumption_log'), await count(store, 'billing_lines')],
        [REQUESTS.length - 1, REQUESTS.length - 1],
        30_000,
      );
    });
    const run = await runCommand(settings, ['replay', '--database', `${liveDatabaseOf(settings)}_audit`]);
    expect(run.code).toBe(1);
    const where = 'consumption_log key_id=key-a model=small-model day=2025-04-01';
    // req-2 cost 800 × 0.123456789 + 100 × 1.5 USD/MTok = 0.000248765 USD (whole nano-USD per request).
    expect(run.stdout.filter((line) => !/^(consumption_log|billing_lines): live /.test(line))).toEqual([
      `${where}: requests live 1, replay 2; input_tokens live 1200, replay 2000; output_tokens live 300, replay 400; cost_usd live 0.000598148, replay 0.000846913`,
      '  missing from live (1): req-2',
      'billing_lines key_id=key-b upstream_model=small-up day=2025-04-01: only in replay (requests 1, input_tokens 0, output_tokens 0, cost_usd 0.000000000)',
      '  missing from live (1): req-8',
      'reconciliation: 2 differences',
    ]);
    expect(await leftoverGroups(settings, 'tollgate.replay.')).toEqual([]);
  }, 120_000);

  it('keeps what the replay database holds with --keep, and re-creates it without', async () => {
    const replayDatabase = `${liveDatabaseOf(settings)}_audit`;
    await withLiveStore((store) =>
      store.exec(
        `INSERT INTO ${replayDatabase}.consumption_log (event_id, request_id, occurred_at, occurred_at_ms, key_id, model, input_tokens, output_tokens, cost_usd) VALUES ('ghost', 'ghost', '2025-04-03 00:00:00', 1743638400000, 'key-z', 'ghost-model', 5, 6, 0.5)`,
      ),
    );
    const ghost =
      'consumption_log key_id=key-z model=ghost-model day=2025-04-03: only in replay (requests 1, input_tokens 5, output_tokens 6, cost_usd 0.500000000)';
    const kept = await runCommand(settings, ['replay', '--database', replayDatabase, '--keep']);
    expect(kept.stdout).toContain(ghost);
    expect(kept.stdout[kept.stdout.indexOf(ghost) + 1]).toBe('  missing from live (1): ghost');
    expect(kept.stdout.at(-1)).toBe('reconciliation: 3 differences');
    const fresh = await runCommand(settings, ['replay', '--database', replayDatabase]);
    expect(fresh.stdout).not.toContain(ghost);
    expect(fresh.stdout.at(-1)).toBe('reconciliation: 2 differences');
  }, 120_000);

  it('stops before replaying when the live database was never migrated', async () => {
    const empty = await isolatedEngineSettings(engines);
    try {
      const run = await runCommand(empty, ['replay']);
      expect(run.code).toBe(1);
      expect(run.stderr.at(-1)).toMatch(/live database \w+ has no consumption_log or billing_lines/);
      // The consumer groups it would have used never existed: nothing to warn about.
      expect(run.stderr.filter((line) => line.startsWith('warning:'))).toEqual([]);
    } finally {
      if (empty.clickhouseUrl) {
        const store = openAnalyticsStore(empty);
        await store.exec(`DROP DATABASE IF EXISTS ${liveDatabaseOf(empty)}`).finally(() => store.close());
      }
    }
  });

  it('refuses a replay database that is the live one, with exit code 2', async () => {
    const run = await runCommand(settings, ['replay', '--database', liveDatabaseOf(settings)]);
    expect(run.code).toBe(2);
    expect(run.stderr[0]).toContain('--database');
  });

  it('refuses a bad --limit, and --limit with --details, with exit code 2 naming what is accepted', async () => {
    for (const args of [
      ['--limit', '0'],
      ['--limit', 'ten'],
      ['--limit', '5', '--details'],
    ]) {
      const run = await runCommand(settings, ['replay', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr[0], args.join(' ')).toMatch(/--limit.*(positive integer|--details)/);
      expect(run.stdout).toEqual([]);
    }
  });
});

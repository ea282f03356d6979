/**
 * One daily team budget held by two gateway nodes at once, on both engine sets (embedded: the file
 * log, memory state and chdb in one process; production: Kafka, Redis and ClickHouse). Concurrent
 * requests through both nodes drive the team past its limit: the billed total stays within the
 * README's bound (limit + one request's worst-case hold), every refusal is the format's 429 with
 * `budget_exceeded`, and the next day — on a clock the test moves — admits again.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestPricer } from '../../../gateway/policy/request-pricer.ts';
import { estimateInputTokens } from '../../../gateway/tokenize/estimate-tokens.ts';
import type { PriceEntryConfig } from '../../../schemas/billing/price-book.ts';
import {
  ENGINE_SETS,
  decimalToNano,
  isolatedEngineSettings,
  startTestSystem,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';

const ADMIN_TOKEN = 'admin-token-for-team-budget-test-0123456789';
const CHANNELS = [{ id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['team-model'] }];
/** $1 000 per million tokens: a request of ~10 input and ≤ 40 output tokens costs about $0.01–0.05. */
const PRICES: PriceEntryConfig[] = [
  { model: 'team-model', inputPerMTok: 1000, outputPerMTok: 1000, effectiveFrom: '2020-01-01T00:00:00Z' },
];
const LIMIT_USD = 0.25;
const MAX_TOKENS = 40;
const DAY_MS = 86_400_000;

interface AdminAnswer {
  readonly [field: string]: unknown;
}

async function admin(system: TestSystem, method: string, path: string, body?: unknown): Promise<AdminAnswer> {
  const response = await fetch(`${system.origin}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as AdminAnswer;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** The prompt of request `i`: the same length for every i, so every hold is the same. */
function prompt(i: number): string {
  return `budget request ${String(i).padStart(3, '0')}`;
}

describe.each(ENGINE_SETS)('a daily team budget across two gateway nodes on %s engines', (engines) => {
  let a: TestSystem;
  let b: TestSystem;
  const clock = { now: Date.now() };
  let apiKey = '';
  let teamId = '';

  beforeAll(async () => {
    const settings = await isolatedEngineSettings(engines);
    a = await startTestSystem({
      settings,
      channels: CHANNELS,
      prices: PRICES,
      adminToken: ADMIN_TOKEN,
      budgetClock: () => clock.now,
    });
    b = await startTestSystem({
      settings,
      channels: CHANNELS,
      prices: PRICES,
      consumers: false,
      state: a.state,
      analytics: a.analytics,
      budgetLedger: a.budgetLedger,
      budgetClock: () => clock.now,
    });
    const team = (await admin(a, 'POST', '/teams', { name: 'Search' })) as { team: { teamId: string } };
    teamId = team.team.teamId;
    await admin(a, 'POST', '/budgets', {
      name: 'search daily',
      scope: 'team',
      scopeId: teamId,
      limitUsd: LIMIT_USD,
      period: 'day',
      timeZone: 'UTC',
    });
    const key = (await admin(a, 'POST', '/keys', { name: 'search service', teamId })) as { apiKey: string };
    apiKey = key.apiKey;
    // The key, created after the budget, is known to node B once B has folded the budget too (one config partition).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const probe = await fetch(`${b.origin}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
      if (probe.status === 200) break;
      if (Date.now() > deadline) throw new Error(`node B never knew the key: ${probe.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 180_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
  }, 60_000);

  /** One chat request through `node`: its status and, when refused, the error code in body and header. */
  async function ask(node: TestSystem, i: number): Promise<{ status: number; code?: string; header?: string | null }> {
    const client = new OpenAI({ apiKey, baseURL: `${node.origin}/v1`, maxRetries: 0 });
    try {
      await client.chat.completions.create({
        model: 'team-model',
        max_tokens: MAX_TOKENS,
        messages: [{ role: 'user', content: prompt(i) }],
      });
      return { status: 200 };
    } catch (error) {
      if (!(error instanceof OpenAI.APIError)) throw error;
      return {
        status: error.status ?? 0,
        ...(typeof error.code === 'string' ? { code: error.code } : {}),
        header: error.headers?.get('x-tollgate-error-code') ?? null,
      };
    }
  }

  /** Sum of billed cost of the team's lines, nano-USD, once `expected` lines are billed. */
  async function teamSpend(expected: number): Promise<bigint> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [row] = await a.analytics.query<{ n: string; cost: string }>(
        `SELECT toString(count()) AS n, toString(sum(cost_usd)) AS cost FROM billing_lines FINAL WHERE team_id = '${teamId}'`,
      );
      if (Number(row?.n ?? 0) >= expected) return decimalToNano(row?.cost ?? '0');
      if (Date.now() > deadline) throw new Error(`only ${row?.n} of ${expected} lines billed`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('stops both nodes within one worst-case hold of the limit, with budget_exceeded, and admits again the next day', async () => {
    // The worst case the gateway holds per request: its input estimate and max_tokens at $1 000/M.
    const request = {
      messages: [{ role: 'user', content: [{ type: 'text', text: prompt(0) }] }],
    } as unknown as CanonicalRequest;
    const pricer = createRequestPricer({ prices: () => [], version: () => 0, channelsServing: () => [] });
    const holdNanoUsd = pricer.worstCaseCost(
      { inputNanoPerMTok: 1_000_000_000_000n, outputNanoPerMTok: 1_000_000_000_000n },
      estimateInputTokens(request),
      MAX_TOKENS,
    );
    const limitNanoUsd = BigInt(Math.round(LIMIT_USD * 1e9));

    // Forty concurrent requests, half through each node: more than the budget can hold.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => ask(i % 2 === 0 ? a : b, i)));
    const admitted = answers.filter((x) => x.status === 200).length;
    const refused = answers.filter((x) => x.status !== 200);
    expect(admitted).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const refusal of refused)
      expect(refusal).toEqual({ status: 429, code: 'budget_exceeded', header: 'budget_exceeded' });

    // Until the consumers bill what was held, more may fit; keep asking until the budget refuses.
    let billed = admitted;
    for (let i = 100; i < 200; i += 1) {
      await teamSpend(billed);
      const answer = await ask(i % 2 === 0 ? a : b, i);
      if (answer.status !== 200) {
        expect(answer).toEqual({ status: 429, code: 'budget_exceeded', header: 'budget_exceeded' });
        break;
      }
      billed += 1;
    }
    const spent = await teamSpend(billed);
    expect(spent).toBeGreaterThanOrEqual(limitNanoUsd - holdNanoUsd);
    // The bound stated in the README: below the limit plus one request's worst-case hold.
    expect(spent).toBeLessThan(limitNanoUsd + holdNanoUsd);

    // Both nodes refuse for the rest of the day …
    expect((await ask(a, 900)).status).toBe(429);
    expect((await ask(b, 901)).status).toBe(429);
    // … and admit on the next one.
    clock.now += DAY_MS;
    expect((await ask(a, 902)).status).toBe(200);
    expect((await ask(b, 903)).status).toBe(200);
  }, 180_000);
});

/**
 * The README's attribution queries (spend per team per week, per tag per day, top end users), word
 * for word from ANALYST_QUERIES, on both engine sets — Kafka + ClickHouse 18.16 + Redis, and the
 * embedded file log + chdb — after requests with known teams, end users and tags went through the
 * gateway in three client formats: every sum equals the billed lines of the requests it names.
 * A request's team is its key's; the bootstrap key has none, so the gateway here reads its key
 * through a view that gives it the team the test chooses and a default tag.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlaneView, KeyRecord } from '../../../gateway/control-plane/control-plane-view.ts';
import { ANALYST_QUERIES } from '../../../schemas/analytics/analyst-queries.ts';
import {
  decimalToNano,
  ENGINE_SETS,
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  type EngineSet,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';

const CHANNELS = [{ id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] }];
const PRICES = [{ model: 'chat-model', inputPerMTok: 0.27, outputPerMTok: 1.1, effectiveFrom: '2020-01-01T00:00:00Z' }];
const KEY_TAGS = ['env=prod'];

/** The attribution each recorded request must get, in sending order. */
interface SentRequest {
  readonly teamId: string;
  readonly endUserId: string;
  readonly tags: ReadonlyArray<string>;
}

const SENT: ReadonlyArray<SentRequest> = [
  { teamId: 'team_aaaaaaaaaaaaaaaa', endUserId: 'eu-1', tags: ['env=prod', 'feature=search'] },
  { teamId: 'team_aaaaaaaaaaaaaaaa', endUserId: 'eu-2', tags: ['env=prod', 'feature=chat', 'region=eu'] },
  { teamId: 'team_bbbbbbbbbbbbbbbb', endUserId: 'eu-2', tags: ['env=prod', 'feature=search'] },
  { teamId: 'team_bbbbbbbbbbbbbbbb', endUserId: 'eu-3', tags: ['env=prod'] },
  { teamId: 'team_bbbbbbbbbbbbbbbb', endUserId: 'eu-1', tags: ['env=prod', 'feature=vision'] },
];

/** A view whose keys belong to `team()` and carry KEY_TAGS (read at each request). */
function keysInTeam(team: () => string): (view: ControlPlaneView) => ControlPlaneView {
  const teamed = (key: KeyRecord | undefined): KeyRecord | undefined =>
    key && { ...key, teamId: team(), tags: KEY_TAGS };
  return (view) =>
    new Proxy(view, {
      get(target, property) {
        if (property === 'keyByDigest') return (digest: string) => teamed(target.keyByDigest(digest));
        if (property === 'key') return (keyId: string) => teamed(target.key(keyId));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
}

/** Sends SENT (and one refused request) in order, switching the key's team between them. */
async function sendRequests(system: TestSystem, setTeam: (teamId: string) => void): Promise<void> {
  const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${system.origin}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: system.origin, maxRetries: 0 });
  const messages = [{ role: 'user' as const, content: 'Say something about attribution.' }];
  setTeam(SENT[0]!.teamId);
  await openai.chat.completions.create(
    { model: 'chat-model', messages },
    { headers: { 'x-tollgate-end-user': 'eu-1', 'x-tollgate-tags': 'feature=search' } },
  );
  await openai.chat.completions.create(
    {
      model: 'chat-model',
      messages: [{ role: 'user', content: 'A longer question, about tags and end users.' }],
      user: 'eu-2',
    },
    { headers: { 'x-tollgate-tags': 'feature=chat,region=eu' } },
  );
  setTeam(SENT[2]!.teamId);
  await anthropic.messages.create(
    { model: 'chat-model', max_tokens: 64, messages, metadata: { user_id: 'eu-2' } },
    { headers: { 'x-tollgate-tags': 'feature=search' } },
  );
  const gemini = new GoogleGenAI({
    apiKey: TEST_KEY,
    httpOptions: { baseUrl: system.origin, headers: { 'x-tollgate-end-user': 'eu-3' } },
  });
  await gemini.models.generateContent({ model: 'chat-model', contents: 'Gemini asks about spend.' });
  await openai.chat.completions.create(
    { model: 'chat-model', messages, user: 'someone-else', safety_identifier: 'eu-1' },
    { headers: { 'x-tollgate-tags': 'feature=search,feature=vision' } },
  );
  // Refused before admission: no outcome, no line, in no sum.
  await expect(
    openai.chat.completions.create({ model: 'chat-model', messages }, { headers: { 'x-tollgate-tags': 'feature' } }),
  ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
}

/** One sum of billing lines: requests, tokens and nano-USD. */
interface Spend {
  readonly requests: number;
  readonly tokens: number;
  readonly costNano: bigint;
}

const NO_SPEND: Spend = { requests: 0, tokens: 0, costNano: 0n };

function plus(a: Spend, b: Spend): Spend {
  return { requests: a.requests + b.requests, tokens: a.tokens + b.tokens, costNano: a.costNano + b.costNano };
}

/** Sums `lines` into one Spend per group; a line in several groups (tags) counts in each. */
function expectedBy(
  lines: ReadonlyArray<SentRequest & Spend>,
  groups: (line: SentRequest) => string[],
): Map<string, Spend> {
  const sums = new Map<string, Spend>();
  for (const line of lines) for (const group of groups(line)) sums.set(group, plus(sums.get(group) ?? NO_SPEND, line));
  return sums;
}

/** The rows of a query result summed per `group` column (over weeks or days). */
function actualBy(rows: ReadonlyArray<Record<string, unknown>>, group: string): Map<string, Spend> {
  const sums = new Map<string, Spend>();
  for (const row of rows) {
    const spend = {
      requests: Number(row.requests),
      tokens: Number(row.tokens),
      costNano: decimalToNano(String(row.cost_usd)),
    };
    sums.set(String(row[group]), plus(sums.get(String(row[group])) ?? NO_SPEND, spend));
  }
  return sums;
}

function queryTitled(prefix: string): string {
  const query = ANALYST_QUERIES.find((q) => q.title.startsWith(prefix));
  if (!query) throw new Error(`no analyst query titled ${prefix}…`);
  return query.sql;
}

describe.each(ENGINE_SETS)('attribution queries of the README on %s engines', (engines: EngineSet) => {
  let system: TestSystem;
  let team = '';
  let lines: Array<SentRequest & Spend> = [];

  beforeAll(async () => {
    system = await startTestSystem({
      settings: await isolatedEngineSettings(engines),
      channels: CHANNELS,
      prices: PRICES,
      controlPlaneView: keysInTeam(() => team),
    });
    await sendRequests(system, (teamId) => (team = teamId));
    await system.eventLog.flush();
    const countLines = async (): Promise<number> =>
      Number(
        (await system.analytics.query<{ n: string }>('SELECT toString(count()) AS n FROM billing_lines FINAL'))[0]?.n,
      );
    await eventually(countLines, SENT.length, 60_000);
    const billed = await system.analytics.query<{ request_id: string; tokens: string; cost: string }>(
      'SELECT request_id, toString(input_tokens + output_tokens) AS tokens, toString(cost_usd) AS cost FROM billing_lines FINAL',
    );
    const byRequest = new Map(billed.map((line) => [line.request_id, line]));
    lines = system.outcomes.map((outcome, index) => {
      const line = byRequest.get(outcome.requestId);
      if (!line) throw new Error(`no billing line for ${outcome.requestId}`);
      return { ...SENT[index]!, requests: 1, tokens: Number(line.tokens), costNano: decimalToNano(line.cost) };
    });
  }, 120_000);

  afterAll(async () => {
    await system?.close();
  }, 60_000);

  it('records each request once with the attribution it was sent with, in consumption_log and billing_lines', async () => {
    expect(system.outcomes.map((o) => o.attribution)).toEqual(SENT);
    expect(lines.every((line) => line.costNano > 0n)).toBe(true);
    for (const table of ['consumption_log', 'billing_lines']) {
      const rows = await system.analytics.query<{
        request_id: string;
        team_id: string;
        end_user_id: string;
        tags: string[];
      }>(`SELECT request_id, team_id, end_user_id, tags FROM ${table} FINAL`);
      const byRequest = new Map(rows.map((row) => [row.request_id, row]));
      expect(rows).toHaveLength(SENT.length);
      system.outcomes.forEach((outcome, index) =>
        expect(byRequest.get(outcome.requestId), table).toEqual({
          request_id: outcome.requestId,
          team_id: SENT[index]!.teamId,
          end_user_id: SENT[index]!.endUserId,
          tags: SENT[index]!.tags,
        }),
      );
    }
  });

  it('spend per team per week sums the lines of each team', async () => {
    const rows = await system.analytics.query<Record<string, unknown>>(queryTitled('Spend per team per week'));
    expect(actualBy(rows, 'team_id')).toEqual(expectedBy(lines, (line) => [line.teamId]));
  });

  it('spend per tag per day counts a request under each of its tags', async () => {
    const rows = await system.analytics.query<Record<string, unknown>>(queryTitled('Spend per tag per day'));
    const expected = expectedBy(lines, (line) => [...line.tags]);
    expect(actualBy(rows, 'tag')).toEqual(expected);
    expect(expected.get('env=prod')?.requests).toBe(SENT.length);
    expect(expected.get('feature=search')?.requests).toBe(2);
  });

  it('top end users ranks the end users by their cost', async () => {
    const rows = await system.analytics.query<Record<string, unknown>>(queryTitled('Top end users by cost'));
    const expected = expectedBy(lines, (line) => [line.endUserId]);
    expect(actualBy(rows, 'end_user_id')).toEqual(expected);
    const ranked = [...expected].sort(([a, x], [b, y]) =>
      x.costNano === y.costNano ? a.localeCompare(b) : x.costNano > y.costNano ? -1 : 1,
    );
    expect(rows.map((row) => row.end_user_id)).toEqual(ranked.map(([endUser]) => endUser));
  });
});

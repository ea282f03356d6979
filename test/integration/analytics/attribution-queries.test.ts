/**
 * The README's attribution queries (spend per team per week, per tag per day, top end users), word
 * for word from ANALYST_QUERIES, on both engine sets — Kafka + ClickHouse 18.16 + Redis, and the
 * embedded file log + chdb — after requests with known teams, end users and tags went through the
 * gateway in three client formats: every sum equals the billed lines of the requests it names.
 * The teams and their service keys are made through the admin API, as an operator makes them: a
 * request's team is its key's, its tags the team's default tags, then the key's, then the
 * request's header, and spend per team names each team from the `teams` dimension table.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const ADMIN_TOKEN = 'admin-token-for-attribution-queries-0123456789';
const CHANNELS = [{ id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] }];
const PRICES = [{ model: 'chat-model', inputPerMTok: 0.27, outputPerMTok: 1.1, effectiveFrom: '2020-01-01T00:00:00Z' }];

/** The two teams the test makes, by label: name and default tags (`env=staging` is replaced by the key's `env=prod`). */
const TEAMS = {
  search: { name: 'Search', tags: ['project=search', 'env=staging'] },
  support: { name: 'Support', tags: [] },
} as const;
type TeamLabel = keyof typeof TEAMS;

/** Default tags of each team's service key. */
const KEY_TAGS = ['env=prod'];

/** The attribution each recorded request must get, in sending order (the team by label). */
interface SentRequest {
  readonly team: TeamLabel;
  readonly endUserId: string;
  readonly tags: ReadonlyArray<string>;
}

const SENT: ReadonlyArray<SentRequest> = [
  { team: 'search', endUserId: 'eu-1', tags: ['project=search', 'env=prod', 'feature=search'] },
  { team: 'search', endUserId: 'eu-2', tags: ['project=search', 'env=prod', 'feature=chat', 'region=eu'] },
  { team: 'support', endUserId: 'eu-2', tags: ['env=prod', 'feature=search'] },
  { team: 'support', endUserId: 'eu-3', tags: ['env=prod'] },
  { team: 'support', endUserId: 'eu-1', tags: ['env=prod', 'feature=vision'] },
];

/** A team made through the admin API and its service key. */
interface MadeTeam {
  readonly teamId: string;
  readonly apiKey: string;
}

/** Calls the admin API; returns its JSON answer. @throws Error on a non-2xx answer */
async function admin(system: TestSystem, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${system.origin}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer: unknown = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Makes each team of TEAMS and a service key of it with KEY_TAGS, through the admin API; waits until the keys are accepted. */
async function makeTeams(system: TestSystem): Promise<Record<TeamLabel, MadeTeam>> {
  const made = {} as Record<TeamLabel, MadeTeam>;
  for (const label of Object.keys(TEAMS) as TeamLabel[]) {
    const { team } = (await admin(system, 'POST', '/teams', TEAMS[label])) as { team: { teamId: string } };
    const { apiKey } = (await admin(system, 'POST', '/keys', {
      name: `${TEAMS[label].name} service`,
      teamId: team.teamId,
      tags: KEY_TAGS,
    })) as { apiKey: string };
    made[label] = { teamId: team.teamId, apiKey };
  }
  const keyAccepted = async (): Promise<boolean[]> =>
    Promise.all(
      Object.values(made).map(
        async ({ apiKey }) =>
          (await fetch(`${system.origin}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } })).ok,
      ),
    );
  await eventually(keyAccepted, [true, true], 30_000);
  return made;
}

/** Sends SENT (and one refused request) in order, each with the service key of its team. */
async function sendRequests(system: TestSystem, teams: Record<TeamLabel, MadeTeam>): Promise<void> {
  const openai = (team: TeamLabel) =>
    new OpenAI({ apiKey: teams[team].apiKey, baseURL: `${system.origin}/v1`, maxRetries: 0 });
  const messages = [{ role: 'user' as const, content: 'Say something about attribution.' }];
  await openai('search').chat.completions.create(
    { model: 'chat-model', messages },
    { headers: { 'x-tollgate-end-user': 'eu-1', 'x-tollgate-tags': 'feature=search' } },
  );
  await openai('search').chat.completions.create(
    {
      model: 'chat-model',
      messages: [{ role: 'user', content: 'A longer question, about tags and end users.' }],
      user: 'eu-2',
    },
    { headers: { 'x-tollgate-tags': 'feature=chat,region=eu' } },
  );
  const anthropic = new Anthropic({ apiKey: teams.support.apiKey, baseURL: system.origin, maxRetries: 0 });
  await anthropic.messages.create(
    { model: 'chat-model', max_tokens: 64, messages, metadata: { user_id: 'eu-2' } },
    { headers: { 'x-tollgate-tags': 'feature=search' } },
  );
  const gemini = new GoogleGenAI({
    apiKey: teams.support.apiKey,
    httpOptions: { baseUrl: system.origin, headers: { 'x-tollgate-end-user': 'eu-3' } },
  });
  await gemini.models.generateContent({ model: 'chat-model', contents: 'Gemini asks about spend.' });
  await openai('support').chat.completions.create(
    { model: 'chat-model', messages, user: 'someone-else', safety_identifier: 'eu-1' },
    { headers: { 'x-tollgate-tags': 'feature=search,feature=vision' } },
  );
  // Refused before admission: no outcome, no line, in no sum.
  await expect(
    openai('support').chat.completions.create(
      { model: 'chat-model', messages },
      { headers: { 'x-tollgate-tags': 'feature' } },
    ),
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

/** A billed request: what it was sent as, its team's id, and its line's sums. */
type BilledRequest = SentRequest & Spend & { readonly teamId: string };

/** Sums `lines` into one Spend per group; a line in several groups (tags) counts in each. */
function expectedBy(
  lines: ReadonlyArray<BilledRequest>,
  groups: (line: BilledRequest) => string[],
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
  let teams: Record<TeamLabel, MadeTeam>;
  let lines: BilledRequest[] = [];

  /** SENT as the outcomes must carry it: each team label as its id. */
  const sentAttribution = () =>
    SENT.map(({ team, endUserId, tags }) => ({ teamId: teams[team].teamId, endUserId, tags }));

  beforeAll(async () => {
    system = await startTestSystem({
      settings: await isolatedEngineSettings(engines),
      channels: CHANNELS,
      prices: PRICES,
      adminToken: ADMIN_TOKEN,
    });
    teams = await makeTeams(system);
    await sendRequests(system, teams);
    await system.eventLog.flush();
    const count = (table: string) => async (): Promise<number> =>
      Number((await system.analytics.query<{ n: string }>(`SELECT toString(count()) AS n FROM ${table} FINAL`))[0]?.n);
    await eventually(count('billing_lines'), SENT.length, 60_000);
    await eventually(count('teams'), Object.keys(TEAMS).length, 60_000);
    const billed = await system.analytics.query<{ request_id: string; tokens: string; cost: string }>(
      'SELECT request_id, toString(input_tokens + output_tokens) AS tokens, toString(cost_usd) AS cost FROM billing_lines FINAL',
    );
    const byRequest = new Map(billed.map((line) => [line.request_id, line]));
    lines = system.outcomes.map((outcome, index) => {
      const line = byRequest.get(outcome.requestId);
      if (!line) throw new Error(`no billing line for ${outcome.requestId}`);
      const sent = SENT[index]!;
      return {
        ...sent,
        teamId: teams[sent.team].teamId,
        requests: 1,
        tokens: Number(line.tokens),
        costNano: decimalToNano(line.cost),
      };
    });
  }, 120_000);

  afterAll(async () => {
    await system?.close();
  }, 60_000);

  it("adds a team's default tags, then its key's, then the request's, in that order", async () => {
    // The first request: team tags project=search and env=staging, key tag env=prod (replacing
    // env=staging in its place), header tag feature=search.
    expect(system.outcomes[0]?.attribution).toEqual({
      teamId: teams.search.teamId,
      endUserId: 'eu-1',
      tags: ['project=search', 'env=prod', 'feature=search'],
    });
    // The defaults the gateway applied are the ones the dimension tables show.
    expect(
      await system.analytics.query(`SELECT name, tags FROM teams FINAL WHERE team_id = '${teams.search.teamId}'`),
    ).toEqual([{ name: 'Search', tags: ['project=search', 'env=staging'] }]);
    await eventually(
      () =>
        system.analytics.query("SELECT team_id, user_id, tags FROM keys FINAL WHERE team_id != '' ORDER BY team_id"),
      Object.values(teams)
        .map(({ teamId }) => ({ team_id: teamId, user_id: '', tags: KEY_TAGS }))
        .sort((a, b) => a.team_id.localeCompare(b.team_id)),
      30_000,
    );
  });

  it('records each request once with the attribution it was sent with, in consumption_log and billing_lines', async () => {
    const expected = sentAttribution();
    expect(system.outcomes.map((o) => o.attribution)).toEqual(expected);
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
          team_id: expected[index]!.teamId,
          end_user_id: expected[index]!.endUserId,
          tags: expected[index]!.tags,
        }),
      );
    }
  });

  it('spend per team per week sums the lines of each team, under its name', async () => {
    const rows = await system.analytics.query<Record<string, unknown>>(queryTitled('Spend per team per week'));
    expect(actualBy(rows, 'team_id')).toEqual(expectedBy(lines, (line) => [line.teamId]));
    expect(new Map(rows.map((row) => [row.team_id, row.team_name]))).toEqual(
      new Map((Object.keys(TEAMS) as TeamLabel[]).map((label) => [teams[label].teamId, TEAMS[label].name])),
    );
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

/**
 * The console's teams, budgets and alert webhooks over HTTP against a real gateway (in-process
 * app with the in-memory budget ledger and a budget clock the test sets): admins manage teams,
 * members, budgets and webhooks through the admin API's commands (each bad input a 400 naming the
 * field, nothing appended); a team admin manages the team's keys, a member sees them read-only, a
 * user outside the team sees nothing of it; budgets show their window's use (spent + held) and
 * reset time from the ledger, or `unknown` on a node without one.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBudgetLedger } from '../../../infra/state-store/memory/memory-budget-ledger.ts';
import { startTestGateway, type TestGateway } from '../../support/start-gateway.ts';

const ADMIN_TOKEN = `console-teams-${randomBytes(6).toString('hex')}`;
/** The budget clock: a Tuesday noon, UTC. */
const NOW = Date.parse('2031-03-11T12:00:00Z');
const ledger = createMemoryBudgetLedger();
let gateway: TestGateway;
let nextAddress = 1;

interface Answer {
  status: number;
  body: any;
}

/** A signed-in console client: session cookie and CSRF token, as the browser app keeps them. */
class ConsoleClient {
  cookie = '';
  csrf = '';
  readonly address = `198.51.100.${nextAddress++}`;
  constructor(private readonly origin: string) {}

  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.address };
    if (this.cookie) headers.cookie = this.cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && this.csrf) headers['x-csrf-token'] = this.csrf;
    const response = await fetch(`${this.origin}/console/api${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const setCookie = response.headers.get('set-cookie');
    if (setCookie?.startsWith('tollgate_session=')) this.cookie = setCookie.split(';')[0]!;
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  static async signIn(origin: string, login: string): Promise<ConsoleClient> {
    const client = new ConsoleClient(origin);
    const answer = await client.call('POST', '/session', { login, password: `${login}-password-1` });
    expect(answer.status).toBe(200);
    client.csrf = answer.body.csrfToken;
    return client;
  }
}

async function adminApi(origin: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${origin}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

/** Creates a user who can sign in as `login` with `<login>-password-1`; returns the user id. */
async function createUser(origin: string, login: string, role: 'admin' | 'user' = 'user'): Promise<string> {
  const created = await adminApi(origin, 'POST', '/users', {
    name: login,
    role,
    login,
    password: `${login}-password-1`,
  });
  expect(created.status).toBe(201);
  return created.body.user.userId as string;
}

let ada: ConsoleClient; // admin
let tina: ConsoleClient; // team admin of Alpha
let mo: ConsoleClient; // member of Alpha
let oscar: ConsoleClient; // in no team
const ids = { tina: '', mo: '', oscar: '', alpha: '', beta: '' };

/** Events in the config log so far (the audit's total). */
async function eventCount(): Promise<number> {
  return (await ada.call('GET', '/audit?limit=1')).body.total as number;
}

/** `call` answers 400 naming `field`, and appends nothing. */
async function expectRefused(call: () => Promise<Answer>, field: string): Promise<void> {
  const before = await eventCount();
  const answer = await call();
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.error.field).toBe(field);
  expect(answer.body.error.message).toContain(field.split('.')[0]);
  expect(await eventCount()).toBe(before);
}

beforeAll(async () => {
  gateway = await startTestGateway(
    { channels: [{ id: 'mock-a', provider: 'mock', protocol: 'openai-chat', models: ['mock-1', 'mock-2'] }] },
    { budgetLedger: ledger, budgetClock: () => NOW },
    { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN, TOLLGATE_TRUST_PROXY: '127.0.0.1' },
  );
  await createUser(gateway.origin, 'ada', 'admin');
  ids.tina = await createUser(gateway.origin, 'tina');
  ids.mo = await createUser(gateway.origin, 'momo');
  ids.oscar = await createUser(gateway.origin, 'oscar');
  ada = await ConsoleClient.signIn(gateway.origin, 'ada');
  tina = await ConsoleClient.signIn(gateway.origin, 'tina');
  mo = await ConsoleClient.signIn(gateway.origin, 'momo');
  oscar = await ConsoleClient.signIn(gateway.origin, 'oscar');
});

afterAll(async () => {
  await gateway?.close();
});

describe('teams', () => {
  it('lets an admin create teams and set members, refusing bad input with the field and appending nothing', async () => {
    const alpha = await ada.call('POST', '/teams', {
      name: 'Alpha',
      rpm: 100,
      models: ['mock-1'],
      tags: ['team=alpha'],
    });
    expect(alpha.status).toBe(201);
    expect(alpha.body.team).toMatchObject({
      name: 'Alpha',
      rpm: 100,
      models: ['mock-1'],
      tags: ['team=alpha'],
      members: [],
      keyCount: 0,
      access: 'admin',
      disabled: false,
    });
    ids.alpha = alpha.body.team.teamId;
    ids.beta = (await ada.call('POST', '/teams', { name: 'Beta' })).body.team.teamId;

    await expectRefused(() => ada.call('POST', '/teams', { name: 'Bad', rpm: 0 }), 'rpm');
    await expectRefused(() => ada.call('POST', '/teams', { name: 'Bad', tags: ['no-equals'] }), 'tags.0');
    await expectRefused(() => ada.call('POST', '/teams', { name: 'Bad', colour: 'red' }), 'colour');
    await expectRefused(() => ada.call('PUT', `/teams/${ids.alpha}/members/usr_nobody`, {}), 'userId');
    await expectRefused(() => ada.call('PUT', `/teams/${ids.alpha}/members/${ids.tina}`, { role: 'owner' }), 'role');

    expect((await ada.call('PUT', `/teams/${ids.alpha}/members/${ids.tina}`, { role: 'team_admin' })).status).toBe(200);
    const withMo = await ada.call('PUT', `/teams/${ids.alpha}/members/${ids.mo}`, {});
    expect(withMo.body.team.members).toEqual(
      expect.arrayContaining([
        { userId: ids.tina, role: 'team_admin', name: 'tina', login: 'tina' },
        { userId: ids.mo, role: 'member', name: 'momo', login: 'momo' },
      ]),
    );
    const renamed = await ada.call('PATCH', `/teams/${ids.beta}`, { name: 'Beta team', disabled: true });
    expect(renamed.body.team).toMatchObject({ name: 'Beta team', disabled: true });
    expect((await ada.call('PATCH', `/teams/${ids.beta}`, { disabled: false })).body.team.disabled).toBe(false);
    expect((await ada.call('PATCH', '/teams/team_nope', { name: 'x' })).status).toBe(404);
  });

  it('shows a user only their teams, with their access, and refuses them every team change', async () => {
    const names = async (client: ConsoleClient) =>
      ((await client.call('GET', '/teams')).body.teams as Array<{ name: string; access: string }>).map(
        (t) => `${t.name}:${t.access}`,
      );
    expect(await names(ada)).toEqual(['Alpha:admin', 'Beta team:admin']);
    expect(await names(tina)).toEqual(['Alpha:team_admin']);
    expect(await names(mo)).toEqual(['Alpha:member']);
    expect(await names(oscar)).toEqual([]);
    expect((await mo.call('GET', `/teams/${ids.alpha}`)).body.team.name).toBe('Alpha');
    expect((await tina.call('GET', `/teams/${ids.beta}`)).status).toBe(404);
    expect((await oscar.call('GET', `/teams/${ids.alpha}`)).status).toBe(404);

    const before = await eventCount();
    expect((await tina.call('POST', '/teams', { name: 'Mine' })).status).toBe(403);
    expect((await tina.call('PATCH', `/teams/${ids.alpha}`, { rpm: 1 })).status).toBe(403);
    expect((await tina.call('PUT', `/teams/${ids.alpha}/members/${ids.oscar}`, {})).status).toBe(403);
    expect((await mo.call('DELETE', `/teams/${ids.alpha}/members/${ids.tina}`)).status).toBe(403);
    expect(await eventCount()).toBe(before);
  });

  it('removes a member', async () => {
    const ghost = await createUser(gateway.origin, 'ghost');
    await ada.call('PUT', `/teams/${ids.beta}/members/${ghost}`, { role: 'member' });
    const removed = await ada.call('DELETE', `/teams/${ids.beta}/members/${ghost}`);
    expect(removed.status).toBe(200);
    expect(removed.body.team.members).toEqual([]);
    expect((await ada.call('DELETE', `/teams/${ids.beta}/members/${ghost}`)).status).toBe(404);
  });
});

describe("a team's keys", () => {
  const keys = { tinas: '', service: '', mos: '' };

  it('lets the team admin create keys of the team only', async () => {
    const own = await tina.call('POST', '/keys', { name: 'alpha-tina', teamId: ids.alpha });
    expect(own.status).toBe(201);
    expect(own.body.key).toMatchObject({ userId: ids.tina, teamId: ids.alpha, teamName: 'Alpha', canManage: true });
    keys.tinas = own.body.key.keyId;
    const service = await tina.call('POST', '/keys', { name: 'alpha-service', teamId: ids.alpha, userId: null });
    expect(service.status).toBe(201);
    expect(service.body.key).toMatchObject({ userId: null, teamId: ids.alpha });
    keys.service = service.body.key.keyId;
    keys.mos = (await mo.call('POST', '/keys', { name: 'mo-personal' })).body.key.keyId;

    const before = await eventCount();
    expect((await tina.call('POST', '/keys', { name: 'beta-key', teamId: ids.beta })).status).toBe(403);
    expect((await tina.call('POST', '/keys', { name: 'for-oscar', teamId: ids.alpha, userId: ids.oscar })).status).toBe(
      403,
    );
    expect((await mo.call('POST', '/keys', { name: 'alpha-mo', teamId: ids.alpha })).status).toBe(403);
    expect((await oscar.call('POST', '/keys', { name: 'alpha-oscar', teamId: ids.alpha })).status).toBe(403);
    expect(await eventCount()).toBe(before);
    // The command's own checks still answer with the field: a model outside the team's allowlist.
    await expectRefused(
      () => tina.call('POST', '/keys', { name: 'wide', teamId: ids.alpha, models: ['mock-2'] }),
      'models',
    );
  });

  it("shows the team's keys to its members, manageable by the team admin alone", async () => {
    const listed = async (client: ConsoleClient, query = '') =>
      ((await client.call('GET', `/keys${query}`)).body.keys as Array<{ name: string; canManage: boolean }>)
        .map((k) => `${k.name}:${k.canManage}`)
        .sort();
    expect(await listed(tina)).toEqual(['alpha-service:true', 'alpha-tina:true']);
    expect(await listed(mo)).toEqual(['alpha-service:false', 'alpha-tina:false', 'mo-personal:true']);
    expect(await listed(oscar)).toEqual([]);
    expect(await listed(ada, `?teamId=${ids.alpha}`)).toEqual(['alpha-service:true', 'alpha-tina:true']);

    expect((await tina.call('PATCH', `/keys/${keys.service}`, { rpm: 10 })).body.key.rpm).toBe(10);
    const before = await eventCount();
    expect((await mo.call('PATCH', `/keys/${keys.service}`, { rpm: 1 })).status).toBe(403);
    expect((await mo.call('POST', `/keys/${keys.tinas}/revoke`, {})).status).toBe(403);
    expect((await oscar.call('PATCH', `/keys/${keys.service}`, { rpm: 1 })).status).toBe(404);
    expect((await tina.call('PATCH', `/keys/${keys.mos}`, { rpm: 1 })).status).toBe(404);
    expect((await tina.call('PATCH', `/keys/${keys.service}`, { teamId: ids.beta })).status).toBe(403);
    expect((await tina.call('PATCH', `/keys/${keys.service}`, { teamId: null })).status).toBe(403);
    expect((await mo.call('PATCH', `/keys/${keys.mos}`, { teamId: ids.alpha })).status).toBe(403);
    expect(await eventCount()).toBe(before);

    const rotated = await tina.call('POST', `/keys/${keys.service}/rotate`, { graceSeconds: 0 });
    expect(rotated.status).toBe(201);
    expect(rotated.body.key).toMatchObject({ teamId: ids.alpha, userId: null });
    expect((await tina.call('POST', `/keys/${rotated.body.key.keyId}/revoke`, {})).body.key.status).toBe('revoked');
    expect((await ada.call('GET', `/teams/${ids.alpha}`)).body.team.keyCount).toBe(3);
  });
});

describe('budgets', () => {
  let teamBudget = '';

  it('lets an admin set a budget, shown with its window, reset time and use', async () => {
    const created = await ada.call('POST', '/budgets', {
      name: 'alpha daily',
      scope: 'team',
      scopeId: ids.alpha,
      limitUsd: '10',
      period: 'day',
      thresholds: [80, 50],
      downgradeModel: 'mock-2',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.budget).toMatchObject({
      scope: 'team',
      scopeId: ids.alpha,
      scopeName: 'Alpha',
      limitUsd: '10',
      limitTokens: null,
      period: 'day',
      timeZone: 'UTC',
      thresholds: [50, 80],
      downgradeModel: 'mock-2',
      use: {
        state: 'known',
        windowStart: '2031-03-11T00:00:00.000Z',
        resetsAt: '2031-03-12T00:00:00.000Z',
        limitUsd: '10',
        spentUsd: '0',
        heldUsd: '0',
        percent: 0,
      },
    });
    teamBudget = created.body.budget.budgetId;
    const weekly = await ada.call('POST', '/budgets', {
      name: 'oscar weekly tokens',
      scope: 'user',
      scopeId: ids.oscar,
      limitTokens: 1000,
      period: 'week',
      timeZone: 'Europe/Berlin',
    });
    expect(weekly.body.budget.use).toMatchObject({
      windowStart: '2031-03-09T23:00:00.000Z',
      resetsAt: '2031-03-16T23:00:00.000Z',
      percent: 0,
    });
    const lifetime = await ada.call('POST', '/budgets', {
      name: 'tag forever',
      scope: 'tag',
      scopeId: 'feature=search',
      limitUsd: '1',
      period: 'lifetime',
    });
    expect(lifetime.body.budget.use).toMatchObject({ windowStart: null, resetsAt: null });
    const rolling = await ada.call('POST', '/budgets', {
      name: 'end user hourly',
      scope: 'end_user',
      scopeId: 'customer-42',
      limitUsd: '0.5',
      period: 'rolling',
      rollingMs: 3_600_000,
    });
    expect(rolling.status).toBe(201);
  });

  it('refuses bad budgets with a 400 naming the field and appends nothing', async () => {
    const base = { name: 'b', scope: 'team', scopeId: ids.alpha, limitUsd: '1', period: 'day' };
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, scope: 'planet' }), 'scope');
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, period: 'fortnight' }), 'period');
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, limitUsd: '-1' }), 'limitUsd');
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, thresholds: [0] }), 'thresholds.0');
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, thresholds: [101] }), 'thresholds.0');
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, scopeId: 'team_nope' }), 'scopeId');
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, timeZone: 'Mars/Olympus' }), 'timeZone');
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, period: 'rolling' }), 'rollingMs');
    await expectRefused(() => ada.call('POST', '/budgets', { ...base, limitUsd: null }), 'limitUsd');
    await expectRefused(() => ada.call('PATCH', `/budgets/${teamBudget}`, { scopeId: ids.beta }), 'scopeId');
    const filtered = await ada.call('GET', '/budgets?scope=galaxy');
    expect(filtered).toMatchObject({ status: 400, body: { error: { field: 'scope' } } });
  });

  it('shows the use of the window from the ledger: spent and held, as a percent of the limit', async () => {
    const counter = {
      budgetId: teamBudget,
      windowStartMs: Date.parse('2031-03-11T00:00:00Z'),
      windowEndMs: Date.parse('2031-03-12T00:00:00Z'),
    };
    const held = await ledger.reserve(
      'req_console_1',
      [
        {
          counter,
          limitNanoUsd: 10_000_000_000n,
          limitTokens: null,
          reserveNanoUsd: 2_500_000_000n,
          reserveTokens: 10,
        },
      ],
      NOW + 60_000,
      NOW,
    );
    expect(held.ok).toBe(true);
    const uses = await tina.call('GET', `/budgets/use?scope=team&scopeId=${ids.alpha}`);
    expect(uses.status).toBe(200);
    expect(uses.body.uses).toEqual([
      {
        budgetId: teamBudget,
        state: 'known',
        windowStart: '2031-03-11T00:00:00.000Z',
        resetsAt: '2031-03-12T00:00:00.000Z',
        limitUsd: '10',
        limitTokens: null,
        spentUsd: '0',
        spentTokens: 0,
        heldUsd: '2.5',
        heldTokens: 10,
        percent: 25,
      },
    ]);
    const changed = await ada.call('PATCH', `/budgets/${teamBudget}`, { limitUsd: '5' });
    expect(changed.body.budget).toMatchObject({ limitUsd: '5', use: { heldUsd: '2.5', percent: 50 } });
  });

  it('shows a user the budgets on themselves, their teams and their keys, read-only; admins every one', async () => {
    const scopes = async (client: ConsoleClient) =>
      ((await client.call('GET', '/budgets')).body.budgets as Array<{ name: string }>).map((b) => b.name).sort();
    expect(await scopes(ada)).toEqual(['alpha daily', 'end user hourly', 'oscar weekly tokens', 'tag forever']);
    expect(await scopes(tina)).toEqual(['alpha daily']);
    expect(await scopes(mo)).toEqual(['alpha daily']);
    expect(await scopes(oscar)).toEqual(['oscar weekly tokens']);
    expect((await oscar.call('GET', `/budgets/${teamBudget}`)).status).toBe(404);
    expect((await mo.call('GET', `/budgets/${teamBudget}`)).body.budget.name).toBe('alpha daily');

    const before = await eventCount();
    const base = { name: 'mine', scope: 'team', scopeId: ids.alpha, limitUsd: '100', period: 'month' };
    expect((await tina.call('POST', '/budgets', base)).status).toBe(403);
    expect((await tina.call('PATCH', `/budgets/${teamBudget}`, { limitUsd: '100' })).status).toBe(403);
    expect((await tina.call('DELETE', `/budgets/${teamBudget}`)).status).toBe(403);
    expect(await eventCount()).toBe(before);
  });

  it('removes a budget', async () => {
    const budgets = (await ada.call('GET', '/budgets?scope=end_user')).body.budgets as Array<{ budgetId: string }>;
    expect(budgets).toHaveLength(1);
    expect((await ada.call('DELETE', `/budgets/${budgets[0]!.budgetId}`)).body).toEqual({
      removed: budgets[0]!.budgetId,
    });
    expect((await ada.call('GET', '/budgets?scope=end_user')).body.budgets).toEqual([]);
  });
});

describe('alert webhooks', () => {
  it('creates a webhook whose secret is shown once, lists and removes it, for admins only', async () => {
    await expectRefused(() => ada.call('POST', '/alert-webhooks', { name: 'x', url: 'ftp://example.com' }), 'url');
    await expectRefused(
      () => ada.call('POST', '/alert-webhooks', { name: 'x', url: 'https://example.com', format: 'xml' }),
      'format',
    );
    const created = await ada.call('POST', '/alert-webhooks', {
      name: 'ops',
      url: 'https://hooks.example.com/tollgate',
      format: 'slack',
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body.alertWebhook).toMatchObject({ name: 'ops', format: 'slack', enabled: true, hasSecret: true });
    const listed = await ada.call('GET', '/alert-webhooks');
    expect(listed.body.alertWebhooks).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    expect(JSON.stringify((await ada.call('GET', '/audit?limit=200')).body)).not.toContain(created.body.secret);
    const id = created.body.alertWebhook.webhookId;
    expect((await ada.call('PATCH', `/alert-webhooks/${id}`, { enabled: false })).body.alertWebhook.enabled).toBe(
      false,
    );
    expect((await tina.call('GET', '/alert-webhooks')).status).toBe(403);
    expect((await tina.call('POST', '/alert-webhooks', { name: 'x', url: 'https://example.com' })).status).toBe(403);
    expect((await tina.call('DELETE', `/alert-webhooks/${id}`)).status).toBe(403);
    expect((await ada.call('DELETE', `/alert-webhooks/${id}`)).body).toEqual({ removed: id });
    expect((await ada.call('GET', '/alert-webhooks')).body.alertWebhooks).toEqual([]);
  });
});

describe('team usage', () => {
  it('lets members ask for their team only (503 here: this node has no analytics store)', async () => {
    expect((await oscar.call('GET', `/usage?teamId=${ids.alpha}`)).status).toBe(403);
    expect((await oscar.call('GET', `/spend/attribution?teamId=${ids.alpha}`)).status).toBe(403);
    expect((await tina.call('GET', '/spend?teamId=team_nope')).status).toBe(404);
    expect((await mo.call('GET', `/spend/attribution?teamId=${ids.alpha}`)).status).toBe(503);
    expect(await ada.call('GET', '/spend/attribution?from=2031-03-02T00:00:00Z&to=2031-03-01T00:00:00Z')).toMatchObject(
      { status: 400, body: { error: { field: 'from' } } },
    );
  });
});

describe('a node without a budget ledger', () => {
  it('shows budgets with their window and an unknown use', async () => {
    const bare = await startTestGateway({ channels: [] }, {}, { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN });
    try {
      await createUser(bare.origin, 'root', 'admin');
      const team = await adminApi(bare.origin, 'POST', '/teams', { name: 'Solo' });
      await adminApi(bare.origin, 'POST', '/budgets', {
        name: 'solo',
        scope: 'team',
        scopeId: team.body.team.teamId,
        limitUsd: '1',
        period: 'month',
      });
      const root = await ConsoleClient.signIn(bare.origin, 'root');
      const listed = await root.call('GET', '/budgets');
      expect(listed.body.budgets[0].use).toMatchObject({
        state: 'unknown',
        limitUsd: '1',
        spentUsd: null,
        heldUsd: null,
        percent: null,
      });
      expect(listed.body.budgets[0].use.resetsAt).toMatch(/^\d{4}-\d\d-01T00:00:00\.000Z$/);
    } finally {
      await bare.close();
    }
  });
});

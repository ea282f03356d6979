/**
 * The admin API's team, budget and alert-webhook routes through Fastify's inject: the happy
 * paths with their answers, filters, the webhook secret shown only by its creation, and bad
 * input answering 400 naming the field with nothing appended.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH, buildAdminTestApp, type AdminTestApp } from './admin-app.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

const NOW = Date.parse('2026-05-01T00:00:00Z');

async function setup(budgetTimeZone?: string) {
  const built: AdminTestApp = await buildAdminTestApp({
    now: () => NOW,
    ...(budgetTimeZone ? { budgetTimeZone } : {}),
  });
  apps.push(built.app);
  const call = async (options: InjectOptions) => {
    const response = await built.app.inject({ ...options, headers: { ...AUTH, ...options.headers } });
    return { status: response.statusCode, body: response.body ? response.json<any>() : undefined };
  };
  return { ...built, call };
}

describe('teams', () => {
  it('creates, lists, updates, disables a team and manages its members', async () => {
    const { call } = await setup();
    const user = (await call({ method: 'POST', url: '/admin/api/users', payload: { name: 'Ada' } })).body.user;
    const created = await call({
      method: 'POST',
      url: '/admin/api/teams',
      payload: { name: 'Search', rpm: 60, models: ['m1'], tags: ['project=search'] },
    });
    expect(created.status).toBe(201);
    const team = created.body.team;
    expect(team).toEqual({
      teamId: team.teamId,
      name: 'Search',
      rpm: 60,
      tpm: null,
      rpd: null,
      tpd: null,
      models: ['m1'],
      modelLimits: [],
      tags: ['project=search'],
      disabled: false,
      members: [],
      createdAt: '2026-05-01T00:00:00.000Z',
    });
    expect((await call({ method: 'GET', url: '/admin/api/teams' })).body.teams).toEqual([team]);
    const joined = await call({
      method: 'PUT',
      url: `/admin/api/teams/${team.teamId}/members/${user.userId}`,
      payload: { role: 'team_admin' },
    });
    expect(joined.body.team.members).toEqual([{ userId: user.userId, role: 'team_admin' }]);
    const disabled = await call({
      method: 'PATCH',
      url: `/admin/api/teams/${team.teamId}`,
      payload: { disabled: true },
    });
    expect(disabled.body.team).toMatchObject({ disabled: true, name: 'Search', members: [{ userId: user.userId }] });
    const left = await call({ method: 'DELETE', url: `/admin/api/teams/${team.teamId}/members/${user.userId}` });
    expect(left.body.team.members).toEqual([]);
    expect((await call({ method: 'GET', url: '/admin/api/teams/team_nope' })).status).toBe(404);
  });

  it('keys take a team, tags and limits; a model outside the team’s is refused by name', async () => {
    const { call, controlPlane } = await setup();
    const team = (await call({ method: 'POST', url: '/admin/api/teams', payload: { name: 'T', models: ['m1'] } })).body
      .team;
    const created = await call({
      method: 'POST',
      url: '/admin/api/keys',
      payload: { name: 'svc', teamId: team.teamId, tags: ['a=b'], rpd: 5, modelLimits: [{ model: 'm1', rpm: 2 }] },
    });
    expect(created.body.key).toMatchObject({
      teamId: team.teamId,
      tags: ['a=b'],
      rpd: 5,
      tpd: null,
      modelLimits: [{ model: 'm1', rpm: 2, tpm: null, rpd: null, tpd: null }],
    });
    const published = controlPlane.published.length;
    const refused = await call({
      method: 'POST',
      url: '/admin/api/keys',
      payload: { name: 'svc', teamId: team.teamId, models: ['m2'] },
    });
    expect(refused).toEqual({
      status: 400,
      body: { error: { message: `models: 'm2' is not among the models of team '${team.teamId}'`, field: 'models' } },
    });
    expect(controlPlane.published.length).toBe(published);
  });
});

describe('budgets', () => {
  it('creates budgets with the configured time zone, filters them by scope, changes and removes them', async () => {
    const { call } = await setup('Asia/Tokyo');
    const team = (await call({ method: 'POST', url: '/admin/api/teams', payload: { name: 'T' } })).body.team;
    const created = await call({
      method: 'POST',
      url: '/admin/api/budgets',
      payload: { name: 'daily', scope: 'team', scopeId: team.teamId, limitUsd: 10, period: 'day', thresholds: [50] },
    });
    expect(created.status).toBe(201);
    const budget = created.body.budget;
    expect(budget).toEqual({
      budgetId: budget.budgetId,
      name: 'daily',
      scope: 'team',
      scopeId: team.teamId,
      limitUsd: '10',
      limitTokens: null,
      period: 'day',
      rollingMs: null,
      timeZone: 'Asia/Tokyo',
      thresholds: [50],
      downgradeModel: null,
      createdAt: '2026-05-01T00:00:00.000Z',
    });
    const tagged = await call({
      method: 'POST',
      url: '/admin/api/budgets',
      payload: { name: 'tag', scope: 'tag', scopeId: 'feature=x', limitTokens: 1000, period: 'lifetime' },
    });
    const list = async (query: string) =>
      (await call({ method: 'GET', url: `/admin/api/budgets${query}` })).body.budgets.map(
        (b: { budgetId: string }) => b.budgetId,
      );
    expect(await list('')).toEqual([budget.budgetId, tagged.body.budget.budgetId]);
    expect(await list(`?scope=team&scopeId=${team.teamId}`)).toEqual([budget.budgetId]);
    expect(await list('?scope=tag')).toEqual([tagged.body.budget.budgetId]);
    expect(await list('?scopeId=feature%3Dx')).toEqual([tagged.body.budget.budgetId]);
    expect(await call({ method: 'GET', url: '/admin/api/budgets?scope=org' })).toEqual({
      status: 400,
      body: { error: { message: "scope: must be one of 'key', 'user', 'team', 'end_user', 'tag'", field: 'scope' } },
    });
    const changed = await call({
      method: 'PUT',
      url: `/admin/api/budgets/${budget.budgetId}`,
      payload: { limitUsd: '20.5', thresholds: [50, 90] },
    });
    expect(changed.body.budget).toMatchObject({ limitUsd: '20.5', thresholds: [50, 90], period: 'day' });
    expect((await call({ method: 'DELETE', url: `/admin/api/budgets/${budget.budgetId}` })).body).toEqual({
      removed: budget.budgetId,
    });
    expect((await call({ method: 'GET', url: `/admin/api/budgets/${budget.budgetId}` })).status).toBe(404);
  });

  it.each([
    [{ name: 'b', scope: 'team', scopeId: 'team_nope', limitUsd: 1, period: 'day' }, 'scopeId'],
    [{ name: 'b', scope: 'tag', scopeId: 'a=b', limitUsd: 1, period: 'fortnight' }, 'period'],
    [{ name: 'b', scope: 'tag', scopeId: 'a=b', limitUsd: -1, period: 'day' }, 'limitUsd'],
    [{ name: 'b', scope: 'tag', scopeId: 'a=b', limitUsd: 1, period: 'day', thresholds: [150] }, 'thresholds.0'],
  ])('POST /budgets %j → 400 on %s, nothing appended', async (payload, field) => {
    const { call, controlPlane } = await setup();
    const answer = await call({ method: 'POST', url: '/admin/api/budgets', payload });
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe(field);
    expect(answer.body.error.message.startsWith(`${field}: `)).toBe(true);
    expect(controlPlane.published).toEqual([]);
  });
});

describe('alert webhooks', () => {
  it('shows the signing secret once, then only hasSecret', async () => {
    const { call, controlPlane } = await setup();
    const created = await call({
      method: 'POST',
      url: '/admin/api/alert-webhooks',
      payload: { name: 'ops', url: 'https://hooks.example.com/t', format: 'slack' },
    });
    expect(created.status).toBe(201);
    const { alertWebhook, secret } = created.body;
    expect(secret).toMatch(/^whsec_/);
    expect(alertWebhook).toEqual({
      webhookId: alertWebhook.webhookId,
      name: 'ops',
      url: 'https://hooks.example.com/t',
      format: 'slack',
      enabled: true,
      hasSecret: true,
      createdAt: '2026-05-01T00:00:00.000Z',
    });
    const listed = await call({ method: 'GET', url: '/admin/api/alert-webhooks' });
    expect(listed.body).toEqual({ alertWebhooks: [alertWebhook] });
    const audit = JSON.stringify(controlPlane.history());
    expect(audit).not.toContain(secret.slice(6));
    expect(audit).not.toContain('secretCiphertext');
    expect(
      (
        await call({
          method: 'PATCH',
          url: `/admin/api/alert-webhooks/${alertWebhook.webhookId}`,
          payload: { enabled: false },
        })
      ).body.alertWebhook.enabled,
    ).toBe(false);
    expect((await call({ method: 'DELETE', url: `/admin/api/alert-webhooks/${alertWebhook.webhookId}` })).body).toEqual(
      {
        removed: alertWebhook.webhookId,
      },
    );
    const refused = await call({
      method: 'POST',
      url: '/admin/api/alert-webhooks',
      payload: { name: 'x', url: 'ftp://x' },
    });
    expect(refused).toEqual({ status: 400, body: { error: { message: 'url: must be an http(s) URL', field: 'url' } } });
  });
});

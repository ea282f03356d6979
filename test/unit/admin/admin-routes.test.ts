/**
 * The admin HTTP API through Fastify's inject, on an app with the gateway's own catch-all JSON
 * parser and global client-format error handler: authentication (disabled, missing, wrong),
 * malformed and oversized bodies, unknown routes and ids, conflicts — each with its exact status
 * and `{error:{message, field?}}` — and the happy paths, whose answers never contain a secret.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { isAdminRoute, renderAdminError } from '../../../gateway/control-plane/admin-errors.ts';
import { CommandError } from '../../../gateway/control-plane/commands.ts';
import { digestApiKey } from '../../../gateway/control-plane/key-material.ts';
import { AUTH, buildAdminTestApp, HMAC_SECRET, type AdminTestApp } from './admin-app.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function setup(overrides: Parameters<typeof buildAdminTestApp>[0] = {}): Promise<
  AdminTestApp & {
    call: (options: InjectOptions) => Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  }
> {
  const built = await buildAdminTestApp(overrides);
  apps.push(built.app);
  const call = async (options: InjectOptions) => {
    const response = await built.app.inject({ ...options, headers: { ...AUTH, ...options.headers } });
    return {
      status: response.statusCode,
      body: response.body ? response.json() : undefined,
      headers: response.headers,
    };
  };
  return { ...built, call };
}

const ROUTES: Array<[InjectOptions['method'], string]> = [
  ['GET', '/admin/api/whoami'],
  ['GET', '/admin/api/users'],
  ['POST', '/admin/api/users'],
  ['PATCH', '/admin/api/users/u1'],
  ['GET', '/admin/api/keys'],
  ['POST', '/admin/api/keys'],
  ['PATCH', '/admin/api/keys/k1'],
  ['POST', '/admin/api/keys/k1/revoke'],
  ['POST', '/admin/api/keys/k1/rotate'],
  ['GET', '/admin/api/channels'],
  ['PUT', '/admin/api/channels/c1'],
  ['DELETE', '/admin/api/channels/c1'],
  ['GET', '/admin/api/prices'],
  ['PUT', '/admin/api/prices'],
  ['PUT', '/admin/api/prices/p1'],
  ['GET', '/admin/api/admin-tokens'],
  ['POST', '/admin/api/admin-tokens'],
  ['POST', '/admin/api/admin-tokens/adm_1/revoke'],
  ['GET', '/admin/api/teams'],
  ['POST', '/admin/api/teams'],
  ['PATCH', '/admin/api/teams/team_1'],
  ['PUT', '/admin/api/teams/team_1/members/u1'],
  ['DELETE', '/admin/api/teams/team_1/members/u1'],
  ['GET', '/admin/api/budgets'],
  ['POST', '/admin/api/budgets'],
  ['PUT', '/admin/api/budgets/bgt_1'],
  ['DELETE', '/admin/api/budgets/bgt_1'],
  ['GET', '/admin/api/alert-webhooks'],
  ['POST', '/admin/api/alert-webhooks'],
  ['DELETE', '/admin/api/alert-webhooks/whk_1'],
  ['GET', '/admin/api/nope'],
];

describe('authentication', () => {
  it.each([[undefined], ['']])(
    'admin token %j: every admin route answers 403 "admin API disabled"',
    async (adminToken) => {
      const { app } = await setup({ adminToken });
      for (const [method, url] of ROUTES) {
        const response = await app.inject({ method, url, headers: AUTH, payload: { name: 'x' } });
        expect([method, url, response.statusCode, response.json()]).toEqual([
          method,
          url,
          403,
          { error: { message: 'admin API disabled: set TOLLGATE_ADMIN_TOKEN' } },
        ]);
      }
    },
  );

  it.each([
    [{}, 'missing admin token: send Authorization: Bearer <TOLLGATE_ADMIN_TOKEN or a personal admin token>'],
    [
      { authorization: 'Basic YWRtaW46YWRtaW4=' },
      'missing admin token: send Authorization: Bearer <TOLLGATE_ADMIN_TOKEN or a personal admin token>',
    ],
    [
      { authorization: 'Bearer' },
      'missing admin token: send Authorization: Bearer <TOLLGATE_ADMIN_TOKEN or a personal admin token>',
    ],
    [{ authorization: 'Bearer wrong' }, 'invalid admin token'],
    [{ authorization: 'Bearer admin-token-for-tests-012345678' }, 'invalid admin token'],
    [{ authorization: 'Bearer admin-token-for-tests-01234567890' }, 'invalid admin token'],
    [
      { 'x-api-key': 'admin-token-for-tests-0123456789' },
      'missing admin token: send Authorization: Bearer <TOLLGATE_ADMIN_TOKEN or a personal admin token>',
    ],
  ])('headers %j → 401 on every route', async (headers, message) => {
    const { app } = await setup();
    for (const [method, url] of ROUTES) {
      const response = await app.inject({
        method,
        url,
        headers: headers as Record<string, string>,
        payload: '{not json',
      });
      expect([url, response.statusCode, response.json(), response.headers['www-authenticate']]).toEqual([
        url,
        401,
        { error: { message } },
        'Bearer realm="tollgate-admin"',
      ]);
    }
  });

  it('accepts the token case-insensitively on the scheme and answers whoami', async () => {
    const { call } = await setup();
    expect(
      await call({
        method: 'GET',
        url: '/admin/api/whoami',
        headers: { authorization: 'bearer admin-token-for-tests-0123456789' },
      }),
    ).toMatchObject({
      status: 200,
      body: { actor: 'bootstrap-token', role: 'admin', auth: 'bootstrap-token', tokenId: null },
    });
  });
});

describe('malformed requests', () => {
  it.each([
    ['{"name":', 'application/json'],
    ['{name: "x"}', 'application/json'],
    ['name=x', 'application/x-www-form-urlencoded'],
  ])('body %j (%s) → 400 malformed JSON', async (payload, type) => {
    const { call } = await setup();
    const response = await call({
      method: 'POST',
      url: '/admin/api/users',
      payload,
      headers: { 'content-type': type },
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.error)).toEqual(['message']);
    expect(response.body.error.message).toMatch(/^malformed JSON in request body: /);
  });

  it('empty JSON body → 400, oversized body → 413, non-object bodies → 400', async () => {
    const { call } = await setup();
    expect(
      await call({
        method: 'POST',
        url: '/admin/api/users',
        payload: '',
        headers: { 'content-type': 'application/json' },
      }),
    ).toMatchObject({ status: 400, body: { error: { message: 'request body is empty: send a JSON object' } } });
    expect(await call({ method: 'POST', url: '/admin/api/users', payload: { name: 'x'.repeat(5000) } })).toMatchObject({
      status: 413,
      body: { error: { message: 'request body is too large' } },
    });
    for (const payload of ['[]', '"x"', '42', 'null']) {
      expect(
        await call({
          method: 'POST',
          url: '/admin/api/users',
          payload,
          headers: { 'content-type': 'application/json' },
        }),
      ).toEqual({
        status: 400,
        body: { error: { message: 'request body: must be a JSON object' } },
        headers: expect.anything(),
      });
    }
    // Fastify's own text/plain parser hands over a string: still a clean 400.
    expect(
      await call({
        method: 'POST',
        url: '/admin/api/users',
        payload: '{"name":"x"}',
        headers: { 'content-type': 'text/plain' },
      }),
    ).toMatchObject({ status: 400, body: { error: { message: 'request body: must be a JSON object' } } });
  });

  it('unknown routes and methods under /admin/api → 404 in the admin shape', async () => {
    const { call } = await setup();
    expect(await call({ method: 'GET', url: '/admin/api/nope?x=1' })).toMatchObject({
      status: 404,
      body: { error: { message: 'unknown admin route: GET /admin/api/nope' } },
    });
    expect(await call({ method: 'DELETE', url: '/admin/api/users' })).toMatchObject({
      status: 404,
      body: { error: { message: 'unknown admin route: DELETE /admin/api/users' } },
    });
  });

  it.each([
    ['POST', '/admin/api/users', { name: 'a', rpm: -1 }, 'rpm', 'rpm: must be a positive integer or null'],
    ['POST', '/admin/api/users', { name: 'a', admin: true }, 'admin', "unknown field 'admin'"],
    [
      'POST',
      '/admin/api/keys',
      { name: 'k', quotaUsd: 'lots' },
      'quotaUsd',
      'quotaUsd: must be a USD amount ≥ 0 with at most 9 decimal places',
    ],
    [
      'POST',
      '/admin/api/keys',
      { name: 'k', expiresAt: '2001-01-01T00:00:00Z' },
      'expiresAt',
      'expiresAt: must be in the future',
    ],
    ['PUT', '/admin/api/channels/c1', { provider: 'mock', models: ['m'], weight: -2 }, 'weight', 'weight: must be > 0'],
    ['PUT', '/admin/api/prices', { model: 'm', inputPerMTok: 1 }, 'outputPerMTok', 'outputPerMTok: is required'],
  ])('%s %s %j → 400 naming %s', async (method, url, payload, field, message) => {
    const { call } = await setup();
    expect(await call({ method: method, url, payload })).toMatchObject({
      status: 400,
      body: { error: { message, field } },
    });
  });
});

describe('unknown ids and conflicts', () => {
  it.each([
    ['GET', '/admin/api/users/usr_x', undefined, "user 'usr_x' not found"],
    ['PATCH', '/admin/api/users/usr_x', { name: 'a' }, "user 'usr_x' not found"],
    ['GET', '/admin/api/keys/key_x', undefined, "key 'key_x' not found"],
    ['PATCH', '/admin/api/keys/key_x', { name: 'a' }, "key 'key_x' not found"],
    ['POST', '/admin/api/keys/key_x/revoke', undefined, "key 'key_x' not found"],
    ['POST', '/admin/api/keys/key_x/rotate', {}, "key 'key_x' not found"],
    ['GET', '/admin/api/channels/ch_x', undefined, "channel 'ch_x' not found"],
    ['DELETE', '/admin/api/channels/ch_x', undefined, "channel 'ch_x' not found"],
  ])('%s %s → 404', async (method, url, payload, message) => {
    const { call } = await setup();
    expect(await call({ method: method, url, ...(payload ? { payload } : {}) })).toMatchObject({
      status: 404,
      body: { error: { message, field: 'id' } },
    });
  });

  it('a key for an unknown user → 404 on userId; revoking twice and rotating a revoked key → 409', async () => {
    const { call } = await setup();
    expect(
      await call({ method: 'POST', url: '/admin/api/keys', payload: { name: 'k', userId: 'usr_ghost' } }),
    ).toMatchObject({ status: 404, body: { error: { message: "user 'usr_ghost' not found", field: 'userId' } } });
    const { body } = await call({ method: 'POST', url: '/admin/api/keys', payload: { name: 'k' } });
    const id = body.key.keyId;
    expect((await call({ method: 'POST', url: `/admin/api/keys/${id}/revoke` })).status).toBe(200);
    expect(await call({ method: 'POST', url: `/admin/api/keys/${id}/revoke`, payload: {} })).toMatchObject({
      status: 409,
      body: { error: { message: `key '${id}' is already revoked`, field: 'id' } },
    });
    expect(
      await call({ method: 'POST', url: `/admin/api/keys/${id}/rotate`, payload: { graceSeconds: 10 } }),
    ).toMatchObject({
      status: 409,
      body: { error: { message: `key '${id}' is already revoked and cannot be rotated`, field: 'id' } },
    });
    expect(await call({ method: 'PATCH', url: `/admin/api/keys/${id}`, payload: { rpm: 5 } })).toMatchObject({
      status: 409,
      body: { error: { field: 'id' } },
    });
  });
});

describe('happy paths', () => {
  it('users: create, list, update; actor is the token, never the x-tollgate-actor header', async () => {
    const { call, controlPlane } = await setup();
    const created = await call({
      method: 'POST',
      url: '/admin/api/users',
      payload: { name: 'Ada', role: 'admin', rpm: 60, quotaUsd: '10.5' },
      headers: { 'x-tollgate-actor': 'cli' },
    });
    expect(created).toMatchObject({
      status: 201,
      body: { user: { name: 'Ada', role: 'admin', rpm: 60, tpm: null, quotaUsd: '10.5', disabled: false } },
    });
    const id = created.body.user.userId;
    expect(controlPlane.published[0]!.event.actor).toBe('bootstrap-token');
    expect(
      await call({ method: 'PATCH', url: `/admin/api/users/${id}`, payload: { disabled: true, quotaUsd: null } }),
    ).toMatchObject({ status: 200, body: { user: { userId: id, quotaUsd: null, disabled: true } } });
    expect(controlPlane.published[1]!.event.actor).toBe('bootstrap-token');
    expect((await call({ method: 'GET', url: '/admin/api/users' })).body.users).toEqual([
      {
        userId: id,
        name: 'Ada',
        login: null,
        role: 'admin',
        rpm: 60,
        tpm: null,
        quotaUsd: null,
        disabled: true,
        createdAt: expect.any(String),
      },
    ]);
  });

  it('users: a console login is shown, the password and its hash never', async () => {
    const { call, controlPlane } = await setup();
    const created = await call({
      method: 'POST',
      url: '/admin/api/users',
      payload: { name: 'Ada', login: 'Ada@Example.org', password: 'secret-password-1' },
    });
    expect(created).toMatchObject({ status: 201, body: { user: { name: 'Ada', login: 'ada@example.org' } } });
    const id = created.body.user.userId;
    expect(controlPlane.published.map((e) => e.type)).toEqual(['UserCreated', 'UserCredentialsSet']);
    const changed = await call({
      method: 'PATCH',
      url: `/admin/api/users/${id}`,
      payload: { login: 'ada', password: 'secret-password-2' },
    });
    expect(changed).toMatchObject({ status: 200, body: { user: { userId: id, login: 'ada' } } });
    const taken = await call({
      method: 'POST',
      url: '/admin/api/users',
      payload: { name: 'Other', login: 'ADA', password: 'long-enough' },
    });
    expect(taken).toMatchObject({
      status: 409,
      body: { error: { message: "login 'ada' is already taken", field: 'login' } },
    });
    const answers = JSON.stringify([
      created.body,
      changed.body,
      (await call({ method: 'GET', url: '/admin/api/users' })).body,
      (await call({ method: 'GET', url: `/admin/api/users/${id}` })).body,
    ]);
    expect(answers).not.toMatch(/secret-password|scrypt|passwordHash/);
  });

  it('keys: the full key only in the create/rotate answer; listings carry status and no digest', async () => {
    let now = Date.parse('2026-05-01T00:00:00Z');
    const { call, controlPlane } = await setup({ now: () => now });
    const created = await call({
      method: 'POST',
      url: '/admin/api/keys',
      payload: { name: 'ci', rpm: 10, tpm: 1000, quotaUsd: 1.25, expiresAt: '2026-05-01T01:00:00Z', models: ['m1'] },
    });
    expect(created.status).toBe(201);
    const { apiKey, key } = created.body;
    expect(apiKey).toMatch(/^sk-[a-z2-7]{12}-[0-9A-Za-z]{32}$/);
    expect(controlPlane.key(key.keyId)!.digest).toBe(digestApiKey(HMAC_SECRET, apiKey));
    expect(key).toEqual({
      keyId: key.keyId,
      publicId: apiKey.slice(3, 15),
      name: 'ci',
      userId: null,
      teamId: null,
      rpm: 10,
      tpm: 1000,
      rpd: null,
      tpd: null,
      quotaUsd: '1.25',
      expiresAt: '2026-05-01T01:00:00.000Z',
      models: ['m1'],
      modelLimits: [],
      tags: [],
      enabled: true,
      status: 'active',
      revokedAt: null,
      createdAt: '2026-05-01T00:00:00.000Z',
    });
    const listed = await call({ method: 'GET', url: '/admin/api/keys' });
    expect(listed.body.keys).toEqual([key]);
    const digest = controlPlane.key(key.keyId)!.digest;
    expect(JSON.stringify(listed.body)).not.toContain(digest);
    expect(JSON.stringify(listed.body)).not.toContain(apiKey);
    expect((await call({ method: 'GET', url: `/admin/api/keys/${key.publicId}` })).body.key.keyId).toBe(key.keyId);
    expect(
      (await call({ method: 'PATCH', url: `/admin/api/keys/${key.keyId}`, payload: { enabled: false } })).body.key
        .status,
    ).toBe('disabled');
    const rotated = await call({
      method: 'POST',
      url: `/admin/api/keys/${key.keyId}/rotate`,
      payload: { graceSeconds: 60 },
    });
    expect(rotated).toMatchObject({
      status: 201,
      body: {
        key: { name: 'ci', rpm: 10, status: 'disabled' },
        replaced: { keyId: key.keyId, revokedAt: '2026-05-01T00:01:00.000Z', status: 'disabled' },
      },
    });
    expect(rotated.body.apiKey).not.toBe(apiKey);
    now += 60_000;
    const statuses = (await call({ method: 'GET', url: '/admin/api/keys' })).body.keys.map(
      (k: { status: string }) => k.status,
    );
    expect(statuses).toEqual(['revoked', 'disabled']);
    now += 3_600_000;
    expect(
      (await call({ method: 'PATCH', url: `/admin/api/keys/${rotated.body.key.keyId}`, payload: { enabled: true } }))
        .body.key.status,
    ).toBe('expired');
    expect(JSON.stringify(controlPlane.published)).not.toContain(apiKey);
    expect(JSON.stringify(controlPlane.published)).not.toContain(rotated.body.apiKey);
  });

  it('channels: upsert 201 then 200, credential never shown, remove', async () => {
    const { call, controlPlane } = await setup();
    const put = await call({
      method: 'PUT',
      url: '/admin/api/channels/ds-1',
      payload: { provider: 'deepseek', apiKey: 'sk-upstream-SECRET', models: ['deepseek-chat'], rpm: 500, tpm: 100000 },
    });
    expect(put).toMatchObject({
      status: 201,
      body: {
        created: true,
        channel: {
          id: 'ds-1',
          provider: 'deepseek',
          protocol: null,
          baseUrl: null,
          hasApiKey: true,
          models: ['deepseek-chat'],
          modelMap: {},
          priority: 0,
          weight: 1,
          enabled: true,
          timeoutMs: 600000,
          rpm: 500,
          tpm: 100000,
        },
      },
    });
    const again = await call({
      method: 'PUT',
      url: '/admin/api/channels/ds-1',
      payload: { provider: 'deepseek', models: ['deepseek-chat'], enabled: false },
    });
    expect(again).toMatchObject({
      status: 200,
      body: { created: false, channel: { hasApiKey: true, enabled: false, rpm: null } },
    });
    expect(controlPlane.channels()[0]!.config.apiKey).toBe('sk-upstream-SECRET');
    const listed = await call({ method: 'GET', url: '/admin/api/channels' });
    const single = await call({ method: 'GET', url: '/admin/api/channels/ds-1' });
    for (const text of [
      JSON.stringify(put.body),
      JSON.stringify(again.body),
      JSON.stringify(listed.body),
      JSON.stringify(single.body),
      JSON.stringify(controlPlane.published),
    ])
      expect(text).not.toContain('SECRET');
    expect(listed.body.channels).toHaveLength(1);
    expect(await call({ method: 'DELETE', url: '/admin/api/channels/ds-1' })).toMatchObject({
      status: 200,
      body: { removed: 'ds-1' },
    });
    expect((await call({ method: 'GET', url: '/admin/api/channels' })).body).toEqual({ channels: [] });
  });

  it('prices: PUT with a derived id, replace, explicit id in the path, list', async () => {
    const { call } = await setup();
    const price = { model: 'deepseek-chat', inputPerMTok: 0.27, outputPerMTok: 1.1, effectiveFrom: '2026-01-01' };
    expect(await call({ method: 'PUT', url: '/admin/api/prices', payload: price })).toMatchObject({
      status: 201,
      body: { created: true, price: { priceId: 'deepseek-chat|*|2026-01-01T00:00:00.000Z', inputPerMTok: 0.27 } },
    });
    expect(
      await call({ method: 'PUT', url: '/admin/api/prices', payload: { ...price, inputPerMTok: 0.3 } }),
    ).toMatchObject({ status: 200, body: { created: false, price: { inputPerMTok: 0.3 } } });
    expect(
      await call({
        method: 'PUT',
        url: '/admin/api/channels/ds-1',
        payload: { provider: 'deepseek', models: ['deepseek-chat'] },
      }),
    ).toMatchObject({ status: 201 });
    expect(
      await call({ method: 'PUT', url: '/admin/api/prices/promo%201', payload: { ...price, channel: 'ds-1' } }),
    ).toMatchObject({ status: 201, body: { price: { priceId: 'promo 1', channel: 'ds-1' } } });
    expect(
      await call({ method: 'PUT', url: '/admin/api/prices/promo', payload: { ...price, priceId: 'x' } }),
    ).toMatchObject({ status: 400, body: { error: { field: 'priceId' } } });
    expect(
      (await call({ method: 'GET', url: '/admin/api/prices' })).body.prices.map((p: { priceId: string }) => p.priceId),
    ).toEqual(['deepseek-chat|*|2026-01-01T00:00:00.000Z', 'promo 1']);
  });
});

describe('failures of the control plane and the exported helpers', () => {
  it('an append that fails (event log down) → 503, nothing about the cause leaks', async () => {
    const { call } = await setup({
      append: async () => Promise.reject(new Error('kafka: broker 127.0.0.1:19092 unreachable')),
    });
    const response = await call({ method: 'POST', url: '/admin/api/users', payload: { name: 'Ada' } });
    expect(response).toMatchObject({
      status: 503,
      body: {
        error: {
          message:
            'control plane unavailable: the change could not be confirmed (see the gateway log); it may still apply',
        },
      },
    });
    expect(JSON.stringify(response.body)).not.toContain('kafka');
  });

  it('renderAdminError maps every kind of error; isAdminRoute recognises admin requests', () => {
    expect(renderAdminError(new CommandError(409, 'taken', 'id'))).toEqual({
      status: 409,
      body: { error: { message: 'taken', field: 'id' } },
    });
    expect(
      renderAdminError(
        Object.assign(new Error('Unexpected token'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }),
      ),
    ).toEqual({ status: 400, body: { error: { message: 'malformed JSON in request body: Unexpected token' } } });
    expect(
      renderAdminError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 })),
    ).toEqual({ status: 415, body: { error: { message: 'unsupported Content-Type: send application/json' } } });
    expect(renderAdminError(new TypeError('cannot read properties of undefined (secret stuff)'))).toEqual({
      status: 500,
      body: { error: { message: 'internal error' } },
    });
    const request = (url: string, adminApi?: boolean) =>
      ({ url, routeOptions: { config: adminApi === undefined ? {} : { adminApi } } }) as never;
    expect(isAdminRoute(request('/v1/chat/completions'))).toBe(false);
    expect(isAdminRoute(request('/admin/api/keys?x=1'))).toBe(true);
    expect(isAdminRoute(request('/admin/apix'))).toBe(false);
    expect(isAdminRoute(request('/elsewhere', true))).toBe(true);
  });
});

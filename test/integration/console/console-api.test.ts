/**
 * The console API over HTTP against a real gateway (in-process app, mock upstream on loopback):
 * sign-in, session cookie flags, CSRF, sign-in throttling, role scoping (a user sees only their
 * own keys, admin pages answer 403), keys made in the console working on the client API, the
 * channel test, the audit history without secrets, sign-out and disabling a user. The usage
 * pages against a real analytics store are covered by the browser test (test/e2e).
 */
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../../gateway/console/console-routes.ts';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { startTestGateway, type TestGateway } from '../../support/start-gateway.ts';

const ADMIN_TOKEN = `console-it-${randomBytes(6).toString('hex')}`;
let gateway: TestGateway;
let mock: Awaited<ReturnType<typeof startMockUpstream>>;

let nextAddress = 1;

/**
 * A console client: keeps the session cookie and the CSRF token like the browser app does. Each
 * one comes from its own address (X-Forwarded-For through the trusted loopback proxy), so the
 * per-address sign-in limit only bites where a test means it to.
 */
class ConsoleClient {
  cookie = '';
  csrf = '';
  readonly address = `198.51.100.${nextAddress++}`;
  constructor(private readonly origin: string) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: boolean } = {},
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.address };
    if (this.cookie) headers.cookie = this.cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && options.csrf !== false && this.csrf) headers['x-csrf-token'] = this.csrf;
    const response = await fetch(`${this.origin}/console/api${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const setCookie = response.headers.get('set-cookie');
    if (setCookie?.startsWith('tollgate_session=')) this.cookie = setCookie.split(';')[0]!;
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  async signIn(login: string, password: string): Promise<{ status: number; body: any; headers: Headers }> {
    const result = await this.call('POST', '/session', { login, password });
    if (result.status === 200) this.csrf = result.body.csrfToken;
    return result;
  }
}

const signedInClients = new Map<string, ConsoleClient>();

/** One signed-in client per login for the whole file (sign-in attempts are rate-limited per login). */
async function signedIn(login: string, password: string): Promise<ConsoleClient> {
  let client = signedInClients.get(login);
  if (!client) {
    client = new ConsoleClient(gateway.origin);
    expect((await client.signIn(login, password)).status).toBe(200);
    signedInClients.set(login, client);
  }
  return client;
}

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.origin}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startTestGateway(
    {
      channels: [
        { id: 'mock-a', provider: 'mock', protocol: 'openai-chat', models: ['mock-1'] },
        {
          id: 'mock-broken',
          provider: 'mock',
          protocol: 'anthropic-messages',
          models: ['mock-broken'],
          mock: { failStatus: 500 },
        },
      ],
    },
    { mockBaseUrl: mock.baseUrl },
    { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN, TOLLGATE_TRUST_PROXY: '127.0.0.1' },
  );
  expect(
    (await admin('POST', '/users', { name: 'Ada Admin', role: 'admin', login: 'ada', password: 'ada-password-1' }))
      .status,
  ).toBe(201);
  expect((await admin('POST', '/users', { name: 'Bob User', login: 'bob', password: 'bob-password-1' })).status).toBe(
    201,
  );
  expect((await admin('POST', '/users', { name: 'Cy User', login: 'cyd', password: 'cyd-password-1' })).status).toBe(
    201,
  );
});

afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

describe('console pages', () => {
  it('serves the app with a strict CSP and the vendor files from node_modules', async () => {
    const page = await fetch(`${gateway.origin}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('/console/assets/app.js');
    const redirect = await fetch(`${gateway.origin}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/console/');
    for (const [path, type] of [
      ['/console/vendor/htm-preact.js', 'javascript'],
      ['/console/vendor/chart.umd.js', 'javascript'],
      ['/console/vendor/pico.min.css', 'css'],
      ['/console/assets/app.js', 'javascript'],
    ] as const) {
      const response = await fetch(`${gateway.origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toContain(type);
    }
    expect((await fetch(`${gateway.origin}/console/vendor/..%2Fpackage.json`)).status).toBe(404);
  });
});

describe('sign-in and sessions', () => {
  it('refuses every API call without a session, in the admin error shape', async () => {
    const client = new ConsoleClient(gateway.origin);
    const result = await client.call('GET', '/keys');
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: { message: 'not signed in' } });
  });

  it('answers a wrong password and an unknown login alike', async () => {
    const client = new ConsoleClient(gateway.origin);
    const wrong = await client.signIn('bob', 'not-his-password');
    const unknown = await client.signIn('nobody', 'whatever-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await client.call('POST', '/session', { login: 5, password: 'x' })).toMatchObject({
      status: 400,
      body: { error: { field: 'login', message: 'login: expected string, got number' } },
    });
    expect(await client.call('POST', '/session', { login: 'bob' })).toMatchObject({
      status: 400,
      body: { error: { field: 'password', message: 'password: is required' } },
    });
  });

  it('sets an HttpOnly SameSite=Strict cookie scoped to /console and requires the CSRF token on writes', async () => {
    const client = new ConsoleClient(gateway.origin);
    const signedIn = await client.signIn('BOB', 'bob-password-1');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ name: 'Bob User', login: 'bob', role: 'user' });
    const cookie = signedIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^tollgate_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/console');
    expect((await client.call('GET', '/session')).body.user.login).toBe('bob');
    const withoutToken = await client.call('POST', '/keys', { name: 'no-csrf' }, { csrf: false });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body.error.message).toContain('CSRF');
    client.csrf = 'forged-token';
    expect((await client.call('POST', '/keys', { name: 'forged' })).status).toBe(403);
  });

  it('refuses writes sent from another site, sign-in included', async () => {
    const response = await fetch(`${gateway.origin}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
      body: JSON.stringify({ login: 'bob', password: 'bob-password-1' }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.json()).toEqual({ error: { message: 'cross-origin request refused' } });
    const sameSite = await fetch(`${gateway.origin}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: gateway.origin },
      body: JSON.stringify({ login: 'bob', password: 'bob-password-1' }),
    });
    expect(sameSite.status).toBe(200);
  });

  it('limits sign-in attempts per login with 429 and retry-after', async () => {
    const client = new ConsoleClient(gateway.origin);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<ConsoleClient['signIn']>> | undefined;
    for (let i = 0; i < 7; i += 1) {
      last = await client.signIn('cyd', 'wrong-password');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last!.body.error.message).toMatch(/too many sign-in attempts/);
  });

  it('ends the session on sign-out and when the user is disabled', async () => {
    const first = new ConsoleClient(gateway.origin);
    expect((await first.signIn('bob', 'bob-password-1')).status).toBe(200);
    expect((await first.call('DELETE', '/session')).status).toBe(204);
    expect((await first.call('GET', '/keys')).status).toBe(401);

    const temp = await admin('POST', '/users', { name: 'Temp', login: 'temp', password: 'temp-password-1' });
    const second = new ConsoleClient(gateway.origin);
    expect((await second.signIn('temp', 'temp-password-1')).status).toBe(200);
    expect((await admin('PATCH', `/users/${temp.body.user.userId}`, { disabled: true })).status).toBe(200);
    expect((await second.call('GET', '/keys')).status).toBe(401);
    expect((await second.signIn('temp', 'temp-password-1')).status).toBe(401);
  });

  it('changes the own password after checking the current one', async () => {
    await admin('POST', '/users', { name: 'Pat', login: 'pat', password: 'pat-password-1' });
    const client = new ConsoleClient(gateway.origin);
    await client.signIn('pat', 'pat-password-1');
    const otherSession = new ConsoleClient(gateway.origin);
    await otherSession.signIn('pat', 'pat-password-1');
    const wrong = await client.call('POST', '/session/password', {
      currentPassword: 'nope-nope',
      newPassword: 'pat-password-2',
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: { field: 'currentPassword' } } });
    const short = await client.call('POST', '/session/password', {
      currentPassword: 'pat-password-1',
      newPassword: 'short',
    });
    expect(short).toMatchObject({ status: 400, body: { error: { field: 'newPassword' } } });
    expect(
      (
        await client.call('POST', '/session/password', {
          currentPassword: 'pat-password-1',
          newPassword: 'pat-password-2',
        })
      ).status,
    ).toBe(204);
    // The session that changed it stays signed in; every other session of the user ends.
    expect((await client.call('GET', '/keys')).status).toBe(200);
    expect((await otherSession.call('GET', '/keys')).status).toBe(401);
    expect((await new ConsoleClient(gateway.origin).signIn('pat', 'pat-password-2')).status).toBe(200);
    expect((await new ConsoleClient(gateway.origin).signIn('pat', 'pat-password-1')).status).toBe(401);
  });
});

describe('keys and role scoping', () => {
  it('creates a key that works on the client API, shown once, and scopes keys to their owner', async () => {
    const ada = await signedIn('ada', 'ada-password-1');
    const bob = await signedIn('bob', 'bob-password-1');
    const adaKey = await ada.call('POST', '/keys', { name: 'ada-key', rpm: 100, quotaUsd: '5' });
    expect(adaKey.status).toBe(201);
    expect(adaKey.body.apiKey).toMatch(/^sk-[a-z2-7]{12}-[0-9A-Za-z]{32}$/);
    expect(adaKey.body.key).toMatchObject({
      name: 'ada-key',
      rpm: 100,
      quotaUsd: '5',
      spentUsd: '0',
      status: 'active',
      lastUsedAt: null,
    });
    const bobKey = await bob.call('POST', '/keys', { name: 'bob-key' });
    expect(bobKey.status).toBe(201);
    expect(bobKey.body.key.userId).toBe((await bob.call('GET', '/session')).body.user.userId);
    expect(bobKey.body.key.ownerName).toBe('Bob User');

    const client = new OpenAI({ apiKey: bobKey.body.apiKey, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'mock-1',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Mock reply to: Hi');

    const bobList = await bob.call('GET', '/keys');
    expect(bobList.body.keys.map((k: { name: string }) => k.name)).toEqual(['bob-key']);
    expect(bobList.body.total).toBe(1);
    const adaList = await ada.call('GET', '/keys?limit=200');
    expect(adaList.body.keys.map((k: { name: string }) => k.name)).toEqual(
      expect.arrayContaining(['ada-key', 'bob-key']),
    );
    expect(JSON.stringify(adaList.body)).not.toContain(adaKey.body.apiKey);

    const adaKeyId = adaKey.body.key.keyId;
    expect((await bob.call('PATCH', `/keys/${adaKeyId}`, { rpm: 1 })).status).toBe(404);
    expect((await bob.call('POST', `/keys/${adaKey.body.key.publicId}/revoke`, {})).status).toBe(404);
    expect(
      (await bob.call('POST', '/keys', { name: 'for-ada', userId: adaKey.body.key.userId ?? 'usr_x' })).status,
    ).toBe(403);
    for (const path of ['/users', '/channels', '/prices', '/audit', '/providers'])
      expect((await bob.call('GET', path)).status, path).toBe(403);
  });

  it('revokes and rotates through the console, and the revoked key is refused', async () => {
    const bob = await signedIn('bob', 'bob-password-1');
    const created = await bob.call('POST', '/keys', { name: 'to-rotate' });
    const rotated = await bob.call('POST', `/keys/${created.body.key.keyId}/rotate`, { graceSeconds: 0 });
    expect(rotated.status).toBe(201);
    expect(rotated.body.replaced.status).toBe('revoked');
    const oldClient = new OpenAI({ apiKey: created.body.apiKey, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    await expect(
      oldClient.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const revoked = await bob.call('POST', `/keys/${rotated.body.key.keyId}/revoke`, { reason: 'done' });
    expect(revoked.body.key.status).toBe('revoked');
    const newClient = new OpenAI({ apiKey: rotated.body.apiKey, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    await expect(
      newClient.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const changeRevoked = await bob.call('PATCH', `/keys/${rotated.body.key.keyId}`, { rpm: 5 });
    expect(changeRevoked.status).toBe(409);
  });

  it('shows the admin API validation messages with the field', async () => {
    const ada = await signedIn('ada', 'ada-password-1');
    const bad = await ada.call('POST', '/keys', { name: 'x', rpm: 0 });
    expect(bad).toMatchObject({
      status: 400,
      body: { error: { field: 'rpm', message: 'rpm: must be a positive integer or null' } },
    });
    const page = await ada.call('GET', '/keys?limit=500');
    expect(page).toMatchObject({ status: 400, body: { error: { field: 'limit' } } });
  });
});

describe('admin pages', () => {
  it('tests a channel: a working one answers, a failing one shows the upstream error', async () => {
    const ada = await signedIn('ada', 'ada-password-1');
    const good = await ada.call('POST', '/channels/mock-a/test', {});
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ ok: true, model: 'mock-1', status: 200, text: 'Mock reply to: Say OK.' });
    const broken = await ada.call('POST', '/channels/mock-broken/test', {});
    expect(broken.body).toMatchObject({ ok: false, status: 500, error: { kind: 'upstream-unavailable' } });
    expect((await ada.call('POST', '/channels/nope/test', {})).status).toBe(404);
    const channels = await ada.call('GET', '/channels');
    const row = channels.body.channels.find((c: { id: string }) => c.id === 'mock-a');
    expect(row).toMatchObject({ id: 'mock-a', provider: 'mock', health: { errorRate: 0, coolingDownUntil: null } });
    expect(JSON.stringify(channels.body)).not.toContain('apiKeyCiphertext');
  });

  it('creates a channel with a credential that is never shown again', async () => {
    const ada = await signedIn('ada', 'ada-password-1');
    const secret = `sk-upstream-${randomBytes(8).toString('hex')}`;
    const created = await ada.call('PUT', '/channels/deepseek-1', {
      provider: 'deepseek',
      apiKey: secret,
      models: ['deepseek-chat'],
      rpm: 60,
    });
    expect(created.status).toBe(201);
    expect(created.body.channel).toMatchObject({ id: 'deepseek-1', hasApiKey: true, rpm: 60 });
    const paged = await ada.call('GET', '/channels?limit=1&offset=1');
    expect(paged.body.total).toBe(3);
    expect(paged.body.channels.map((c: { id: string }) => c.id)).toEqual(['mock-a']);
    expect((await ada.call('GET', '/channels?q=DEEPSEEK')).body.channels.map((c: { id: string }) => c.id)).toEqual([
      'deepseek-1',
    ]);
    const providers = await ada.call('GET', '/providers');
    expect(providers.body.providers.find((p: { id: string }) => p.id === 'deepseek')).toMatchObject({
      defaultProtocol: 'openai-chat',
    });
    const providerById = (id: string) => providers.body.providers.find((p: { id: string }) => p.id === id);
    // The form marks a provider with no default host (baseUrl null) and a keyless local server (optional-bearer).
    expect(providerById('openai-compatible').protocols).toEqual([
      { protocol: 'openai-chat', baseUrl: null, regionalBaseUrl: null, auth: 'bearer' },
    ]);
    expect(providerById('ollama').protocols[0]).toEqual({
      protocol: 'openai-chat',
      baseUrl: 'http://localhost:11434/v1',
      regionalBaseUrl: null,
      auth: 'optional-bearer',
    });
    // A cloud: its host comes from the region, and the form offers its auth methods and settings.
    expect(providerById('bedrock')).toMatchObject({
      defaultProtocol: 'bedrock-converse',
      cloud: { authMethods: ['sigv4', 'api-key'], settings: ['auth', 'region', 'roleArn', 'externalId'] },
    });
    expect(providerById('bedrock').protocols[0]).toMatchObject({
      baseUrl: null,
      regionalBaseUrl: 'https://bedrock-runtime.{region}.amazonaws.com',
      auth: 'cloud-credentials',
    });
    // A cloud channel: settings shown, the service-account key never (not in the view, not in the audit).
    const privateKey = `-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----\n`;
    const vertex = await ada.call('PUT', '/channels/vertex-1', {
      provider: 'vertex',
      cloud: { project: 'acme-prod', region: 'europe-west4' },
      apiKey: JSON.stringify({
        type: 'service_account',
        client_email: 'gw@acme-prod.iam.gserviceaccount.com',
        private_key: privateKey,
      }),
      models: ['gemini-2.5-flash'],
    });
    expect(vertex.status).toBe(201);
    expect(vertex.body.channel).toMatchObject({
      id: 'vertex-1',
      hasApiKey: true,
      cloud: { project: 'acme-prod', region: 'europe-west4' },
      headers: {},
    });
    const incomplete = await ada.call('PUT', '/channels/vertex-2', { provider: 'vertex', models: ['m'] });
    expect(incomplete.status).toBe(400);
    expect(JSON.stringify(incomplete.body)).toMatch(/apiKey|cloud/);
    expect(JSON.stringify((await ada.call('GET', '/channels?q=vertex')).body)).not.toContain(secret);
    await ada.call('DELETE', '/channels/vertex-1');
    const audit = await ada.call('GET', '/audit?limit=200');
    expect(audit.status).toBe(200);
    const text = JSON.stringify(audit.body);
    expect(text).not.toContain(secret);
    expect(text).not.toMatch(/passwordHash|scrypt\$|"digest"/);
    const channelEvent = audit.body.events.find(
      (e: { type: string; entityId: string }) => e.type === 'ChannelUpserted' && e.entityId === 'deepseek-1',
    );
    expect(channelEvent).toMatchObject({ actorName: 'Ada Admin', changes: { hasApiKey: true, provider: 'deepseek' } });
    expect(audit.body.events[0].occurredAt >= audit.body.events[audit.body.events.length - 1].occurredAt).toBe(true);
    const keyEvent = audit.body.events.find(
      (e: { type: string; changes: { name?: string } }) => e.type === 'KeyCreated' && e.changes.name === 'ada-key',
    );
    expect(keyEvent.changes).toMatchObject({ quotaUsd: '5', expiresAt: null, rpm: 100 });
    expect(keyEvent.changes).not.toHaveProperty('quotaNanoUsd');
    const revoked = audit.body.events.find((e: { type: string }) => e.type === 'KeyRevoked');
    expect(revoked.changes.effectiveAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('answers usage with 503 when the node has no analytics store', async () => {
    const ada = await signedIn('ada', 'ada-password-1');
    const usage = await ada.call('GET', '/usage');
    expect(usage.status).toBe(503);
    expect(usage.body.error.message).toMatch(/analytics store/);
    expect((await ada.call('GET', '/nope')).status).toBe(404);
  });
});

describe('behind a reverse proxy (TOLLGATE_TRUST_PROXY)', () => {
  it('marks the cookie Secure only when a trusted proxy says the client came over HTTPS', async () => {
    const signIn = (origin: string) =>
      fetch(`${origin}/console/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
        body: JSON.stringify({ login: 'proxied', password: 'proxied-password' }),
      });
    for (const [trusted, secure] of [
      ['127.0.0.1', true],
      ['10.0.0.1', false],
    ] as const) {
      const proxied = await startTestGateway(
        { channels: [] },
        {},
        { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN, TOLLGATE_TRUST_PROXY: trusted },
      );
      try {
        const created = await fetch(`${proxied.origin}/admin/api/users`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Proxy', login: 'proxied', password: 'proxied-password' }),
        });
        expect(created.status).toBe(201);
        const answer = await signIn(proxied.origin);
        expect(answer.status, trusted).toBe(200);
        expect(answer.headers.get('set-cookie')?.includes('Secure'), trusted).toBe(secure);
      } finally {
        await proxied.close();
      }
    }
  });

  it('limits sign-in attempts per client address across logins', async () => {
    const client = new ConsoleClient(gateway.origin);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i += 1) statuses.push((await client.signIn(`nobody-${i}`, 'whatever-password')).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
  });
});

describe('when the session store is down', () => {
  it('answers 503 in the admin error shape, never 500', async () => {
    const down = async (): Promise<never> => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    };
    const broken = await startTestGateway(
      { channels: [] },
      { sessionStore: { put: down, get: down, delete: down, close: async () => undefined } },
      { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
    );
    try {
      await fetch(`${broken.origin}/admin/api/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'X', login: 'xavier', password: 'xavier-password' }),
      });
      const signIn = await fetch(`${broken.origin}/console/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'xavier', password: 'xavier-password' }),
      });
      expect(signIn.status).toBe(503);
      expect(((await signIn.json()) as { error: { message: string } }).error.message).toMatch(
        /^sign-in is unavailable/,
      );
      const withCookie = await fetch(`${broken.origin}/console/api/keys`, {
        headers: { cookie: 'tollgate_session=whatever' },
      });
      expect(withCookie.status).toBe(503);
    } finally {
      await broken.close();
    }
  });
});

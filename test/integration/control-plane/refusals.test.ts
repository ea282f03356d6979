/**
 * Every refusal path, in every client format's own envelope and status: missing, unknown,
 * disabled, revoked, expired keys and disabled owners (401); a model outside the key's allowlist
 * (403); key and user spend quotas (429, not retryable); key and user RPM, key TPM (429 with
 * retry-after and x-ratelimit-* headers); every channel at its limit (429).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyRecord } from '../../../gateway/control-plane/control-plane-view.ts';
import { createLocalControlPlane, type ControlPlane } from '../../../gateway/control-plane/local-control-plane.ts';
import { parseConfigFile } from '../../../gateway/config/load-config.ts';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import type { StateStore } from '../../../schemas/state-store/state-store.ts';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { startTestGateway, type TestGateway } from '../../support/start-gateway.ts';

const ADMIN = 'refusals-admin-token-000000';
let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let gateway: TestGateway;
let state: StateStore;
const keys: Record<string, string> = {};

interface Format {
  readonly name: string;
  readonly path: (model: string) => string;
  readonly auth: (key: string) => Record<string, string>;
  readonly body: (model: string) => Record<string, unknown>;
  /** The format's error type string for a body. */
  readonly typeOf: (body: any) => string;
  /** What typeOf must give for each refusal category. */
  readonly expected: Record<'auth' | 'model' | 'quota' | 'rate', string>;
}

const OPENAI = {
  auth: 'invalid_request_error/invalid_api_key',
  model: 'invalid_request_error/model_not_allowed',
  quota: 'insufficient_quota/insufficient_quota',
  rate: 'requests/rate_limit_exceeded',
};

const FORMATS: Format[] = [
  {
    name: 'openai-chat',
    path: () => '/v1/chat/completions',
    auth: (k) => ({ authorization: `Bearer ${k}` }),
    body: (m) => ({ model: m, messages: [{ role: 'user', content: 'hi' }] }),
    typeOf: (b) => `${b.error.type}/${b.error.code}`,
    expected: OPENAI,
  },
  {
    name: 'openai-responses',
    path: () => '/v1/responses',
    auth: (k) => ({ authorization: `Bearer ${k}` }),
    body: (m) => ({ model: m, input: 'hi' }),
    typeOf: (b) => `${b.error.type}/${b.error.code}`,
    expected: OPENAI,
  },
  {
    name: 'anthropic-messages',
    path: () => '/v1/messages',
    auth: (k) => ({ 'x-api-key': k }),
    body: (m) => ({ model: m, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }),
    typeOf: (b) => `${b.type}/${b.error.type}`,
    expected: {
      auth: 'error/authentication_error',
      model: 'error/permission_error',
      quota: 'error/rate_limit_error',
      rate: 'error/rate_limit_error',
    },
  },
  {
    name: 'gemini',
    path: (m) => `/v1beta/models/${m}:generateContent`,
    auth: (k) => ({ 'x-goog-api-key': k }),
    body: () => ({ contents: [{ parts: [{ text: 'hi' }] }] }),
    typeOf: (b) => `${b.error.code}/${b.error.status}`,
    expected: {
      auth: '401/UNAUTHENTICATED',
      model: '403/PERMISSION_DENIED',
      quota: '429/RESOURCE_EXHAUSTED',
      rate: '429/RESOURCE_EXHAUSTED',
    },
  },
];

async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const response = await request(`${gateway.origin}/admin/api${path}`, {
    method: method as 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.body.json()) as any;
  expect(response.statusCode, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

async function send(format: Format, key: string | undefined, model = 'chat-model') {
  const response = await request(`${gateway.origin}${format.path(model)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : format.auth(key)) },
    body: JSON.stringify(format.body(model)),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(text) };
}

beforeAll(async () => {
  mock = await startMockUpstream();
  state = createMemoryStateStore();
  const config = parseConfigFile(
    {
      channels: [
        {
          id: 'steady',
          provider: 'mock',
          protocol: 'openai-chat',
          models: ['chat-model', 'other-model', 'limited-model'],
        },
        { id: 'tiny', provider: 'mock', protocol: 'openai-chat', models: ['tiny-model'] },
      ],
      keys: [],
    },
    { TOLLGATE_ADMIN_TOKEN: ADMIN },
  );
  const controlPlane: ControlPlane = createLocalControlPlane(config);
  gateway = await startTestGateway(
    { channels: config.channels, keys: [] },
    { mockBaseUrl: mock.baseUrl, controlPlane, stateStore: state },
    { TOLLGATE_ADMIN_TOKEN: ADMIN },
  );
  await admin('PUT', '/channels/tiny', { provider: 'mock', protocol: 'openai-chat', models: ['tiny-model'], rpm: 1 });
  const user = (await admin('POST', '/users', { name: 'payer', quotaUsd: '0.000001' })).user;
  const offUser = (await admin('POST', '/users', { name: 'off' })).user;
  const make = async (name: string, body: Record<string, unknown>) =>
    (keys[name] = (await admin('POST', '/keys', { name, ...body })).apiKey);
  await make('ok', {});
  await make('disabled', {});
  await admin('PATCH', `/keys/${keyIdOf('disabled')}`, { enabled: false });
  await make('revoked', {});
  await admin('POST', `/keys/${keyIdOf('revoked')}/revoke`, {});
  await make('expiring', { expiresAt: new Date(Date.now() + 1500).toISOString() });
  await make('owner-off', { userId: offUser.userId });
  await admin('PATCH', `/users/${offUser.userId}`, { disabled: true });
  await make('allowlist', { models: ['other-model'] });
  await make('key-quota', { quotaUsd: '0.000001' });
  await make('user-quota', { userId: user.userId });
  await make('rpm', { rpm: 1 });
  await make('tpm', { tpm: 10 });
  await make('tiny', {});
  await make('streaming', { rpm: 100 });
  // Spend already over both quotas (the billing consumer's counters).
  await state.addSpend(
    { topic: 'tollgate.usage', partition: 0, offset: '1' },
    keyRecord(controlPlane, 'key-quota').keyId,
    null,
    5_000n,
  );
  await state.addSpend(
    { topic: 'tollgate.usage', partition: 0, offset: '2' },
    keyRecord(controlPlane, 'user-quota').keyId,
    keyRecord(controlPlane, 'user-quota').userId,
    5_000n,
  );
  await new Promise((r) => setTimeout(r, 1600)); // let 'expiring' expire
  function keyIdOf(name: string): string {
    return keyRecord(controlPlane, name).keyId;
  }
}, 60_000);

function keyRecord(controlPlane: ControlPlane, name: string): KeyRecord {
  const found = controlPlane.view.keys().find((k) => k.name === name);
  if (!found) throw new Error(`no key ${name}`);
  return found;
}

afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

describe('model lists', () => {
  it('show a key only the models on its allowlist', async () => {
    const list = async (key: string) =>
      (
        (await (
          await request(`${gateway.origin}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
        ).body.json()) as { data: Array<{ id: string }> }
      ).data.map((m) => m.id);
    expect(await list(keys.allowlist!)).toEqual(['other-model']);
    expect(await list(keys.ok!)).toEqual(['chat-model', 'limited-model', 'other-model', 'tiny-model']);
  });
});

describe.each(FORMATS)('$name refusals', (format) => {
  it('serves a good key (control)', async () => {
    expect((await send(format, keys.ok)).status).toBe(200);
  });

  it.each([
    ['a missing key', undefined, 401, 'auth'],
    ['an unknown key', 'sk-aaaaaaaaaaaa-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 401, 'auth'],
    ['a disabled key', 'disabled', 401, 'auth'],
    ['a revoked key', 'revoked', 401, 'auth'],
    ['an expired key', 'expiring', 401, 'auth'],
    ['a key whose owner is disabled', 'owner-off', 401, 'auth'],
    ['a model outside the allowlist', 'allowlist', 403, 'model'],
    ['a key over its spend quota', 'key-quota', 429, 'quota'],
    ['a user over its spend quota', 'user-quota', 429, 'quota'],
  ] as const)('refuses %s', async (_, keyName, status, category) => {
    const key = keyName === undefined ? undefined : (keys[keyName] ?? keyName);
    const answer = await send(format, key);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/application\/json/);
    expect(format.typeOf(answer.body)).toBe(format.expected[category]);
    // A spent quota does not refill by waiting: tell the SDKs that read it (OpenAI, Anthropic) not to retry.
    if (category === 'quota' && format.name !== 'gemini') expect(answer.headers['x-should-retry']).toBe('false');
  });

  it('refuses RPM and TPM over the limit with retry-after and x-ratelimit-* headers', async () => {
    // The rpm key allows one request a minute across the whole test file: the first format uses it.
    const first = await send(format, keys.rpm);
    const second = first.status === 200 ? await send(format, keys.rpm) : first;
    expect(second.status).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    expect(second.headers['x-ratelimit-limit-requests']).toBe('1');
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(format.typeOf(second.body)).toBe(format.expected.rate);
    const tpm = await send(format, keys.tpm);
    expect(tpm.status).toBe(429);
    expect(format.typeOf(tpm.body)).toBe(format.expected.rate);
  });

  it('answers 429 when every channel serving the model is at its limit', async () => {
    const first = await send(format, keys.tiny, 'tiny-model');
    const second = first.status === 200 ? await send(format, keys.tiny, 'tiny-model') : first;
    expect(second.status).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('a streamed answer of a limited key', () => {
  it('carries the x-ratelimit-* headers, the SSE headers and the request id', async () => {
    const response = await request(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.streaming}` },
      body: JSON.stringify({ model: 'chat-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.body.text();
    expect(response.statusCode).toBe(200);
    expect(text).toContain('data: [DONE]');
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-ratelimit-limit-requests']).toBe('100');
    expect(response.headers['x-ratelimit-remaining-requests']).toBe('99');
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    expect(response.headers['request-id']).toBe(response.headers['x-request-id']);
  });
});

/**
 * Bad input of every kind gets a clear error in the client's own envelope and status — never a
 * 500, a crash or a hang: bad key, unknown model, malformed JSON, missing/mistyped fields, body
 * over the size limit, unknown route, upstream failure. Checked with raw HTTP (exact shapes) and
 * with the official SDKs (typed errors).
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureUpstream, type FixtureUpstream } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';

let upstream: FixtureUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  gateway = await startTestGateway(
    {
      channels: [
        {
          id: 'fake',
          provider: 'deepseek',
          protocol: 'openai-chat',
          baseUrl: upstream.baseUrl('openai-chat'),
          apiKey: 'k',
          modelMap: { 'good-model': 'text', 'broken-model': 'fail-500' },
        },
      ],
    },
    {},
    { TOLLGATE_BODY_LIMIT: '2048' },
  );
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

interface Format {
  readonly name: string;
  readonly path: (model: string) => string;
  readonly auth: (key: string) => Record<string, string>;
  readonly body: (model: string) => Record<string, unknown>;
  /** Asserts the format's error envelope and returns its message. */
  readonly envelope: (body: any, status: number) => string;
}

const FORMATS: Format[] = [
  {
    name: 'openai-responses',
    path: () => '/v1/responses',
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    body: (model) => ({ model, input: 'hi' }),
    envelope: (body) => {
      expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      return body.error.message;
    },
  },
  {
    name: 'openai-chat',
    path: () => '/v1/chat/completions',
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    body: (model) => ({ model, messages: [{ role: 'user', content: 'hi' }] }),
    envelope: (body) => {
      expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      return body.error.message;
    },
  },
  {
    name: 'anthropic-messages',
    path: () => '/v1/messages',
    auth: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
    body: (model) => ({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    envelope: (body) => {
      expect(body.type).toBe('error');
      expect(typeof body.error.type).toBe('string');
      return body.error.message;
    },
  },
  {
    name: 'gemini',
    path: (model) => `/v1beta/models/${model}:generateContent`,
    auth: (key) => ({ 'x-goog-api-key': key }),
    body: () => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    envelope: (body, status) => {
      expect(body.error.code).toBe(status);
      expect(typeof body.error.status).toBe('string');
      return body.error.message;
    },
  },
];

async function send(format: Format, options: { model?: string; key?: string; raw?: string; body?: unknown }) {
  const model = options.model ?? 'good-model';
  const response = await request(`${gateway.origin}${format.path(model)}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.key === '' ? {} : format.auth(options.key ?? TEST_KEY)),
    },
    body: options.raw ?? JSON.stringify(options.body ?? format.body(model)),
  });
  const text = await response.body.text();
  expect(response.headers['content-type']).toMatch(/application\/json/);
  return { status: response.statusCode, body: JSON.parse(text) };
}

describe.each(FORMATS)('$name errors', (format) => {
  it('serves a good request (control)', async () => {
    expect((await send(format, {})).status).toBe(200);
  });

  it.each([
    ['a missing key', { key: '' }, 401],
    ['a wrong key', { key: 'sk-wrong-key-000000' }, 401],
    ['an unknown model', { model: 'no-such-model' }, 404],
    ['malformed JSON', { raw: '{"model": "good-model", ' }, 400],
    ['a body that is not an object', { raw: '[1,2,3]' }, 400],
    ['a body over the size limit', { raw: JSON.stringify({ model: 'good-model', pad: 'x'.repeat(4096) }) }, 413],
    ['an upstream failure', { model: 'broken-model' }, 502],
  ] as const)('answers %s in its own envelope', async (_, options, status) => {
    const answer = await send(format, options);
    expect(answer.status).toBe(status);
    expect(format.envelope(answer.body, status).length).toBeGreaterThan(5);
  });

  it('names the offending field of a mistyped request', async () => {
    const body = { ...format.body('good-model') } as Record<string, unknown>;
    if (format.name === 'gemini') body.contents = 42;
    else if (format.name === 'openai-responses') body.input = 42;
    else body.messages = 42;
    const answer = await send(format, { body });
    expect(answer.status).toBe(400);
    expect(format.envelope(answer.body, 400)).toMatch(/contents|messages|input/);
  });
});

describe('official SDKs raise their own typed errors', () => {
  it('openai: AuthenticationError, NotFoundError', async () => {
    const bad = new OpenAI({ apiKey: 'sk-nope-nope-nope', baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    await expect(
      bad.chat.completions.create({ model: 'good-model', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const good = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    await expect(good.responses.create({ model: 'nope', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('anthropic: AuthenticationError, NotFoundError', async () => {
    const bad = new Anthropic({ apiKey: 'sk-nope-nope-nope', baseURL: gateway.origin, maxRetries: 0 });
    await expect(
      bad.messages.create({ model: 'good-model', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    const good = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    await expect(
      good.messages.create({ model: 'nope', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('gemini: ApiError with the HTTP status', async () => {
    const ai = new GoogleGenAI({ apiKey: 'sk-nope-nope-nope', httpOptions: { baseUrl: gateway.origin } });
    const error = await ai.models.generateContent({ model: 'good-model', contents: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
  });

  it('unknown routes answer 404 in the guessed format', async () => {
    const response = await request(`${gateway.origin}/v1/nothing-here`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      body: '{}',
    });
    expect(response.statusCode).toBe(404);
    expect(((await response.body.json()) as { error: { message: string } }).error.message).toContain('Unknown route');
  });
});

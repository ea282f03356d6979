/**
 * Deadlines that run out before the client got a byte: an attempt over its channel's `deadlineMs`
 * fails over to the next channel; a request over TOLLGATE_REQUEST_DEADLINE_MS gets a 504 in its
 * own format (README "Deadlines"), streamed or not. The stalled upstream's connection is closed by
 * the gateway, and each request is recorded once.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';
import { startHostileUpstream, type HostileUpstream } from '../../support/hostile-upstream.ts';

let upstream: HostileUpstream;
let failover: TestGateway;
let requestDeadline: TestGateway;

beforeAll(async () => {
  upstream = await startHostileUpstream();
  const stalled = (id: string, model: string, deadlineMs: number, priority: number) => ({
    id,
    provider: 'openai',
    protocol: 'openai-chat',
    baseUrl: upstream.baseUrl('stall', 'openai-chat'),
    apiKey: 'k',
    models: [model],
    timeoutMs: 10_000,
    deadlineMs,
    priority,
  });
  failover = await startTestGateway({
    channels: [
      stalled('stalled', 'm', 300, 1),
      {
        id: 'healthy',
        provider: 'openai',
        protocol: 'openai-chat',
        baseUrl: upstream.baseUrl('bad-utf8', 'openai-chat'),
        apiKey: 'k',
        models: ['m'],
        priority: 0,
      },
    ],
  });
  requestDeadline = await startTestGateway(
    { channels: [stalled('stalled-only', 'only', 60_000, 0)] },
    {},
    { TOLLGATE_REQUEST_DEADLINE_MS: '300' },
  );
});

afterAll(async () => {
  await failover?.close();
  await requestDeadline?.close();
  await upstream?.close();
});

/** The part of each format's error envelope the tests read. */
interface ErrorBody {
  readonly error: { readonly type?: string; readonly status?: string };
}

// The stalled channels' gap timeout is 10 s: only the deadlines can end these tests within 5 s.
const CLIENTS = [
  {
    name: 'openai-chat',
    path: () => '/v1/chat/completions',
    headers: { authorization: `Bearer ${TEST_KEY}` },
    body: (model: string, stream: boolean) => ({ model, stream, messages: [{ role: 'user', content: 'hi' }] }),
    errorOf: (body: ErrorBody) => body.error.type,
  },
  {
    name: 'openai-responses',
    path: () => '/v1/responses',
    headers: { authorization: `Bearer ${TEST_KEY}` },
    body: (model: string, stream: boolean) => ({ model, stream, store: false, input: 'hi' }),
    errorOf: (body: ErrorBody) => body.error.type,
  },
  {
    name: 'anthropic-messages',
    path: () => '/v1/messages',
    headers: { 'x-api-key': TEST_KEY },
    body: (model: string, stream: boolean) => ({
      model,
      stream,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    }),
    errorOf: (body: ErrorBody) => body.error.type,
  },
  {
    name: 'gemini',
    path: (model: string, stream: boolean) =>
      `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { 'x-goog-api-key': TEST_KEY },
    body: () => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    errorOf: (body: ErrorBody) => body.error.status,
  },
] as const;

async function send(
  gateway: TestGateway,
  client: (typeof CLIENTS)[number],
  model: string,
  stream: boolean,
): Promise<{ status: number; text: string }> {
  const response = await request(`${gateway.origin}${client.path(model, stream)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...client.headers },
    body: JSON.stringify(client.body(model, stream)),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

describe('an attempt over its channel deadline before the first byte', () => {
  it('fails over to the next channel; the stalled connection is closed', { timeout: 5000 }, async () => {
    const before = upstream.requests.length;
    const { status, text } = await send(failover, CLIENTS[0], 'm', true);
    expect(status).toBe(200);
    expect(text).toContain('data: [DONE]');
    await waitFor(() => failover.outcomes.length === 1);
    const [outcome] = failover.outcomes;
    expect(outcome).toMatchObject({ status: 'completed', channelId: 'healthy', attempts: 2 });
    expect(outcome?.failovers).toEqual([
      expect.objectContaining({ channelId: 'stalled', errorKind: 'upstream-timeout', nextChannelId: 'healthy' }),
    ]);
    const stalled = upstream.requests[before];
    expect(stalled?.behaviour).toBe('stall');
    await waitFor(() => stalled?.closedByPeer === true);
  });
});

describe('a request over TOLLGATE_REQUEST_DEADLINE_MS before the first byte', () => {
  it.each(
    CLIENTS.flatMap((client) =>
      [true, false].map((stream) => [`${client.name}${stream ? ' stream' : ''}`, client, stream] as const),
    ),
  )('%s: 504 in the client format, recorded once', { timeout: 5000 }, async (_name, client, stream) => {
    const recorded = requestDeadline.outcomes.length;
    const before = upstream.requests.length;
    const { status, text } = await send(requestDeadline, client, 'only', stream);
    expect(status).toBe(504);
    expect(client.errorOf(JSON.parse(text) as ErrorBody)).toBeTruthy();
    await waitFor(() => requestDeadline.outcomes.length === recorded + 1);
    expect(requestDeadline.outcomes.at(-1)).toMatchObject({
      status: 'failed',
      httpStatus: 504,
      errorKind: 'upstream-timeout',
      attempts: 1,
    });
    const stalled = upstream.requests[before];
    await waitFor(() => stalled?.closedByPeer === true);
  });
});

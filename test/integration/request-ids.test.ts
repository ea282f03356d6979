/**
 * One request id everywhere: Fastify's request id is the gateway's `req_…` id, sent back as
 * x-request-id on every answer (served, streamed, refused, unknown route, health), carried by the
 * outcome and the request's log lines; a client's own x-request-id never becomes it. The
 * upstream's own request id (x-request-id, Anthropic request-id) is kept on the outcome.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHeaderEchoUpstream, type HeaderEchoUpstream } from '../support/header-echo-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

const GATEWAY_ID = /^req_[0-9a-f]{24}$/;

let openaiUpstream: HeaderEchoUpstream;
let anthropicUpstream: HeaderEchoUpstream;
let gateway: TestGateway;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  openaiUpstream = await startHeaderEchoUpstream({ 'x-request-id': 'req_upstream_openai_1' });
  anthropicUpstream = await startHeaderEchoUpstream({ 'request-id': 'req_011CSHoEeqs5C35K2UUqR7Fy' });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  gateway = await startTestGateway(
    {
      channels: [
        {
          id: 'openai-ch',
          provider: 'openai',
          protocol: 'openai-chat',
          baseUrl: `${openaiUpstream.origin}/v1`,
          apiKey: 'k',
          models: ['gpt-x', 'fail-400'],
        },
        {
          id: 'anthropic-ch',
          provider: 'anthropic',
          protocol: 'anthropic-messages',
          baseUrl: anthropicUpstream.origin,
          apiKey: 'k',
          models: ['claude-x'],
        },
      ],
    },
    { logger: pino({ level: 'info' }, sink) },
  );
});

afterAll(async () => {
  await gateway?.close();
  await openaiUpstream?.close();
  await anthropicUpstream?.close();
});

async function chat(model: string, stream: boolean, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function lastOutcomeAfter(before: number) {
  await waitFor(() => gateway.outcomes.length > before);
  return gateway.outcomes[gateway.outcomes.length - 1]!;
}

describe('the gateway request id', () => {
  it.each([false, true])(
    'is the answer header, the outcome id and the log lines of a served request (stream %s)',
    async (stream) => {
      const before = gateway.outcomes.length;
      const response = await chat('gpt-x', stream, { 'x-request-id': 'client-chosen-id' });
      await response.text();
      expect(response.status).toBe(200);
      const requestId = response.headers.get('x-request-id') ?? '';
      expect(requestId).toMatch(GATEWAY_ID);
      const outcome = await lastOutcomeAfter(before);
      expect(outcome.requestId).toBe(requestId);
      expect(outcome.upstreamRequestId).toBe('req_upstream_openai_1');
      const completed = logLines.filter((line) => line.msg === 'request completed' && line.requestId === requestId);
      expect(completed).toHaveLength(1);
      expect(completed[0]).toMatchObject({ upstreamRequestId: 'req_upstream_openai_1' });
      expect(JSON.stringify(logLines)).not.toContain('client-chosen-id');
    },
  );

  it('differs between two requests that send the same client x-request-id', async () => {
    const first = await chat('gpt-x', false, { 'x-request-id': 'same' });
    const second = await chat('gpt-x', false, { 'x-request-id': 'same' });
    await Promise.all([first.text(), second.text()]);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });

  it('is sent on refusals, unknown routes and health checks', async () => {
    const unauthenticated = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const unknownRoute = await fetch(`${gateway.origin}/v1/nowhere`);
    const health = await fetch(`${gateway.origin}/healthz`);
    const malformed = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect([unauthenticated.status, unknownRoute.status, health.status, malformed.status]).toEqual([
      401, 404, 200, 400,
    ]);
    for (const response of [unauthenticated, unknownRoute, health, malformed]) {
      await response.text();
      expect(response.headers.get('x-request-id')).toMatch(GATEWAY_ID);
    }
  });
});

describe('the upstream request id', () => {
  it("keeps Anthropic's request-id header", async () => {
    const before = gateway.outcomes.length;
    const response = await fetch(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.text();
    expect(response.status).toBe(200);
    const outcome = await lastOutcomeAfter(before);
    expect(outcome).toMatchObject({
      requestId: response.headers.get('x-request-id'),
      channelId: 'anthropic-ch',
      upstreamRequestId: 'req_011CSHoEeqs5C35K2UUqR7Fy',
    });
  });

  it('keeps the id of an upstream that refused the request', async () => {
    const before = gateway.outcomes.length;
    const response = await chat('fail-400', false);
    await response.text();
    expect(response.status).toBe(400);
    expect(await lastOutcomeAfter(before)).toMatchObject({
      status: 'failed',
      channelId: 'openai-ch',
      upstreamRequestId: 'req_upstream_openai_1',
    });
  });
});

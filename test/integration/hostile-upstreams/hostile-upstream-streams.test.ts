/**
 * Hostile upstreams against every client format, pass-through and translated: a stream cut in the
 * middle of an event, an upstream that drips one byte every 200 ms, one that sends bytes that are
 * not UTF-8 inside a text delta, and a valid stream too slow for its total deadline. The client
 * must only ever see complete SSE frames whose data is JSON (or `[DONE]`), then its format's error
 * event, then the end (each format's own error event); the outcome
 * is recorded once; the gateway closes the upstream connection when it gives up.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';
import {
  startHostileUpstream,
  type HostileBehaviour,
  type HostileProtocol,
  type HostileUpstream,
} from '../../support/hostile-upstream.ts';

type ClientKind = HostileProtocol | 'openai-responses-stored';

const PROTOCOLS: ReadonlyArray<HostileProtocol> = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'];
const BEHAVIOURS: ReadonlyArray<HostileBehaviour> = ['cut', 'cut-clean', 'drip', 'bad-utf8', 'slow'];
const PROVIDER: Readonly<Record<HostileProtocol, string>> = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  'anthropic-messages': 'anthropic',
  gemini: 'gemini',
};

let upstream: HostileUpstream;
let gateway: TestGateway;

/** Per-channel limits small enough for tests: gaps 5 s, attempts 1.2 s (slow) or 10 s; drip cut by rate. */
function channelFor(behaviour: HostileBehaviour, protocol: HostileProtocol): Record<string, unknown> {
  const id = `${behaviour}-${protocol}`;
  return {
    id,
    provider: PROVIDER[protocol],
    protocol,
    baseUrl: upstream.baseUrl(behaviour, protocol),
    apiKey: 'k',
    models: [id],
    timeoutMs: 5000,
    deadlineMs: behaviour === 'slow' ? 1200 : 10_000,
    minStreamRate: behaviour === 'drip' ? { bytes: 64, windowMs: 400 } : { bytes: 64, windowMs: 60_000 },
  };
}

beforeAll(async () => {
  upstream = await startHostileUpstream();
  const channels = BEHAVIOURS.flatMap((behaviour) => PROTOCOLS.map((protocol) => channelFor(behaviour, protocol)));
  gateway = await startTestGateway({ channels }, { keepAliveMs: 60_000 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function clientRequest(
  client: ClientKind,
  model: string,
): { path: string; headers: Record<string, string>; body: unknown } {
  const messages = [{ role: 'user', content: 'hi' }];
  switch (client) {
    case 'openai-chat':
      return {
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${TEST_KEY}` },
        body: { model, stream: true, stream_options: { include_usage: true }, messages },
      };
    case 'openai-responses':
      return {
        path: '/v1/responses',
        headers: { authorization: `Bearer ${TEST_KEY}` },
        body: { model, stream: true, store: false, input: 'hi' },
      };
    case 'openai-responses-stored':
      return {
        path: '/v1/responses',
        headers: { authorization: `Bearer ${TEST_KEY}` },
        body: { model, stream: true, input: 'hi' },
      };
    case 'anthropic-messages':
      return {
        path: '/v1/messages',
        headers: { 'x-api-key': TEST_KEY },
        body: { model, stream: true, max_tokens: 100, messages },
      };
    case 'gemini':
      return {
        path: `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
        headers: { 'x-goog-api-key': TEST_KEY },
        body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      };
  }
}

interface ParsedFrame {
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * Splits a client stream into frames and checks each is complete and carries JSON or `[DONE]`.
 * Gemini's late error is a data frame followed by the same error as bare JSON (its own flush).
 * @throws AssertionError on a partial frame or data that is not JSON
 */
function parseClientStream(text: string, client: ClientKind): ParsedFrame[] {
  let body = text;
  if (client === 'gemini') {
    const bare = /\n\n(\{"error":[^\n]*\})\n$/.exec(text);
    if (bare?.[1]) {
      expect(JSON.parse(bare[1])).toHaveProperty('error');
      body = text.slice(0, bare.index + 2);
    }
  }
  expect(body.endsWith('\n\n'), `stream ends inside a frame: ${JSON.stringify(body.slice(-120))}`).toBe(true);
  const frames: ParsedFrame[] = [];
  for (const block of body.split('\n\n')) {
    const lines = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
    if (lines.length === 0) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of lines) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
      else expect.fail(`unexpected line in a frame: ${JSON.stringify(line)}`);
    }
    expect(data, `frame without data: ${JSON.stringify(block)}`).toHaveLength(1);
    const payload = data[0] as string;
    if (payload !== '[DONE]')
      expect(() => JSON.parse(payload), `data is not JSON: ${payload.slice(0, 200)}`).not.toThrow();
    frames.push({ event, data: payload });
  }
  return frames;
}

function isErrorFrame(frame: ParsedFrame, client: ClientKind): boolean {
  if (frame.data === '[DONE]') return false;
  const payload = JSON.parse(frame.data) as { type?: string; error?: unknown };
  if (client === 'openai-chat' || client === 'gemini') return frame.event === undefined && payload.error !== undefined;
  return frame.event === 'error' && payload.type === 'error';
}

/** Asserts: content frames, then exactly the format's error event, then only its closing frames. */
function expectErrorEnding(frames: ParsedFrame[], client: ClientKind): void {
  const at = frames.findIndex((frame) => isErrorFrame(frame, client));
  expect(at, 'no error event in the stream').toBeGreaterThan(0);
  const after = frames.slice(at + 1);
  if (client === 'openai-responses' || client === 'openai-responses-stored') {
    expect(after.at(-1)?.data).toBe('[DONE]');
    for (const frame of after.slice(0, -1)) expect(frame.event).toBe('response.failed');
  } else {
    expect(after).toEqual([]);
  }
}

async function stream(client: ClientKind, model: string): Promise<{ status: number; text: string }> {
  const spec = clientRequest(client, model);
  const response = await request(`${gateway.origin}${spec.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...spec.headers },
    body: JSON.stringify(spec.body),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

/** The upstream protocol each client is paired with: its own (pass-through) or another (translated). */
const CASES: ReadonlyArray<readonly [string, ClientKind, HostileProtocol]> = [
  ['openai-chat pass-through', 'openai-chat', 'openai-chat'],
  ['openai-chat translated', 'openai-chat', 'anthropic-messages'],
  ['openai-responses pass-through', 'openai-responses', 'openai-responses'],
  ['openai-responses pass-through (stored)', 'openai-responses-stored', 'openai-responses'],
  ['openai-responses translated', 'openai-responses', 'openai-chat'],
  ['anthropic-messages pass-through', 'anthropic-messages', 'anthropic-messages'],
  ['anthropic-messages translated', 'anthropic-messages', 'openai-chat'],
  ['gemini pass-through', 'gemini', 'gemini'],
  ['gemini translated', 'gemini', 'openai-responses'],
];

async function outcomeOf(model: string): Promise<(typeof gateway.outcomes)[number]> {
  await waitFor(() => gateway.outcomes.some((o) => o.model === model));
  const outcomes = gateway.outcomes.filter((o) => o.model === model);
  expect(outcomes).toHaveLength(1);
  return outcomes[0] as (typeof gateway.outcomes)[number];
}

function takeOutcomes(model: string): void {
  for (let i = gateway.outcomes.length - 1; i >= 0; i--)
    if (gateway.outcomes[i]?.model === model) gateway.outcomes.splice(i, 1);
}

describe('an upstream stream cut in the middle of an event', () => {
  it.each(CASES)(
    '%s: complete frames, the error event, the end',
    { timeout: 8000 },
    async (_name, client, protocol) => {
      const model = `cut-${protocol}`;
      takeOutcomes(model);
      const { status, text } = await stream(client, model);
      expect(status).toBe(200);
      const frames = parseClientStream(text, client);
      expectErrorEnding(frames, client);
      const outcome = await outcomeOf(model);
      expect(outcome.status).toBe('failed');
      expect(outcome.errorKind).toBe('upstream-unavailable');
    },
  );
});

describe('an upstream answer that ends cleanly in the middle of an event', () => {
  it.each(CASES)(
    '%s: complete frames, the error event, the end',
    { timeout: 8000 },
    async (_name, client, protocol) => {
      const model = `cut-clean-${protocol}`;
      takeOutcomes(model);
      const { status, text } = await stream(client, model);
      expect(status).toBe(200);
      expectErrorEnding(parseClientStream(text, client), client);
      const outcome = await outcomeOf(model);
      expect(outcome.status).toBe('failed');
      expect(outcome.errorKind).toBe('upstream-malformed');
    },
  );
});

describe('an upstream that drips one byte every 200 ms', () => {
  it.each(CASES)('%s: cut by the minimum rate, upstream closed', { timeout: 8000 }, async (_name, client, protocol) => {
    const model = `drip-${protocol}`;
    takeOutcomes(model);
    const before = upstream.requests.length;
    const { status, text } = await stream(client, model);
    expect(status).toBe(200);
    expectErrorEnding(parseClientStream(text, client), client);
    const outcome = await outcomeOf(model);
    expect(outcome.status).toBe('failed');
    expect(outcome.errorKind).toBe('upstream-timeout');
    const record = upstream.requests[before];
    await waitFor(() => record?.closedByPeer === true);
  });
});

describe('a valid upstream stream slower than the total deadline', () => {
  it.each(CASES)('%s: cut at the deadline, upstream closed', { timeout: 8000 }, async (_name, client, protocol) => {
    const model = `slow-${protocol}`;
    takeOutcomes(model);
    const before = upstream.requests.length;
    const { status, text } = await stream(client, model);
    expect(status).toBe(200);
    const frames = parseClientStream(text, client);
    expectErrorEnding(frames, client);
    expect(frames.length).toBeGreaterThan(3);
    const outcome = await outcomeOf(model);
    expect(outcome.status).toBe('failed');
    expect(outcome.errorKind).toBe('upstream-timeout');
    const record = upstream.requests[before];
    await waitFor(() => record?.closedByPeer === true);
  });
});

describe('bytes that are not UTF-8 inside a text delta', () => {
  it.each(CASES)('%s: replaced by U+FFFD, the stream completes', { timeout: 8000 }, async (_name, client, protocol) => {
    const model = `bad-utf8-${protocol}`;
    takeOutcomes(model);
    const spec = clientRequest(client, model);
    const response = await request(`${gateway.origin}${spec.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...spec.headers },
      body: JSON.stringify(spec.body),
    });
    const bytes = Buffer.from(await response.body.arrayBuffer());
    expect(response.statusCode).toBe(200);
    // Valid UTF-8 throughout: a fatal decoder accepts the whole body.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const frames = parseClientStream(text, client);
    expect(frames.some((frame) => isErrorFrame(frame, client))).toBe(false);
    expect(text).toContain('bad \uFFFD(\uFFFD bytes');
    const outcome = await outcomeOf(model);
    expect(outcome.status).toBe('completed');
  });
});

/**
 * Key pools through the real gateway (README "Key pools"), with the official `openai` SDK as the
 * client and a fake OpenAI upstream that answers by the credential it is sent: a 429 (with
 * Retry-After), 401 or 403 on one credential rotates to the next credential of the SAME channel —
 * no failover record, no FailoverOccurred — and the refused credential is skipped until its
 * cooldown ends; only when every credential is refused does the request fail over to the next
 * channel. Per-credential RPM is enforced, and no secret reaches the logs, the admin API or the
 * metrics.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseLikeProvider } from '../../gateway/mock/strict-request-rules.ts';
import type { EventLog, LogRecord } from '../../schemas/event-log/event-log.ts';
import { decodeTrafficEvent } from '../../schemas/events/traffic-event-codec.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

const ADMIN_TOKEN = 'admin-token-for-key-pools-0001';

/** What the fake answers for a credential: a status (and Retry-After seconds), 200 when not listed. */
const REFUSALS: Readonly<Record<string, { status: number; retryAfter?: string }>> = {
  'sk-SECRET-pool-429': { status: 429, retryAfter: '30' },
  'sk-SECRET-short-429': { status: 429, retryAfter: '1' },
  'sk-SECRET-revoked': { status: 401 },
  'sk-SECRET-forbidden': { status: 403 },
  'sk-SECRET-all-x': { status: 429, retryAfter: '30' },
  'sk-SECRET-all-y': { status: 429, retryAfter: '30' },
};

/** OpenAI's error bodies (https://platform.openai.com/docs/guides/error-codes). */
const ERROR_BODIES: Readonly<Record<number, object>> = {
  429: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } },
  401: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
  403: { error: { message: 'You are not allowed to use this model', type: 'invalid_request_error', code: null } },
};

/** The fake OpenAI upstream: records the bearer key of every call, refuses what OpenAI refuses. */
interface KeyedUpstream {
  readonly baseUrl: string;
  readonly keysSeen: string[];
  close(): Promise<void>;
}

async function startKeyedUpstream(): Promise<KeyedUpstream> {
  const keysSeen: string[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      keysSeen.push(key);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; stream?: boolean };
      const strict = refuseLikeProvider('openai-chat', request.url ?? '', body);
      if (strict)
        return void response.writeHead(strict.status, { 'content-type': 'application/json' }).end(strict.body);
      const refusal = REFUSALS[key];
      if (refusal || key === '') {
        const status = refusal?.status ?? 401;
        response.writeHead(status, {
          'content-type': 'application/json',
          ...(refusal?.retryAfter ? { 'retry-after': refusal.retryAfter } : {}),
        });
        return void response.end(JSON.stringify(ERROR_BODIES[status]));
      }
      const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
      if (body.stream) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null, extra: object = {}) =>
          `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
        response.write(chunk({ role: 'assistant', content: 'pooled' }, null));
        response.write(chunk({}, 'stop'));
        response.write(
          `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage })}\n\n`,
        );
        return void response.end('data: [DONE]\n\n');
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'pooled' }, finish_reason: 'stop' }],
          usage,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    keysSeen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An EventLog that keeps what is published. */
function recordingLog(): EventLog & { readonly records: LogRecord[] } {
  const records: LogRecord[] = [];
  return {
    records,
    publish: (record) => void records.push(record),
    flush: async () => {},
    endOffsets: async () => [],
    subscribe: async () => ({ stop: async () => {} }),
    status: () => ({ pending: 0, spooled: 0, connected: true }),
    close: async () => {},
  };
}

let upstream: KeyedUpstream;
let gateway: TestGateway;
const eventLog = recordingLog();
const logLines: string[] = [];

beforeAll(async () => {
  upstream = await startKeyedUpstream();
  const channel = (id: string, credentials: object[], models: string[], priority = 0) => ({
    id,
    provider: 'openai',
    protocol: 'openai-chat',
    baseUrl: upstream.baseUrl,
    credentials,
    models,
    priority,
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  gateway = await startTestGateway(
    {
      channels: [
        channel(
          'pool',
          [
            { id: 'key-429', apiKey: 'sk-SECRET-pool-429' },
            { id: 'key-ok', apiKey: 'sk-SECRET-pool-ok' },
          ],
          ['pool-model'],
        ),
        channel(
          'short',
          [
            { id: 'short-429', apiKey: 'sk-SECRET-short-429' },
            { id: 'short-ok', apiKey: 'sk-SECRET-short-ok' },
          ],
          ['short-model'],
        ),
        channel(
          'auth',
          [
            { id: 'revoked', apiKey: 'sk-SECRET-revoked' },
            { id: 'forbidden', apiKey: 'sk-SECRET-forbidden' },
            { id: 'good', apiKey: 'sk-SECRET-good' },
          ],
          ['auth-model'],
        ),
        channel(
          'all-429',
          [
            { id: 'x', apiKey: 'sk-SECRET-all-x' },
            { id: 'y', apiKey: 'sk-SECRET-all-y' },
          ],
          ['all-model'],
          10,
        ),
        { ...channel('backup', [], ['all-model']), credentials: undefined, apiKey: 'sk-SECRET-backup' },
        channel(
          'limited',
          [
            { id: 'a', apiKey: 'sk-SECRET-limited-a', rpm: 1 },
            { id: 'b', apiKey: 'sk-SECRET-limited-b', rpm: 1 },
          ],
          ['limited-model'],
        ),
      ],
    },
    { eventLog, logger: pino({ level: 'debug' }, sink) },
    { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
  );
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const openai = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });

/** Sends one chat request with the SDK; the answer's text, or the error. */
async function ask(model: string, stream = false): Promise<string | null | undefined> {
  const messages = [{ role: 'user' as const, content: 'hi' }];
  if (stream)
    return (await openai().chat.completions.stream({ model, messages }).finalChatCompletion()).choices[0]?.message
      .content;
  return (await openai().chat.completions.create({ model, messages })).choices[0]?.message.content;
}

/** The outcome of the request sent by `send` (the last one emitted after it). */
async function outcomeOf(send: () => Promise<unknown>) {
  const before = gateway.outcomes.length;
  await send();
  await waitFor(() => gateway.outcomes.length > before);
  return gateway.outcomes[gateway.outcomes.length - 1]!;
}

/** The FailoverOccurred events published for `requestId`. */
function failoverEventsOf(requestId: string) {
  return eventLog.records
    .filter((record) => record.topic === TOPICS.failovers)
    .map((record) => decodeTrafficEvent(record.value))
    .filter((event) => event.type === 'FailoverOccurred' && event.event.requestId === requestId);
}

/** The key pool's channel view from the admin API. */
async function adminChannel(id: string) {
  const response = await fetch(`${gateway.origin}/admin/api/channels/${id}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const text = await response.text();
  expect(response.status).toBe(200);
  expect(text).not.toContain('SECRET');
  return (JSON.parse(text) as { channel: { credentials: Array<Record<string, unknown>> } }).channel;
}

describe('key pools', () => {
  it('rotates on a 429 to the next credential of the same channel: no failover, no FailoverOccurred', async () => {
    const outcome = await outcomeOf(async () => expect(await ask('pool-model')).toBe('pooled'));
    expect(outcome).toMatchObject({
      status: 'completed',
      channelId: 'pool',
      attempts: 1,
      failovers: [],
      credentialId: 'key-ok',
      credentialRotations: 1,
    });
    expect(upstream.keysSeen.slice(-2)).toEqual(['sk-SECRET-pool-429', 'sk-SECRET-pool-ok']);
    expect(failoverEventsOf(outcome.requestId)).toEqual([]);
  });

  it('skips the rate-limited credential on the following requests while its Retry-After runs', async () => {
    const seenBefore = upstream.keysSeen.length;
    for (const stream of [false, true, false, true]) {
      const outcome = await outcomeOf(async () => expect(await ask('pool-model', stream)).toBe('pooled'));
      expect(outcome).toMatchObject({
        channelId: 'pool',
        credentialId: 'key-ok',
        credentialRotations: 0,
        failovers: [],
      });
    }
    expect(upstream.keysSeen.slice(seenBefore)).toEqual(Array(4).fill('sk-SECRET-pool-ok'));
    const view = await adminChannel('pool');
    const refused = view.credentials.find((credential) => credential.id === 'key-429');
    expect(refused).toMatchObject({ hasApiKey: true, lastErrorKind: 'rate-limited', rotations: 1, requests: 1 });
    // Retry-After: 30 s from the refusal.
    expect(Date.parse(String(refused?.coolingUntil)) - Date.now()).toBeGreaterThan(20_000);
    expect(view.credentials.find((credential) => credential.id === 'key-ok')).toMatchObject({
      coolingUntil: null,
      requests: 5,
      rotations: 0,
    });
  });

  it('uses a credential again once its cooldown (Retry-After: 1) has ended', async () => {
    const first = await outcomeOf(() => ask('short-model'));
    expect(first).toMatchObject({ credentialId: 'short-ok', credentialRotations: 1 });
    const refusedAt = Date.now();
    const seenBefore = upstream.keysSeen.length;
    const triedAgain = () => upstream.keysSeen.slice(seenBefore).includes('sk-SECRET-short-429');
    // Requests until the refused credential is sent again, which the pool allows only once its cooldown is over.
    while (!triedAgain() && Date.now() - refusedAt < 15_000) {
      expect(await ask('short-model')).toBe('pooled');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(triedAgain()).toBe(true);
    expect(Date.now() - refusedAt).toBeGreaterThanOrEqual(1_000);
  }, 20_000);

  it('rotates past a 401 and a 403 to a working credential of the same channel', async () => {
    const outcome = await outcomeOf(async () => expect(await ask('auth-model')).toBe('pooled'));
    expect(outcome).toMatchObject({
      status: 'completed',
      channelId: 'auth',
      failovers: [],
      credentialId: 'good',
      credentialRotations: 2,
    });
    expect(failoverEventsOf(outcome.requestId)).toEqual([]);
    const view = await adminChannel('auth');
    expect(view.credentials.map((credential) => [credential.id, credential.lastErrorKind])).toEqual([
      ['revoked', 'unauthorized'],
      ['forbidden', 'forbidden'],
      ['good', null],
    ]);
    // 401/403 without Retry-After cool down for the default 10 minutes.
    const coolingFor = Date.parse(String(view.credentials[0]?.coolingUntil)) - Date.now();
    expect(coolingFor).toBeGreaterThan(500_000);
  });

  it('fails over to the next channel, with a FailoverOccurred, when every credential answers 429', async () => {
    const outcome = await outcomeOf(async () => expect(await ask('all-model')).toBe('pooled'));
    expect(outcome).toMatchObject({ status: 'completed', channelId: 'backup', attempts: 2, credentialId: 'default' });
    expect(outcome.failovers).toEqual([
      expect.objectContaining({
        channelId: 'all-429',
        errorKind: 'upstream-rate-limited',
        upstreamStatus: 429,
        nextChannelId: 'backup',
      }),
    ]);
    expect(failoverEventsOf(outcome.requestId)).toHaveLength(1);
    expect(upstream.keysSeen.slice(-3)).toEqual(['sk-SECRET-all-x', 'sk-SECRET-all-y', 'sk-SECRET-backup']);
    // Both cooling now: the pool's channel is not sent anything, the backup serves at once.
    const next = await outcomeOf(() => ask('all-model'));
    expect(next).toMatchObject({ channelId: 'backup', failovers: [expect.objectContaining({ channelId: 'all-429' })] });
    expect(upstream.keysSeen.slice(-2)).toEqual(['sk-SECRET-backup', 'sk-SECRET-backup']);
  });

  it('enforces each credential’s own RPM: one request each, then the channel is at its limit', async () => {
    const seenBefore = upstream.keysSeen.length;
    expect(await ask('limited-model')).toBe('pooled');
    expect(await ask('limited-model')).toBe('pooled');
    const error = await ask('limited-model').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(upstream.keysSeen.slice(seenBefore).sort()).toEqual(['sk-SECRET-limited-a', 'sk-SECRET-limited-b']);
  });

  it('shows credential ids and counts in the metrics, never a secret', async () => {
    const text = await (await fetch(`${gateway.origin}/metrics`)).text();
    expect(text).toContain('tollgate_credential_rotations_total{channel="pool",credential="key-429"} 1');
    expect(text).toMatch(/tollgate_credential_requests_total\{channel="pool",credential="key-ok"\} [1-9]/);
    expect(text).toMatch(/tollgate_credential_cooldown_seconds\{channel="pool",credential="key-429"\} \d/);
    expect(text).not.toContain('SECRET');
  });

  it('writes no secret to the log stream', () => {
    expect(logLines.some((line) => line.includes('credential rotated'))).toBe(true);
    expect(logLines.filter((line) => line.includes('SECRET'))).toEqual([]);
  });
});

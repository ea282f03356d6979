/**
 * SIGTERM drains `npm start`'s server (infra/processes/tollgate-server.ts, run as a child process
 * on its embedded engines): /readyz turns 503 at once, new requests are refused with 503 in their
 * own format, a stream that ends before the drain deadline completes normally, streams that would
 * never end are ended at the deadline with their format's error event (the SDKs' iterators throw,
 * nothing hangs), a non-streamed request still waiting at the deadline gets the 503 error answer,
 * the process exits 0, and each request is recorded once — the cut streams billed with usage
 * `partial`; a second signal ends the process at once. The fake upstream streams OpenAI Chat
 * chunks: model `endless` never ends on its own, model `brief` ends after BRIEF_CHUNKS chunks; a
 * non-streamed request is never answered.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileEventLog } from '../../../infra/event-log/file/file-event-log.ts';
import { decodeTrafficEvent } from '../../../schemas/events/traffic-event-codec.ts';
import type { TrafficEvent } from '../../../schemas/events/traffic-events.ts';
import { REPEAT_WINDOW_MS } from '../../../infra/processes/exit-on-signals.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { freePort } from '../../support/free-port.ts';
import { spawnGateway, withoutEngineVariables, type GatewayProcess } from '../../support/spawn-gateway.ts';

const API_KEY = 'sk-drain-test-key-0001';
const DRAIN_TIMEOUT_MS = 2000;
/** Chunks of the `brief` stream, one per CHUNK_INTERVAL_MS: it ends well inside the drain deadline. */
const BRIEF_CHUNKS = 5;
const CHUNK_INTERVAL_MS = 100;

let upstream: Server;
let gateway: GatewayProcess;
/** A second gateway, for the second-signal case. */
let impatient: GatewayProcess | undefined;
let dataDir = '';
let gatewayEnv: NodeJS.ProcessEnv = {};
/** Non-streamed requests the upstream received (and never answers). */
let unansweredJson = 0;

function chunk(model: string, delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-drain', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
}

/**
 * OpenAI Chat streaming: `endless` sends a chunk every CHUNK_INTERVAL_MS until the gateway hangs
 * up; `brief` ends after BRIEF_CHUNKS. A non-streamed request is never answered.
 */
function serveChat(request: IncomingMessage, response: ServerResponse): void {
  let body = '';
  request.on('data', (data: Buffer) => (body += data.toString()));
  request.on('end', () => {
    const { model, stream } = JSON.parse(body) as { model: string; stream?: boolean };
    if (stream !== true) {
      unansweredJson += 1;
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(chunk(model, { role: 'assistant', content: '' }));
    let sent = 0;
    const timer = setInterval(() => {
      if (model === 'brief' && sent === BRIEF_CHUNKS) {
        clearInterval(timer);
        response.write(chunk(model, {}, 'stop'));
        response.write(
          `data: ${JSON.stringify({ id: 'chatcmpl-drain', object: 'chat.completion.chunk', created: 0, model, choices: [], usage: { prompt_tokens: 7, completion_tokens: BRIEF_CHUNKS, total_tokens: 7 + BRIEF_CHUNKS } })}\n\n`,
        );
        response.end('data: [DONE]\n\n');
        return;
      }
      sent += 1;
      response.write(chunk(model, { content: `tick${sent} ` }));
    }, CHUNK_INTERVAL_MS);
    response.on('close', () => clearInterval(timer));
  });
}

/** Every traffic event the stopped gateway left in its embedded event log. */
async function recordedEvents(expectedRequests: number): Promise<TrafficEvent[]> {
  const log = createFileEventLog({ dataDir, pollIntervalMs: 20 });
  const events: TrafficEvent[] = [];
  const subscription = await log.subscribe({
    groupId: 'drain-test-reader',
    topics: [TOPICS.requests, TOPICS.usage],
    handleBatch: async (records) => void events.push(...records.map((record) => decodeTrafficEvent(record.value))),
  });
  try {
    await expect
      .poll(() => events.filter((e) => e.type === 'RequestCompleted').length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(expectedRequests);
  } finally {
    await subscription.stop();
    await log.close();
  }
  return events;
}

beforeAll(async () => {
  upstream = createServer(serveChat);
  const upstreamPort = await freePort();
  await new Promise<void>((resolve) => upstream.listen(upstreamPort, '127.0.0.1', resolve));
  dataDir = mkdtempSync(join(tmpdir(), 'tollgate-drain-'));
  const configPath = join(dataDir, 'tollgate.json');
  const channel = {
    id: 'slow-chat',
    provider: 'openai',
    protocol: 'openai-chat',
    baseUrl: `http://127.0.0.1:${upstreamPort}/v1`,
    apiKey: 'upstream-key',
    models: ['endless', 'brief'],
  };
  writeFileSync(configPath, JSON.stringify({ channels: [channel], keys: [{ name: 'drain', key: API_KEY }] }));
  gatewayEnv = {
    ...withoutEngineVariables(process.env, ['TOLLGATE_ADMIN_USER', 'TOLLGATE_ADMIN_PASSWORD']),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    TOLLGATE_DATA_DIR: dataDir,
    TOLLGATE_CONFIG: configPath,
    TOLLGATE_DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
  };
  gateway = await spawnGateway(gatewayEnv, 60_000);
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
  await impatient?.stop();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

/** Reads a stream to its end; resolves with the text and the error that ended it, if any. */
async function drainStream<T>(
  stream: AsyncIterable<T>,
  textOf: (item: T) => string,
): Promise<{ text: string; error?: unknown }> {
  let text = '';
  try {
    for await (const item of stream) text += textOf(item);
    return { text };
  } catch (error) {
    return { text, error };
  }
}

describe('SIGTERM drain of npm start (embedded engines)', () => {
  it('refuses new requests, finishes short streams, cuts endless ones at the deadline, exits 0 and records each request once', async () => {
    const ready = await fetch(`${gateway.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: { controlPlane: { ok: true }, eventLog: { ok: true } },
    });

    const openai = new OpenAI({ apiKey: API_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: API_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const endlessChat = await openai.chat.completions
      .create({ model: 'endless', messages: [{ role: 'user', content: 'go on' }], stream: true })
      .withResponse();
    const endlessMessages = await anthropic.messages
      .create({ model: 'endless', max_tokens: 1000, messages: [{ role: 'user', content: 'go on' }], stream: true })
      .withResponse();
    const chatIterator = endlessChat.data[Symbol.asyncIterator]();
    const messagesIterator = endlessMessages.data[Symbol.asyncIterator]();
    // Both streams have started (content reached the client) before the signal.
    await chatIterator.next();
    await messagesIterator.next();
    const brief = await openai.chat.completions
      .create({
        model: 'brief',
        messages: [{ role: 'user', content: 'short' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const waitingJson = openai.chat.completions
      .create({ model: 'endless', messages: [{ role: 'user', content: 'no stream' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    await expect.poll(() => unansweredJson).toBe(1);

    gateway.kill('SIGTERM');
    await expect.poll(async () => (await fetch(`${gateway.origin}/readyz`)).status, { timeout: 5000 }).toBe(503);
    const notReady = await fetch(`${gateway.origin}/readyz`);
    expect(await notReady.json()).toMatchObject({ status: 'draining', checks: { drain: { ok: false } } });
    expect((await fetch(`${gateway.origin}/healthz`)).status).toBe(200);

    const refusedChat = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'brief', messages: [{ role: 'user', content: 'late' }] }),
    });
    expect(refusedChat.status).toBe(503);
    expect(refusedChat.headers.get('retry-after')).toBe('1');
    expect(refusedChat.headers.get('connection')).toBe('close');
    expect(await refusedChat.json()).toMatchObject({
      error: { type: 'server_error', message: expect.stringContaining('shutting down') },
    });
    const refusedMessages = await fetch(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'brief', max_tokens: 10, messages: [{ role: 'user', content: 'late' }] }),
    });
    expect(refusedMessages.status).toBe(503);
    expect(await refusedMessages.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    const refusedGemini = await fetch(`${gateway.origin}/v1beta/models/brief:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'late' }] }] }),
    });
    expect(refusedGemini.status).toBe(503);
    expect(await refusedGemini.json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
    // The draining node still answers scrapes, and counts each refusal by its format.
    const metrics = await (await fetch(`${gateway.origin}/metrics`)).text();
    for (const format of ['openai-chat', 'anthropic-messages', 'gemini'])
      expect(metrics).toContain(`tollgate_admission_refusals_total{format="${format}",limit="shutting_down"} 1`);

    const briefResult = await drainStream(brief.data, (c) => c.choices[0]?.delta.content ?? '');
    expect(briefResult.error).toBeUndefined();
    expect(briefResult.text).toBe('tick1 tick2 tick3 tick4 tick5 ');

    const [chatResult, messagesResult] = await Promise.all([
      drainStream({ [Symbol.asyncIterator]: () => chatIterator }, (c) => c.choices[0]?.delta.content ?? ''),
      drainStream({ [Symbol.asyncIterator]: () => messagesIterator }, (e) =>
        e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : '',
      ),
    ]);
    expect(chatResult.text).toContain('tick1 ');
    expect(chatResult.error).toBeInstanceOf(OpenAI.APIError);
    expect(String((chatResult.error as Error).message)).toContain('shutting down');
    expect(messagesResult.text).toContain('tick1 ');
    expect(messagesResult.error).toBeInstanceOf(Anthropic.APIError);
    expect((messagesResult.error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error' },
    });

    const jsonError = await waitingJson;
    expect(jsonError).toBeInstanceOf(OpenAI.APIError);
    expect(jsonError).toMatchObject({
      status: 503,
      error: { type: 'server_error', message: expect.stringContaining('drain deadline') },
    });

    const exit = await gateway.exited;
    expect(exit).toEqual({ code: 0, signal: null });

    const events = await recordedEvents(4);
    const completed = events.flatMap((e) => (e.type === 'RequestCompleted' ? [e.event] : []));
    const usage = events.flatMap((e) => (e.type === 'UsageRecorded' ? [e.event] : []));
    // The refusals reached no channel: only the four accepted requests are recorded, each once.
    expect(completed).toHaveLength(4);
    const ids = {
      chat: endlessChat.response.headers.get('x-request-id'),
      messages: endlessMessages.response.headers.get('x-request-id'),
      brief: brief.response.headers.get('x-request-id'),
    };
    for (const id of [ids.chat, ids.messages]) {
      const record = completed.find((c) => c.requestId === id);
      expect(record).toMatchObject({
        status: 'failed',
        errorKind: 'shutting-down',
        httpStatus: 200,
        usage: { usageSource: 'partial' },
      });
      expect(record?.usage.outputTokens).toBeGreaterThan(0);
      expect(usage.filter((u) => u.requestId === id)).toEqual([
        expect.objectContaining({ usageSource: 'partial', channelId: 'slow-chat' }),
      ]);
    }
    expect(completed.filter((c) => !Object.values(ids).includes(c.requestId))).toEqual([
      expect.objectContaining({ stream: false, status: 'failed', errorKind: 'shutting-down', httpStatus: 503 }),
    ]);
    expect(completed.find((c) => c.requestId === ids.brief)).toMatchObject({
      status: 'completed',
      errorKind: null,
      usage: { usageSource: 'reported', outputTokens: BRIEF_CHUNKS },
    });
  }, 60_000);

  it('exits at once on a second signal, without waiting for the drain deadline', async () => {
    impatient = await spawnGateway(
      {
        ...gatewayEnv,
        TOLLGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-drain-')),
        TOLLGATE_DRAIN_TIMEOUT_MS: '600000',
      },
      60_000,
    );
    const openai = new OpenAI({ apiKey: API_KEY, baseURL: `${impatient.origin}/v1`, maxRetries: 0 });
    const endless = await openai.chat.completions.create({
      model: 'endless',
      messages: [{ role: 'user', content: 'go on' }],
      stream: true,
    });
    const iterator = endless[Symbol.asyncIterator]();
    await iterator.next();
    impatient.kill('SIGTERM');
    await expect.poll(async () => (await fetch(`${impatient!.origin}/readyz`)).status, { timeout: 5000 }).toBe(503);
    // A repeat inside REPEAT_WINDOW_MS is the same stop delivered twice (process group and npm); a person's second signal comes later.
    await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 200));
    impatient.kill('SIGTERM');
    // 128 + SIGTERM (15): the drain was not finished, the stream was cut with the connection.
    expect(await impatient.exited).toEqual({ code: 143, signal: null });
    expect(
      (await drainStream({ [Symbol.asyncIterator]: () => iterator }, (c) => c.choices[0]?.delta.content ?? '')).error,
    ).toBeDefined();
  }, 60_000);
});

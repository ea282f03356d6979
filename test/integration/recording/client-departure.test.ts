/**
 * Every accepted request is recorded exactly once, however and whenever it ends: the client
 * leaving while admission waits (never sent upstream), during the upstream call before its first
 * byte, in the middle of a stream, after the end; an upstream timeout and an upstream reset.
 * The outcome sink of the test gateway (`outcomes`) stands for RequestCompleted.
 */
import {
  request as httpRequest,
  createServer,
  type ClientRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';
import type { Admission, LimitScope, RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';
import { startTestGateway, waitFor, type TestGateway } from '../../support/start-gateway.ts';

const ADMIN = 'departure-admin-token-00000';

/** An OpenAI-compatible upstream whose behaviour is chosen by the upstream model name. */
interface ScriptedUpstream {
  readonly origin: string;
  /** Upstream models of the requests received, in order. */
  readonly received: string[];
  /** How many requests the upstream saw closed by the gateway before it finished answering. */
  closedEarly: number;
  close(): Promise<void>;
}

const CHUNK = (text: string) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] })}\n\n`;
const COMPLETION = JSON.stringify({
  id: 'c1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const sockets = new Set<Socket>();
  const upstream: ScriptedUpstream = { origin: '', received: [], closedEarly: 0, close: async () => {} };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const model = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string }).model);
      upstream.received.push(model);
      res.on('close', () => {
        if (!res.writableEnded) upstream.closedEarly++;
      });
      if (model === 'quick') return void res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
      if (model === 'hold') return; // never answers: the gateway must give up or be left
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(CHUNK('Hel'));
      if (model === 'reset') setTimeout(() => res.socket?.destroy(), 20);
      // 'drip': holds the stream open after the first chunk
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(upstream, {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** The memory limiter, except that `admit` can be held until released (admission that waits). */
class HeldLimiter implements RateLimiter {
  private readonly inner = createMemoryRateLimiter();
  private release: (() => void) | undefined;
  private heldGate: Promise<void> | undefined;
  /** Resolves when an admission reached the limiter while held. */
  reached: Promise<void> = Promise.resolve();
  private onReached: (() => void) | undefined;

  hold(): void {
    this.heldGate = new Promise((resolve) => (this.release = resolve));
    this.reached = new Promise((resolve) => (this.onReached = resolve));
  }

  open(): void {
    this.release?.();
    this.heldGate = undefined;
  }

  async admit(scopes: ReadonlyArray<LimitScope>, tokens: number, now?: number): Promise<Admission> {
    if (this.heldGate) {
      this.onReached?.();
      await this.heldGate;
    }
    return this.inner.admit(scopes, tokens, now);
  }

  settle(scopes: ReadonlyArray<LimitScope>, reserved: number, actual: number, now?: number): Promise<void> {
    return this.inner.settle(scopes, reserved, actual, now);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let limiter: HeldLimiter;
let apiKey: string;
const gatewaySockets: Socket[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  limiter = new HeldLimiter();
  const channel = (id: string, model: string, extra: Record<string, unknown> = {}) => ({
    id,
    provider: 'deepseek',
    protocol: 'openai-chat',
    baseUrl: `${upstream.origin}/v1`,
    apiKey: 'k',
    models: [model],
    modelMap: { [model]: model },
    ...extra,
  });
  gateway = await startTestGateway(
    {
      channels: [
        channel('quick', 'quick'),
        channel('hold', 'hold'),
        channel('drip', 'drip'),
        channel('reset', 'reset'),
        channel('slow', 'slow-hold', { modelMap: { 'slow-hold': 'hold' }, timeoutMs: 300 }),
      ],
    },
    { limiter },
    { TOLLGATE_ADMIN_TOKEN: ADMIN },
  );
  gateway.app.server.on('connection', (socket: Socket) => void gatewaySockets.push(socket));
  // A key with an RPM limit: its admission goes through the limiter.
  const created = await request(`${gateway.origin}/admin/api/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'limited', rpm: 10_000 }),
  });
  apiKey = ((await created.body.json()) as { apiKey: string }).apiKey;
});

afterEach(() => limiter.open());

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Starts one chat request on its own connection; `onResponse` sees the answer as it arrives. */
function startChat(
  model: string,
  stream: boolean,
  onResponse: (response: IncomingMessage) => void = (r) => r.resume(),
): { client: ClientRequest; done: Promise<void> } {
  const body = JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] });
  const client = httpRequest(
    `${gateway.origin}/v1/chat/completions`,
    {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    },
    onResponse,
  );
  const done = new Promise<void>((resolve) => client.on('close', () => resolve()));
  client.on('error', () => {});
  client.end(body);
  return { client, done };
}

/** Resolves once the gateway's side of the newest connection has closed, and its close handlers ran. */
async function gatewaySawClose(): Promise<void> {
  const socket = gatewaySockets[gatewaySockets.length - 1];
  if (!socket) throw new Error('no gateway connection');
  if (!socket.destroyed) await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The outcomes recorded for `model`, after waiting until at least one is and giving a late second one time to show. */
async function outcomesOf(model: string) {
  await waitFor(() => gateway.outcomes.some((o) => o.model === model));
  await new Promise((resolve) => setTimeout(resolve, 150));
  return gateway.outcomes.filter((o) => o.model === model);
}

describe('every accepted request is recorded exactly once', () => {
  it('a client that leaves while admission waits is recorded once as cancelled and never sent upstream', async () => {
    const before = upstream.received.length;
    limiter.hold();
    const { client } = startChat('drip', true);
    await limiter.reached;
    client.destroy();
    await gatewaySawClose();
    limiter.open();
    const outcomes = await outcomesOf('drip');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 'cancelled', httpStatus: 499, attempts: 0 });
    expect(outcomes[0]?.channelId).toBeUndefined();
    expect(upstream.received.length).toBe(before);
  });

  it('a client that leaves during the upstream call, before the first byte, is recorded once as cancelled and the upstream call is ended', async () => {
    const closedBefore = upstream.closedEarly;
    const { client } = startChat('hold', false);
    await waitFor(() => upstream.received.includes('hold'));
    client.destroy();
    const outcomes = await outcomesOf('hold');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 'cancelled', httpStatus: 499, channelId: 'hold' });
    await waitFor(() => upstream.closedEarly > closedBefore);
  });

  it('a client that leaves mid-stream is recorded once as cancelled', async () => {
    let firstBytes!: () => void;
    const gotBytes = new Promise<void>((resolve) => (firstBytes = resolve));
    const { client } = startChat('drip', true, (response) => response.once('data', () => firstBytes()));
    await gotBytes;
    client.destroy();
    const outcomes = (await outcomesOf('drip')).filter((o) => o.channelId === 'drip');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 'cancelled', channelId: 'drip' });
  });

  it('a client that leaves after the end is recorded once as completed', async () => {
    let text = '';
    const { client, done } = startChat('quick', false, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => client.destroy());
    });
    await done;
    expect(JSON.parse(text).choices[0].message.content).toBe('ok');
    const outcomes = await outcomesOf('quick');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 'completed', httpStatus: 200 });
  });

  it('an upstream timeout is recorded once as failed', async () => {
    const { done } = startChat('slow-hold', false);
    await done;
    const outcomes = await outcomesOf('slow-hold');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 'failed', errorKind: 'upstream-timeout', channelId: 'slow' });
  });

  it('an upstream reset mid-stream is recorded once as failed', async () => {
    const { done } = startChat('reset', true);
    await done;
    const outcomes = await outcomesOf('reset');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 'failed', channelId: 'reset', httpStatus: 200 });
  });
});

/**
 * The soak's upstream: the built-in mock upstream (gateway/mock/) behind a hostile front that
 * misbehaves per channel. A channel's base URL names the behaviour in its first path segment,
 * `http://127.0.0.1:PORT/h/<behaviour>` (+ `/v1` for the OpenAI protocols); the rest of the path
 * is the mock's, so every protocol works under every behaviour:
 * - `ok`: the mock's answer, piped as it comes;
 * - `slow`: the mock with 40 ms before each stream chunk;
 * - `fail`: an HTTP error answered at once, rotating 500, 503, 429, 400, 502 (JSON body);
 * - `cut`: the mock's answer cut in the middle (mid-frame for streams), then the socket destroyed;
 * - `stall`: headers and the first bytes of the answer, then silence until the gateway gives up;
 * - `reset`: the socket destroyed before any answer;
 * - `garbage`: 200 with a body that is neither valid JSON nor valid SSE, with invalid UTF-8 bytes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pipeline } from 'node:stream';
import { Agent, request } from 'undici';
import { startMockUpstream } from '../../gateway/mock/mock-upstream-server.ts';

/** The behaviours a soak channel can have (see the file comment). */
export const SOAK_UPSTREAM_BEHAVIOURS = ['ok', 'slow', 'fail', 'cut', 'stall', 'reset', 'garbage'] as const;
export type SoakUpstreamBehaviour = (typeof SOAK_UPSTREAM_BEHAVIOURS)[number];

/** A running soak upstream. */
export interface SoakUpstream {
  /** `http://127.0.0.1:PORT` of the hostile front. */
  readonly origin: string;
  /** Requests received per behaviour. */
  readonly received: Readonly<Record<SoakUpstreamBehaviour, number>>;
  close(): Promise<void>;
}

const FAIL_STATUSES = [500, 503, 429, 400, 502] as const;
/** How long a stalled answer stays open at most, ms (the gateway's channel timeout ends it first). */
const STALL_MAX_MS = 60_000;

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function isBehaviour(text: string | undefined): text is SoakUpstreamBehaviour {
  return (SOAK_UPSTREAM_BEHAVIOURS as ReadonlyArray<string>).includes(text ?? '');
}

/** Answers `incoming` by `behaviour`, calling the mock at `mockOrigin` where the behaviour needs its answer. */
function createHandler(
  mockOrigin: string,
  dispatcher: Agent,
  received: Record<SoakUpstreamBehaviour, number>,
  stalled: Set<Socket>,
) {
  let failures = 0;
  const forward = async (path: string, incoming: IncomingMessage, body: Buffer) =>
    request(`${mockOrigin}${path}`, {
      method: incoming.method as 'POST',
      headers: { 'content-type': incoming.headers['content-type'] ?? 'application/json' },
      body: incoming.method === 'GET' ? null : body,
      dispatcher,
    });

  return async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const match = /^\/h\/([a-z]+)(\/.*)$/.exec(incoming.url ?? '');
    const behaviour = match?.[1];
    const rest = match?.[2] ?? '/';
    if (!isBehaviour(behaviour)) return void outgoing.writeHead(404).end('{"error":"unknown soak behaviour"}');
    received[behaviour] += 1;
    const body = await readBody(incoming);
    switch (behaviour) {
      case 'reset':
        incoming.socket.destroy();
        return;
      case 'fail': {
        const status = FAIL_STATUSES[failures++ % FAIL_STATUSES.length] as number;
        outgoing
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `soak failure ${status}`, type: 'server_error', code: status } }));
        return;
      }
      case 'garbage': {
        const streamed = incoming.url?.includes('stream') || body.includes('"stream":true');
        outgoing.writeHead(200, { 'content-type': streamed ? 'text/event-stream' : 'application/json' });
        outgoing.end(
          Buffer.concat([
            Buffer.from(streamed ? 'data: {"not json\n\nevent: x\ndata: \u00e9' : '{"id": "x", "choices": [ '),
            Buffer.from([0xff, 0xfe, 0xc3]),
            Buffer.from('\n\n'),
          ]),
        );
        return;
      }
      default:
        break;
    }
    const answer = await forward(behaviour === 'slow' ? `/b/latency=0,chunk=40${rest}` : rest, incoming, body);
    const headers = { 'content-type': String(answer.headers['content-type'] ?? 'application/json') };
    if (behaviour === 'ok' || behaviour === 'slow') {
      outgoing.writeHead(answer.statusCode, headers);
      // pipeline destroys both sides when either fails (the gateway hanging up included).
      pipeline(answer.body, outgoing, () => undefined);
      return;
    }
    const whole = Buffer.from(await answer.body.arrayBuffer());
    outgoing.writeHead(answer.statusCode, headers);
    // Half the answer: for SSE this lands inside a frame almost always.
    outgoing.write(whole.subarray(0, Math.max(1, Math.floor(whole.length / 2))));
    if (behaviour === 'cut') {
      setTimeout(() => incoming.socket.destroy(), 5);
      return;
    }
    stalled.add(incoming.socket);
    const timer = setTimeout(() => incoming.socket.destroy(), STALL_MAX_MS);
    incoming.socket.once('close', () => {
      clearTimeout(timer);
      stalled.delete(incoming.socket);
    });
  };
}

/**
 * Starts the mock upstream and the hostile front on loopback (ephemeral ports).
 * @throws Error when either cannot listen
 */
export async function startSoakUpstream(): Promise<SoakUpstream> {
  const mock = await startMockUpstream(0);
  const dispatcher = new Agent({ connections: 256, keepAliveTimeout: 10_000 });
  const received = Object.fromEntries(SOAK_UPSTREAM_BEHAVIOURS.map((b) => [b, 0])) as Record<
    SoakUpstreamBehaviour,
    number
  >;
  const stalled = new Set<Socket>();
  const handle = createHandler(mock.baseUrl, dispatcher, received, stalled);
  const server: Server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch(() => incoming.socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    close: async () => {
      for (const socket of stalled) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.close();
      await mock.close();
    },
  };
}

/**
 * The scaling sweep's upstream: a plain node:http server (127.0.0.1, port 0, in the load
 * generator's process) that answers any POST whose path ends in `/chat/completions` in the
 * OpenAI Chat Completions shape (https://platform.openai.com/docs/api-reference/chat/create),
 * reading the whole request body whatever its size and answering a fixed small reply, so that only
 * the request size or the stream length changes between sweep points. The last user text chooses
 * the answer: `[sweep:events=N]` (1 ≤ N ≤ 100 000, default 20) is the number of content chunks of a
 * streamed answer (`"stream": true`), each followed by a final chunk with the finish reason and
 * usage, then `data: [DONE]` (https://platform.openai.com/docs/api-reference/chat-streaming).
 * A body that is not JSON, or any other path or method, gets 400/404 with an OpenAI error object.
 */
import { createServer, type ServerResponse } from 'node:http';

/** Content chunks of a streamed answer when the prompt names none. */
export const DEFAULT_SWEEP_EVENTS = 20;

/** The most content chunks a prompt may ask for. */
export const MAX_SWEEP_EVENTS = 100_000;

/** A running sweep upstream. */
export interface ScalingSweepUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /**
   * Ends the keep-alive connections not serving a request, so one server's idle pool does not
   * hold this process's file descriptors while the other server is measured
   * (https://nodejs.org/api/http.html#servercloseidleconnections).
   */
  closeIdleConnections(): void;
  /** Stops accepting, ends open connections. */
  close(): Promise<void>;
}

interface ChatRequest {
  readonly model?: unknown;
  readonly stream?: unknown;
  readonly messages?: ReadonlyArray<{ readonly role?: unknown; readonly content?: unknown }>;
}

/** `[sweep:events=N]` of the last user text (N clamped to 1 … MAX_SWEEP_EVENTS), else DEFAULT_SWEEP_EVENTS. */
export function requestedEvents(body: ChatRequest): number {
  const lastUser = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  const text = typeof lastUser?.content === 'string' ? lastUser.content : '';
  const match = /\[sweep:events=(\d+)\]/.exec(text.slice(-200));
  if (!match) return DEFAULT_SWEEP_EVENTS;
  return Math.min(MAX_SWEEP_EVENTS, Math.max(1, Number(match[1])));
}

function fail(response: ServerResponse, status: number, message: string): void {
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
}

function answer(response: ServerResponse, raw: Buffer): void {
  let body: ChatRequest;
  try {
    body = JSON.parse(raw.toString('utf8')) as ChatRequest;
  } catch {
    return fail(response, 400, 'request body is not JSON');
  }
  const model = typeof body.model === 'string' ? body.model : 'sweep-model';
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 0, total_tokens: 0 };
  if (body.stream !== true) {
    const completion = { ...usage, completion_tokens: 3, total_tokens: usage.prompt_tokens + 3 };
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-sweep',
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'Sweep reply.' }, finish_reason: 'stop' }],
        usage: completion,
      }),
    );
    return;
  }
  const events = requestedEvents(body);
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-sweep', object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const parts: string[] = [chunk({ role: 'assistant', content: '' }, null)];
  for (let i = 0; i < events; i += 1) parts.push(chunk({ content: ' tok' }, null));
  parts.push(
    chunk({}, 'stop', {
      usage: { ...usage, completion_tokens: events, total_tokens: usage.prompt_tokens + events },
    }),
  );
  parts.push('data: [DONE]\n\n');
  response.end(parts.join(''));
}

/** Starts the sweep upstream. @throws Error when it cannot listen */
export function startScalingSweepUpstream(): Promise<ScalingSweepUpstream> {
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      request.resume();
      return fail(response, 404, `no route ${request.method ?? '?'} ${request.url ?? '?'}`);
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => answer(response, Buffer.concat(chunks)));
  });
  server.keepAliveTimeout = 30_000;
  server.maxConnections = Infinity;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, backlog: 16_384 }, () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        closeIdleConnections: () => server.closeIdleConnections(),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}

/**
 * A loopback fake upstream for request-id and tracing tests: answers OpenAI Chat Completions
 * (`…/chat/completions`, JSON or SSE as the body's `stream` asks) and Anthropic Messages
 * (`…/v1/messages`, JSON) with one short text answer, adds the response headers it is told to
 * (e.g. the provider's own `x-request-id` / `request-id`), and records every request's headers.
 * A model named `fail-400` is answered with a 400 error body instead, and a request the real API
 * would refuse (unknown top-level field, orphan tool result: gateway/mock/strict-request-rules.ts)
 * with that API's 400.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseLikeProviderAt } from '../../gateway/mock/strict-request-rules.ts';

/** A running header-echo upstream. */
export interface HeaderEchoUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Request headers received, in order. */
  readonly requests: IncomingHttpHeaders[];
  close(): Promise<void>;
}

const CHAT_ANSWER = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};
const CHAT_CHUNKS = [
  {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }],
  },
  {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  },
];
const MESSAGES_ANSWER = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [{ type: 'text', text: 'hi' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 3, output_tokens: 1 },
};

async function readJson(request: IncomingMessage): Promise<{ model?: string; stream?: boolean }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string; stream?: boolean };
  } catch {
    return {};
  }
}

function answer(
  response: ServerResponse,
  url: string,
  body: { model?: string; stream?: boolean },
  headers: Record<string, string>,
): void {
  const refusal = refuseLikeProviderAt(url, body);
  if (refusal) {
    response.writeHead(refusal.status, { ...headers, 'content-type': 'application/json' });
    return void response.end(refusal.body);
  }
  if (body.model === 'fail-400') {
    response.writeHead(400, { ...headers, 'content-type': 'application/json' });
    return void response.end(
      JSON.stringify({ error: { message: 'bad request', type: 'invalid_request_error', param: null, code: null } }),
    );
  }
  if (url.split('?')[0]?.endsWith('/v1/messages')) {
    response.writeHead(200, { ...headers, 'content-type': 'application/json' });
    return void response.end(JSON.stringify(MESSAGES_ANSWER));
  }
  if (body.stream) {
    response.writeHead(200, { ...headers, 'content-type': 'text/event-stream' });
    return void response.end(
      `${CHAT_CHUNKS.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`,
    );
  }
  response.writeHead(200, { ...headers, 'content-type': 'application/json' });
  response.end(JSON.stringify(CHAT_ANSWER));
}

/** Starts the upstream on 127.0.0.1 (port chosen by the kernel); every answer carries `headers`. */
export async function startHeaderEchoUpstream(headers: Record<string, string> = {}): Promise<HeaderEchoUpstream> {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    requests.push(request.headers);
    void readJson(request).then((body) => answer(response, request.url ?? '/', body, headers));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

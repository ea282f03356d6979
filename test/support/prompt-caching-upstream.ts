/**
 * A loopback fake upstream that keeps its OWN prompt cache, as one provider account does: it
 * answers Anthropic Messages (`POST /v1/messages`) and OpenAI Chat Completions
 * (`POST /v1/chat/completions`), JSON or SSE as the body's `stream` asks, and reports as cached
 * the longest prefix of the request it has seen before on this same server.
 *
 * The prompt is cut into segments at message boundaries — Anthropic: tools, system, then each
 * message; OpenAI: tools, then each message (the system prompt is a message there) — and a prefix
 * is the first k segments, fingerprinted with the model. After answering, every prefix of the
 * request of at least `minCacheableTokens` tokens is cached (as Anthropic does with a
 * `cache_control` breakpoint on the last block,
 * https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#how-prompt-caching-works, and
 * as OpenAI does for prompts of 1024 tokens or more,
 * https://platform.openai.com/docs/guides/prompt-caching#how-it-works). Cache entries never
 * expire (a bench session lasts seconds, far below either provider's lifetime).
 *
 * Tokens are approximated as ⌈characters of the segment's JSON / 4⌉, the same for every request,
 * so counts are consistent between requests and servers. Usage reported (tokens):
 * - Anthropic: `cache_read_input_tokens` = the cached prefix, `cache_creation_input_tokens` = the
 *   rest when the whole prompt is cacheable (written to the cache), `input_tokens` = what is
 *   neither (the whole prompt when it is below the minimum);
 * - OpenAI: `prompt_tokens` = the whole prompt, `prompt_tokens_details.cached_tokens` = the cached
 *   prefix; streamed usage only with `stream_options.include_usage`.
 *
 * Refused like the provider: a missing key (401: Anthropic `x-api-key` or `Authorization: Bearer`,
 * which the Anthropic SDK sends; OpenAI `Authorization: Bearer`), a body that is not JSON (400), a request without `model`, `messages`
 * or (Anthropic) `max_tokens` (400), and what gateway/mock/strict-request-rules.ts refuses
 * (unknown top-level fields, orphan tool results). Other paths: 404.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseLikeProviderAt } from '../../gateway/mock/strict-request-rules.ts';

/** Options of startPromptCachingUpstream. */
export interface PromptCachingUpstreamOptions {
  /** Shortest prompt prefix cached, tokens (default 1024: both providers' minimum for their main models). */
  readonly minCacheableTokens?: number;
  /** Words of every answer's text (default 60); the answer names its turn, so histories differ. */
  readonly answerWords?: number;
}

/** What one answered request reported, tokens. */
export interface PromptCachingExchange {
  readonly protocol: 'anthropic-messages' | 'openai-chat';
  /** The whole prompt. */
  readonly inputTokens: number;
  /** The prefix found in this server's cache. */
  readonly cachedTokens: number;
  /** The part written to the cache (Anthropic `cache_creation_input_tokens`). */
  readonly cacheWriteTokens: number;
}

/** A running prompt-caching upstream. */
export interface PromptCachingUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The channel base URL for `protocol` (OpenAI Chat: `origin/v1`; Anthropic: `origin`). */
  baseUrl(protocol: 'anthropic-messages' | 'openai-chat'): string;
  /** Every answered request (2xx), in order. */
  readonly exchanges: PromptCachingExchange[];
  /** Prefixes held in this server's cache. */
  cachedPrefixes(): number;
  close(): Promise<void>;
}

/** Approximate tokens of a text: ⌈characters / 4⌉ (consistent, not a real tokenizer). */
export function approximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

type Body = Record<string, unknown>;

class RefusedRequest extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`refused with ${status}`);
  }
}

function anthropicError(status: number, type: string, message: string): RefusedRequest {
  return new RefusedRequest(status, JSON.stringify({ type: 'error', error: { type, message } }));
}

function openaiError(status: number, type: string, message: string, code: string | null = null): RefusedRequest {
  return new RefusedRequest(status, JSON.stringify({ error: { message, type, param: null, code } }));
}

/** The prompt's segments (see the module doc), each as the JSON of what the server received. */
function segmentsOf(protocol: PromptCachingExchange['protocol'], body: Body): string[] {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const head =
    protocol === 'anthropic-messages'
      ? [JSON.stringify(body.tools ?? null), JSON.stringify(body.system ?? null)]
      : [JSON.stringify(body.tools ?? null)];
  return [...head, ...messages.map((message) => JSON.stringify(message))];
}

/** The server's prompt cache: fingerprints of the prefixes it has seen. */
class PrefixCache {
  private readonly seen = new Set<string>();

  constructor(private readonly minTokens: number) {}

  get size(): number {
    return this.seen.size;
  }

  /** Looks up the longest cached prefix of `segments`, then caches every cacheable prefix. */
  serve(model: string, segments: ReadonlyArray<string>): { input: number; cached: number; written: number } {
    const hash = createHash('sha256').update(model);
    const prefixes: Array<{ fingerprint: string; tokens: number }> = [];
    let tokens = 0;
    for (const segment of segments) {
      hash.update('\u0000').update(segment);
      tokens += approximateTokens(segment);
      prefixes.push({ fingerprint: hash.copy().digest('hex'), tokens });
    }
    let cached = 0;
    for (const prefix of prefixes)
      if (prefix.tokens >= this.minTokens && this.seen.has(prefix.fingerprint)) cached = prefix.tokens;
    for (const prefix of prefixes) if (prefix.tokens >= this.minTokens) this.seen.add(prefix.fingerprint);
    const written = tokens >= this.minTokens ? tokens - cached : 0;
    return { input: tokens, cached, written };
  }
}

function checkAnthropic(request: IncomingMessage, body: Body): void {
  const key = request.headers['x-api-key'];
  const auth = request.headers.authorization;
  if ((typeof key !== 'string' || key === '') && (typeof auth !== 'string' || !/^Bearer \S+/.test(auth)))
    throw anthropicError(401, 'authentication_error', 'x-api-key header is required');
  if (typeof body.model !== 'string') throw anthropicError(400, 'invalid_request_error', 'model: Field required');
  if (typeof body.max_tokens !== 'number')
    throw anthropicError(400, 'invalid_request_error', 'max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw anthropicError(400, 'invalid_request_error', 'messages: at least one message is required');
}

function checkOpenAI(request: IncomingMessage, body: Body): void {
  const auth = request.headers.authorization;
  if (typeof auth !== 'string' || !/^Bearer \S+/.test(auth))
    throw openaiError(401, 'invalid_request_error', 'You did not provide an API key.', 'invalid_api_key');
  if (typeof body.model !== 'string')
    throw openaiError(400, 'invalid_request_error', 'you must provide a model parameter');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw openaiError(400, 'invalid_request_error', "Invalid 'messages': empty array.", 'empty_array');
}

function answerText(turn: number, words: number): string {
  const filler = Array.from({ length: words }, (_, i) => `word${(turn * 31 + i) % 97}`).join(' ');
  return `Answer to message ${turn}: ${filler}.`;
}

function sse(response: ServerResponse, events: ReadonlyArray<{ event?: string; data: unknown }>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events)
    response.write(
      `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    );
  response.end();
}

function json(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(body);
}

async function readBody(request: IncomingMessage, refuse: (message: string) => RefusedRequest): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw refuse('The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw refuse('The request body must be a JSON object.');
  return parsed as Body;
}

/** Starts the upstream on 127.0.0.1 (port chosen by the kernel) with an empty cache. */
export async function startPromptCachingUpstream(
  options: PromptCachingUpstreamOptions = {},
): Promise<PromptCachingUpstream> {
  const cache = new PrefixCache(options.minCacheableTokens ?? 1024);
  const answerWords = options.answerWords ?? 60;
  const exchanges: PromptCachingExchange[] = [];
  let answered = 0;

  const serveAnthropic = (request: IncomingMessage, body: Body, response: ServerResponse): void => {
    checkAnthropic(request, body);
    const usage = cache.serve(body.model as string, segmentsOf('anthropic-messages', body));
    const text = answerText((body.messages as unknown[]).length, answerWords);
    const outputTokens = approximateTokens(text);
    exchanges.push({
      protocol: 'anthropic-messages',
      inputTokens: usage.input,
      cachedTokens: usage.cached,
      cacheWriteTokens: usage.written,
    });
    const wireUsage = {
      input_tokens: usage.input - usage.cached - usage.written,
      cache_creation_input_tokens: usage.written,
      cache_read_input_tokens: usage.cached,
    };
    const id = `msg_cache${++answered}`;
    const message = { id, type: 'message', role: 'assistant', model: body.model, stop_sequence: null };
    if (body.stream !== true)
      return json(
        response,
        200,
        JSON.stringify({
          ...message,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          usage: { ...wireUsage, output_tokens: outputTokens },
        }),
      );
    sse(response, [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: { ...message, content: [], stop_reason: null, usage: { ...wireUsage, output_tokens: 1 } },
        },
      },
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: outputTokens },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  };

  const serveOpenAI = (request: IncomingMessage, body: Body, response: ServerResponse): void => {
    checkOpenAI(request, body);
    const usage = cache.serve(body.model as string, segmentsOf('openai-chat', body));
    const text = answerText((body.messages as unknown[]).length, answerWords);
    const outputTokens = approximateTokens(text);
    exchanges.push({
      protocol: 'openai-chat',
      inputTokens: usage.input,
      cachedTokens: usage.cached,
      cacheWriteTokens: usage.written,
    });
    const wireUsage = {
      prompt_tokens: usage.input,
      completion_tokens: outputTokens,
      total_tokens: usage.input + outputTokens,
      prompt_tokens_details: { cached_tokens: usage.cached, audio_tokens: 0 },
    };
    const base = { id: `chatcmpl-cache${++answered}`, created: 1, model: body.model };
    if (body.stream !== true)
      return json(
        response,
        200,
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: wireUsage,
        }),
      );
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
    const chunk = (choices: unknown[], extra: object = {}) => ({
      data: { ...base, object: 'chat.completion.chunk', choices, ...extra },
    });
    sse(response, [
      chunk([{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
      ...(streamOptions?.include_usage === true ? [chunk([], { usage: wireUsage })] : []),
      { data: '[DONE]' },
    ]);
  };

  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const anthropic = path === '/v1/messages';
    const openai = path === '/v1/chat/completions';
    if (request.method !== 'POST' || (!anthropic && !openai)) {
      request.resume();
      return json(response, 404, JSON.stringify({ error: { message: `no route ${request.method} ${path}` } }));
    }
    const refuse = (message: string): RefusedRequest =>
      anthropic
        ? anthropicError(400, 'invalid_request_error', message)
        : openaiError(400, 'invalid_request_error', message);
    readBody(request, refuse)
      .then((body) => {
        const refusal = refuseLikeProviderAt(path, body);
        if (refusal) throw new RefusedRequest(refusal.status, refusal.body);
        if (anthropic) serveAnthropic(request, body, response);
        else serveOpenAI(request, body, response);
      })
      .catch((error: unknown) => {
        if (error instanceof RefusedRequest) return json(response, error.status, error.body);
        json(response, 500, JSON.stringify({ error: { message: String(error) } }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: (protocol) => (protocol === 'openai-chat' ? `${origin}/v1` : origin),
    exchanges,
    cachedPrefixes: () => cache.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Writing answers to the client: JSON error and success bodies with the request-id headers every
 * SDK reads (`x-request-id` for OpenAI, `request-id` for Anthropic), and SSE stream headers
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html: text/event-stream, no-cache, no buffering, no compression).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { InboundCodec } from '../inbound/inbound-codec.ts';

/** Headers naming the request for every SDK. */
export function requestIdHeaders(requestId: string): Record<string, string> {
  return { 'x-request-id': requestId, 'request-id': requestId };
}

/**
 * Header naming the gateway limit that refused a request (`budget_exceeded`,
 * `daily_limit_exceeded`), in every client format: Anthropic's error body has no field for it.
 */
export const LIMIT_CODE_HEADER = 'x-tollgate-error-code';

/** Kinds of refusal whose `code` the LIMIT_CODE_HEADER carries. */
const LIMIT_KINDS: ReadonlySet<GatewayError['kind']> = new Set(['quota-exceeded', 'rate-limited']);

/** Sends `error` in the codec's envelope and status (plus LIMIT_CODE_HEADER for a coded limit refusal). Returns the status sent. */
export function sendErrorReply(
  reply: FastifyReply,
  codec: InboundCodec,
  error: GatewayError,
  requestId: string,
): number {
  const encoded = codec.encodeError(error);
  const limitCode = error.code !== undefined && LIMIT_KINDS.has(error.kind) ? { [LIMIT_CODE_HEADER]: error.code } : {};
  void reply
    .code(encoded.status)
    .headers({ ...requestIdHeaders(requestId), ...(encoded.headers ?? {}), ...limitCode })
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(encoded.body));
  return encoded.status;
}

/** Sends a JSON body (already serialised or an object). */
export function sendJsonReply(reply: FastifyReply, body: unknown, requestId: string): void {
  void reply
    .code(200)
    .headers(requestIdHeaders(requestId))
    .type('application/json; charset=utf-8')
    .send(typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * Takes the raw response over from Fastify and sets SSE headers with status 200. They leave with
 * the first write (the stream starts only when it has an event to send), one packet instead of two.
 */
export function startEventStream(reply: FastifyReply, requestId: string): ServerResponse {
  // Headers set on the reply before the stream started (x-ratelimit-*) go out too. getHeaders()
  // returns a new object, so the stream's own headers are set on it rather than spread into a copy.
  const headers = reply.getHeaders() as Record<string, string>;
  headers['content-type'] = 'text/event-stream; charset=utf-8';
  headers['cache-control'] = 'no-cache';
  headers.connection = 'keep-alive';
  headers['x-accel-buffering'] = 'no';
  Object.assign(headers, requestIdHeaders(requestId));
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, headers);
  flattenResponseHead(raw);
  return raw;
}

/**
 * Node keeps a response's head, the string `writeHead` builds (`_header`, read by `headersSent`),
 * for as long as the response lives, and builds it by concatenation: V8 holds it as a tree of about
 * 55 concatenations, 2.9 KB for an event stream's head (a heap snapshot of live streams), where the
 * flat string is under 0.5 KB. Reading a character of such a string makes V8 flatten it in place,
 * so a live stream keeps the flat head and the pieces are collected. Does nothing when the head is
 * not a string (a Node that keeps it otherwise).
 */
function flattenResponseHead(raw: ServerResponse): void {
  const head = (raw as { _header?: unknown })._header;
  if (typeof head === 'string' && head.length > 0) head.charCodeAt(0);
}

/** Writes `text` and waits for drain when the socket buffer is full (back-pressure). */
export async function writeWithBackpressure(raw: ServerResponse, text: string | Buffer): Promise<void> {
  if (raw.destroyed || raw.writableEnded) return;
  if (!raw.write(text)) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        raw.off('drain', done);
        raw.off('close', done);
        resolve();
      };
      raw.once('drain', done);
      raw.once('close', done);
    });
  }
}

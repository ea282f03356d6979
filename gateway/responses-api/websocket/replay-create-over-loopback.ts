/**
 * Runs one WebSocket `response.create` through the gateway's own `POST /v1/responses` route, over
 * HTTP on the address the gateway listens on, so that the turn gets exactly the pipeline of a
 * streamed HTTP request (auth, RPM/TPM limits, quotas, routing and failover, translation, usage
 * events and billing, one outcome). The SSE answer (https://platform.openai.com/docs/api-reference/responses-streaming)
 * is read with eventsource-parser and each event's JSON is handed on unchanged: in WebSocket mode the
 * server sends "the same events as the streaming API", one JSON message each
 * (https://developers.openai.com/api/docs/guides/websocket-mode). SSE comments (keep-alives) and
 * the `data: [DONE]` sentinel are SSE framing and are not handed on.
 * Aborting `signal` aborts the HTTP request; the route then treats the client as gone (cancelled
 * outcome, upstream request aborted).
 */
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { GatewayError } from '../../canonical/gateway-error.ts';
import { readSseEvents } from '../../exchange/read-sse-events.ts';
import {
  errorEventFromGatewayError,
  errorEventFromHttpAnswer,
  type ResponsesWebSocketErrorEvent,
} from './websocket-error-event.ts';

/** Event types that end a response (API reference, streaming events). */
const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set([
  'response.completed',
  'response.incomplete',
  'response.failed',
]);

/** One replayed create. */
export interface LoopbackCreate {
  /** Connection pool for the loopback calls (not the upstream one: its timeouts are upstream-sized). */
  readonly dispatcher: Dispatcher;
  /** The gateway's own origin, e.g. `http://127.0.0.1:8080`. */
  readonly origin: string;
  /** The connection's API key, sent as `Authorization: Bearer` (never logged). */
  readonly apiKey: string;
  /** The create body (`stream: true`). */
  readonly body: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  /** Receives each event's JSON text in order; awaited, so a slow client slows the read (back-pressure). */
  readonly onEvent: (json: string) => Promise<void>;
}

/**
 * How the replay ended:
 * - `streamed`: the route answered with an event stream; `terminal` is the last
 *   `response.completed|incomplete|failed` event's `response` object with its type (absent when the
 *   stream ended without one), `sawError` tells whether an `error` event was handed on;
 * - `refused`: the route answered an HTTP error before streaming (→ the WebSocket error event);
 * - `cancelled`: `signal` was aborted.
 */
export type LoopbackResult =
  | {
      readonly kind: 'streamed';
      readonly terminal?: { readonly type: string; readonly response: unknown };
      readonly sawError: boolean;
    }
  | { readonly kind: 'refused'; readonly error: ResponsesWebSocketErrorEvent }
  | { readonly kind: 'cancelled' };

/** The type of an event, from its SSE `event:` line (the route always writes it) or its JSON. */
function eventType(event: { event?: string; data: string }): string | undefined {
  if (event.event !== undefined) return event.event;
  try {
    const type = (JSON.parse(event.data) as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

async function relayEvents(body: Readable, onEvent: LoopbackCreate['onEvent']): Promise<LoopbackResult> {
  let terminal: { type: string; response: unknown } | undefined;
  let sawError = false;
  for await (const event of readSseEvents(body)) {
    if (event.data === '[DONE]' || event.data === '') continue;
    const type = eventType(event);
    if (type === 'error') sawError = true;
    if (type !== undefined && TERMINAL_EVENT_TYPES.has(type))
      terminal = { type, response: (JSON.parse(event.data) as { response?: unknown }).response };
    await onEvent(event.data);
  }
  return terminal ? { kind: 'streamed', terminal, sawError } : { kind: 'streamed', sawError };
}

/**
 * Replays `create` and relays its events. Never throws: a failure to reach the route, or a broken
 * stream, is reported as `refused` with a 500 `server_error` event (or `streamed` without terminal
 * when events were already handed on).
 */
export async function replayCreateOverLoopback(create: LoopbackCreate): Promise<LoopbackResult> {
  let answer: Dispatcher.ResponseData;
  try {
    answer = await request(`${create.origin}/v1/responses`, {
      method: 'POST',
      dispatcher: create.dispatcher,
      headers: { authorization: `Bearer ${create.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(create.body),
      signal: create.signal,
    });
  } catch (error) {
    if (create.signal.aborted) return { kind: 'cancelled' };
    return {
      kind: 'refused',
      error: errorEventFromGatewayError(
        new GatewayError('internal', `The response could not be started: ${(error as Error).message}`),
      ),
    };
  }
  const contentType = String(answer.headers['content-type'] ?? '');
  if (answer.statusCode !== 200 || !contentType.startsWith('text/event-stream')) {
    const text = await answer.body.text().catch(() => '');
    if (create.signal.aborted) return { kind: 'cancelled' };
    return {
      kind: 'refused',
      error: errorEventFromHttpAnswer(answer.statusCode === 200 ? 500 : answer.statusCode, text),
    };
  }
  try {
    return await relayEvents(answer.body, create.onEvent);
  } catch {
    answer.body.destroy();
    if (create.signal.aborted) return { kind: 'cancelled' };
    return { kind: 'streamed', sawError: false };
  }
}

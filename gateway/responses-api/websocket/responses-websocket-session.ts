/**
 * One Responses WebSocket connection (https://developers.openai.com/api/docs/guides/websocket-mode):
 * several responses per connection, one at a time; each `response.create` is replayed over HTTP
 * (replay-create-over-loopback.ts) and its events are sent back one JSON text message each; the
 * most recent finished response of the connection, when it was created with `store: false`, is
 * retained for connection-local continuation (connection-local-continuation.ts). A create that
 * continues the retained response consumes it: on success the new response takes its place, and
 * when the turn fails (an `error` event, `response.failed`, or a stream without terminal event)
 * the connection keeps no response, so continuing from the same id again answers
 * `previous_response_not_found` (the client then starts over with the whole context, as the guide
 * says for that error): a failed turn leaves no stale connection-local state to build on, which is
 * what the Open Responses compliance suite checks ("WebSocket Failed Continuation Evicts Cache",
 * https://github.com/openresponses/openresponses). A failed create that did not continue the
 * retained response leaves it in place.
 *
 * Behaviour per the guide and the WebSocket events reference
 * (https://developers.openai.com/api/reference/resources/responses/websocket-events):
 * - a malformed message or a refused create answers an `error` event; the connection stays usable;
 * - a `response.create` while a response is in flight answers an `error` event (400
 *   `invalid_request_error`, code `response_already_in_flight`): the guide runs responses
 *   sequentially on a connection and names no code for this case, so the code is this gateway's;
 * - the connection lasts at most `maxConnectionMs` (the guide's 60 minutes): then, once no response
 *   is in flight, the documented `websocket_connection_limit_reached` error is sent and the socket
 *   is closed (code 1000);
 * - the client closing the socket aborts the in-flight HTTP request (and so the upstream request);
 * - while a response runs, a Ping frame goes out every 15 s.
 * Memory per connection: one retained response (≤ `maxRetainedBytes` of JSON) and the message being
 * handled (the socket's `maxPayload` bounds it).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Dispatcher } from 'undici';
import type { WebSocket } from 'ws';
import { GatewayError } from '../../canonical/gateway-error.ts';
import {
  echoPreviousResponseId,
  expandContinuation,
  retainResponse,
  type RetainedResponse,
} from './connection-local-continuation.ts';
import { parseClientEvent, type WebSocketPayload } from './parse-client-event.ts';
import { replayCreateOverLoopback } from './replay-create-over-loopback.ts';
import {
  CONNECTION_LIMIT_MESSAGE,
  errorEventFromGatewayError,
  invalidClientEvent,
  type ResponsesWebSocketErrorEvent,
} from './websocket-error-event.ts';

/** Above this many queued outgoing bytes a send waits until the socket has written it (back-pressure). */
const SEND_HIGH_WATER_BYTES = 256 * 1024;
/**
 * While a response runs, a Ping frame (https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2; clients answer with a Pong) goes out this
 * often, ms, so that proxies do not close a socket that is silent while the model thinks — the
 * WebSocket counterpart of the SSE keep-alive comments, which are not relayed.
 */
const PING_INTERVAL_MS = 15_000;
/** `WebSocket.OPEN` (https://websockets.spec.whatwg.org/#dom-websocket-open). */
const OPEN = 1;

/** Per-connection bounds. */
export interface SessionLimits {
  /** Longest connection, ms (OpenAI: 60 minutes). */
  readonly maxConnectionMs: number;
  /** Largest retained previous response, bytes of JSON. */
  readonly maxRetainedBytes: number;
}

/** What a session needs from the app. */
export interface SessionDeps {
  /** Pool for the loopback HTTP calls. */
  readonly dispatcher: Dispatcher;
  /** The gateway's own origin (`http://127.0.0.1:PORT`). */
  readonly origin: string;
  /** The API key the connection was opened with (kept in memory only, never logged). */
  readonly apiKey: string;
  readonly limits: SessionLimits;
  readonly log: FastifyBaseLogger;
}

/** Drives one accepted WebSocket until it closes. */
export class ResponsesWebSocketSession {
  private retained: RetainedResponse | undefined;
  private inFlight: AbortController | undefined;
  private expired = false;
  private closed = false;
  private readonly durationTimer: NodeJS.Timeout;

  constructor(
    private readonly socket: WebSocket,
    private readonly deps: SessionDeps,
  ) {
    socket.on('message', (data: WebSocketPayload) => this.onMessage(data));
    socket.on('close', () => this.onClose());
    this.durationTimer = setTimeout(() => this.onDurationReached(), deps.limits.maxConnectionMs);
    this.durationTimer.unref();
  }

  /** Server shutdown: aborts the in-flight response and closes the socket (1001 "going away"). */
  shutdown(): void {
    this.onClose();
    if (this.socket.readyState === OPEN) this.socket.close(1001, 'server shutting down');
  }

  private onMessage(data: WebSocketPayload): void {
    if (this.closed) return;
    if (this.expired)
      return void this.send(invalidClientEvent(CONNECTION_LIMIT_MESSAGE, 'websocket_connection_limit_reached'));
    const parsed = parseClientEvent(data);
    if (!parsed.ok) return void this.send(parsed.error);
    if (this.inFlight) {
      return void this.send(
        invalidClientEvent(
          'A response is already in progress on this connection; wait for its terminal event before sending the next response.create.',
          'response_already_in_flight',
        ),
      );
    }
    const abort = new AbortController();
    this.inFlight = abort;
    void this.runResponse(parsed.body, abort.signal)
      .catch((error: unknown) => {
        this.deps.log.error({ err: error }, 'websocket response failed');
        return this.send(
          errorEventFromGatewayError(new GatewayError('internal', 'The response failed inside the gateway.')),
        );
      })
      .finally(() => {
        if (this.inFlight === abort) this.inFlight = undefined;
        if (this.expired) this.closeForDuration();
      });
  }

  /**
   * Replays one create (expanded when it continues the retained response) and relays its events.
   * A continuation of the retained response consumes it before the replay, so a turn that fails in
   * any way (refused, `response.failed`, broken stream, an exception) leaves none behind; its
   * events echo the `previous_response_id` the client named.
   */
  private async runResponse(body: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    const retained = this.retained;
    const continued = retained !== undefined && body.previous_response_id === retained.id ? retained : undefined;
    if (continued) this.retained = undefined;
    const outgoing = continued ? expandContinuation(body, continued) : body;
    const onEvent = continued
      ? (json: string) => this.sendText(echoPreviousResponseId(json, continued.id))
      : (json: string) => this.sendText(json);
    const heartbeat = setInterval(() => {
      if (this.socket.readyState === OPEN) this.socket.ping();
    }, PING_INTERVAL_MS);
    heartbeat.unref();
    const result = await replayCreateOverLoopback({
      dispatcher: this.deps.dispatcher,
      origin: this.deps.origin,
      apiKey: this.deps.apiKey,
      body: outgoing,
      signal,
      onEvent,
    }).finally(() => clearInterval(heartbeat));
    if (result.kind === 'cancelled') return;
    if (result.kind === 'refused') return this.send(result.error);
    if (!result.terminal) {
      if (!result.sawError)
        await this.send(
          errorEventFromGatewayError(
            new GatewayError('internal', 'The response stream ended before its terminal event.'),
          ),
        );
      return;
    }
    if (result.terminal.type !== 'response.failed')
      this.retained = retainResponse(outgoing, result.terminal.response, this.deps.limits.maxRetainedBytes);
  }

  private send(event: ResponsesWebSocketErrorEvent): Promise<void> {
    return this.sendText(JSON.stringify(event));
  }

  /** Sends one text message; waits for the socket to write it when its buffer is above the high-water mark. */
  private sendText(text: string): Promise<void> {
    if (this.socket.readyState !== OPEN) return Promise.resolve();
    if (this.socket.bufferedAmount < SEND_HIGH_WATER_BYTES) {
      this.socket.send(text);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.socket.send(text, () => resolve()));
  }

  private onDurationReached(): void {
    this.expired = true;
    if (!this.inFlight) this.closeForDuration();
  }

  private closeForDuration(): void {
    if (this.closed) return;
    void this.send(invalidClientEvent(CONNECTION_LIMIT_MESSAGE, 'websocket_connection_limit_reached')).finally(() => {
      if (this.socket.readyState === OPEN) this.socket.close(1000, 'connection limit reached');
    });
    this.onClose();
  }

  private onClose(): void {
    this.closed = true;
    clearTimeout(this.durationTimer);
    this.inFlight?.abort();
  }
}

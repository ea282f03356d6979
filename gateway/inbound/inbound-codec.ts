/**
 * The inbound port: one codec per client wire format. A codec never sees a provider or a channel;
 * it translates between its wire format and the canonical model only.
 */
import type { ClientFormat } from '../canonical/formats.ts';
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { CanonicalRequest, DecodeResult } from '../canonical/request.ts';
import type { CanonicalResponse } from '../canonical/response.ts';
import type { StreamEvent } from '../canonical/stream-event.ts';

/** What the route knows outside the body: Gemini carries model and streaming in the URL path. */
export interface DecodeHints {
  /** Model from the URL path (Gemini), already stripped of a `models/` prefix. */
  readonly model?: string;
  /** Streaming decided by the path (Gemini `:streamGenerateContent`). */
  readonly stream?: boolean;
}

/** Everything an encoder needs besides the canonical response. */
export interface EncodeContext {
  /** Gateway request id (`req_…`), also sent as `x-request-id` / `request-id`. */
  readonly requestId: string;
  /** The model name to show the client: the name the client asked for. */
  readonly model: string;
  /** The decoded request (for echoing tools, temperature, instructions… in Responses objects). */
  readonly request: CanonicalRequest;
  /** The client's body as parsed JSON (an object), for echoing fields the canonical model drops. */
  readonly rawRequest: Readonly<Record<string, unknown>>;
  /** Creation time, unix seconds. */
  readonly createdAt: number;
}

/**
 * Turns StreamEvents into SSE text. Stateful: one per response stream.
 * `encode` returns the complete frames for the event ('' if the event yields none), each frame
 * ending in a blank line. On `message-end` it emits the format's terminal frames (e.g.
 * `response.completed` + `data: [DONE]`); on `error` the format's mid-stream error frames.
 */
export interface StreamEncoder {
  encode(event: StreamEvent): string;
  /** A keep-alive frame that every official SDK of the format ignores. */
  keepAlive(): string;
  /**
   * The format's final body as the client received it, once the terminal event was encoded
   * (Responses: the `response` of `response.completed` / `response.incomplete`); undefined before,
   * and for formats without one.
   */
  finalBody?(): unknown;
}

/** An HTTP error answer in the client's format. */
export interface EncodedError {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One client wire format. */
export interface InboundCodec {
  readonly format: ClientFormat;
  /** Validates and decodes a generation request body. Never throws on bad input: returns ok=false. */
  decodeRequest(body: unknown, hints: DecodeHints): DecodeResult<CanonicalRequest>;
  /** Encodes a finished response as the format's JSON body (a plain object). */
  encodeResponse(response: CanonicalResponse, context: EncodeContext): unknown;
  createStreamEncoder(context: EncodeContext): StreamEncoder;
  /** Renders an error in the format's envelope with the right HTTP status. */
  encodeError(error: GatewayError): EncodedError;
  /** Decodes a token-count request (Anthropic count_tokens, Gemini countTokens, Responses input_tokens). */
  decodeCountTokensRequest?(body: unknown, hints: DecodeHints): DecodeResult<CanonicalRequest>;
  /** Encodes a token count (input tokens) as the format's count response body. */
  encodeCountTokensResponse?(inputTokens: number): unknown;
}

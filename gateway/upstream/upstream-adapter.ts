/**
 * The upstream port: one adapter per upstream protocol. An adapter never sees an inbound format;
 * it translates between the canonical model and its protocol, and applies provider quirks from
 * the channel's ProviderPreset.
 */
import type { UpstreamProtocol } from '../canonical/formats.ts';
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { CanonicalResponse } from '../canonical/response.ts';
import type { StreamEvent } from '../canonical/stream-event.ts';
import type { ProviderPreset } from '../providers/provider-preset.ts';
import type { TranslationNotes } from '../canonical/translation-notes.ts';

/** Where and as whom to call: resolved from the channel and the provider preset. */
export interface UpstreamTarget {
  /** Base URL in the protocol's SDK convention: OpenAI-style bases include `/v1`, Anthropic and Gemini bases don't. No trailing slash. */
  readonly baseUrl: string;
  /** Provider credential (never logged). */
  readonly apiKey: string;
  /** Model name to send upstream (after `modelMap`). */
  readonly upstreamModel: string;
  readonly provider: ProviderPreset;
}

/** A fully built upstream HTTP call (always POST). */
export interface UpstreamHttpRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Context for decoding an upstream answer. */
export interface UpstreamDecodeContext {
  readonly provider: ProviderPreset;
  readonly upstreamModel: string;
  readonly request: CanonicalRequest;
}

/** One SSE event as parsed from the upstream byte stream (comments are not delivered). */
export interface UpstreamSseEvent {
  readonly event?: string;
  readonly data: string;
}

/**
 * Turns upstream SSE events into StreamEvents following the grammar of stream-event.ts.
 * Stateful: one per upstream response.
 */
export interface UpstreamStreamDecoder {
  /** Decodes one SSE event into zero or more StreamEvents. Never throws: bad data yields an `error` event. */
  push(sse: UpstreamSseEvent): StreamEvent[];
  /**
   * The upstream closed the stream. Returns the closing events: open blocks are closed; if neither
   * message-end nor error was produced yet, an `error` event (kind `upstream-malformed`,
   * "stream ended before completion").
   */
  end(): StreamEvent[];
}

/** The URL and headers of an upstream call, without its body. */
export type UpstreamCallTarget = Omit<UpstreamHttpRequest, 'body'>;

/** Response headers as undici returns them. */
export type UpstreamHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** An upstream call and what its translation could not carry. */
export interface BuiltUpstreamRequest {
  readonly request: UpstreamHttpRequest;
  readonly notes: TranslationNotes;
}

/** One upstream protocol. */
export interface UpstreamAdapter {
  readonly protocol: UpstreamProtocol;
  /**
   * Builds the HTTP call. `notes.dropped` lists parts dropped as safe to lose (the caller logs
   * them); `notes.uncarried` the parts this protocol or provider cannot carry (the caller refuses
   * the request unless it passes the client's body through). Throws GatewayError('invalid-request')
   * only for requests that cannot be expressed at all.
   */
  buildRequest(request: CanonicalRequest, target: UpstreamTarget): BuiltUpstreamRequest;
  /**
   * Where a passed-through body goes and with which headers: the URL and headers `buildRequest`
   * would use for `request`, without translating the body (the caller sends the client's own).
   */
  passThroughTarget(request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget;
  /** Decodes a 2xx non-streamed body (already JSON-parsed). Throws GatewayError('upstream-malformed') on nonsense. */
  decodeResponse(body: unknown, context: UpstreamDecodeContext): CanonicalResponse;
  createStreamDecoder(context: UpstreamDecodeContext): UpstreamStreamDecoder;
  /**
   * Classifies a non-2xx answer (or a 2xx whose body is an error envelope) into a GatewayError:
   * 408/504 → upstream-timeout, 429 → upstream-rate-limited (retryAfterMs from headers),
   * 5xx/529 → upstream-unavailable, other 4xx → upstream-rejected with the same status and the
   * upstream's message. `body` is the raw text (may be empty or not JSON).
   */
  classifyError(status: number, body: string, headers: UpstreamHeaders): GatewayError;
  /** Builds the protocol's token-count call, when the protocol has one. */
  buildCountTokensRequest?(request: CanonicalRequest, target: UpstreamTarget): UpstreamHttpRequest;
  /** Reads the input-token count from a count-tokens answer. */
  decodeCountTokensResponse?(body: unknown): number;
}

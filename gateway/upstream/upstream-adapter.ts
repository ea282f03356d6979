/**
 * The upstream port: one adapter per upstream protocol. An adapter never sees an inbound format;
 * it translates between the canonical model and its protocol, and applies provider quirks from
 * the channel's ProviderPreset.
 */
import type { UpstreamProtocol } from '../canonical/formats.ts';
import { GatewayError } from '../canonical/gateway-error.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { CanonicalResponse } from '../canonical/response.ts';
import type { StreamEvent } from '../canonical/stream-event.ts';
import type { CloudSettings, CloudSurface, ProviderPreset } from '../providers/provider-preset.ts';
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
  /** A cloud channel's settings (region, project, api-version); absent for other providers. */
  readonly cloud?: CloudSettings | undefined;
}

/**
 * A fully built upstream HTTP call (always POST). Its body is JSON text, or on a pass-through the
 * bytes the client sent (exchange/pass-through-policy.ts passThroughBody), forwarded as they came
 * instead of decoded and encoded again.
 */
export interface UpstreamHttpRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

/** An upstream call an adapter built from a canonical request: its body is JSON text. */
export interface UpstreamJsonRequest extends UpstreamHttpRequest {
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
  readonly request: UpstreamJsonRequest;
  readonly notes: TranslationNotes;
}

/**
 * Which adapter serves a channel: its protocol, or `<surface>:<protocol>` for a protocol spoken
 * through a cloud's own URL scheme and framing (`bedrock:anthropic-messages`, `vertex:gemini`, …).
 */
export type UpstreamAdapterKey = UpstreamProtocol | `${CloudSurface}:${UpstreamProtocol}`;

/** The adapters a node can call, by UpstreamAdapterKey. */
export type UpstreamAdapters = Readonly<Partial<Record<UpstreamAdapterKey, UpstreamAdapter>>>;

/**
 * The adapter registered for `key`.
 * @throws GatewayError('upstream-unavailable', failover allowed) when this node has none (a
 *   channel of a protocol the node was built without).
 */
export function adapterFor(adapters: UpstreamAdapters, key: UpstreamAdapterKey): UpstreamAdapter {
  const adapter = adapters[key];
  if (adapter) return adapter;
  throw new GatewayError('upstream-unavailable', `This gateway node has no adapter for the ${key} protocol`);
}

/** The adapter key of a provider's endpoint for `protocol`: the protocol, prefixed by the endpoint's cloud surface. */
export function upstreamAdapterKey(provider: ProviderPreset, protocol: UpstreamProtocol): UpstreamAdapterKey {
  const surface = provider.endpoints[protocol]?.surface;
  return surface === undefined ? protocol : `${surface}:${protocol}`;
}

/**
 * Adds a channel's credential to a built upstream call: headers, or a signature over the whole
 * request (SigV4). Used for endpoints whose auth is `cloud-credentials`.
 */
export interface UpstreamAuthorizer {
  /**
   * Returns `request` with the channel's credential added. Tokens are cached per channel and
   * refreshed before they expire.
   * @throws GatewayError('upstream-unavailable', failover allowed) when no credential can be
   *   obtained (token endpoint down, bad client secret); the message names the channel and the
   *   cause, never the secret.
   */
  authorize(
    channel: UpstreamCredentialSource,
    request: UpstreamHttpRequest,
    signal?: UpstreamCallSignal,
  ): Promise<UpstreamHttpRequest>;
}

/** What the credentials step reads from a channel. `apiKey` is a secret: never log it. */
export interface UpstreamCredentialSource {
  readonly id: string;
  readonly provider: ProviderPreset;
  readonly protocol: UpstreamProtocol;
  readonly apiKey: string;
  readonly cloud?: CloudSettings | undefined;
  /** The pooled credential `apiKey` belongs to (README "Key pools"); absent: the channel's lone credential. */
  readonly credentialId?: string | undefined;
}

/**
 * Where the output of a continuation lies in its raw event (PassThroughTap.continuationFragment):
 * the contents of the JSON string that holds it, escapes undecoded, as offsets `[start, end)` of
 * the event's Latin-1 text (so byte offsets of the event), and the kind of block it adds to.
 */
export interface ContinuationFragment {
  readonly kind: 'text' | 'reasoning' | 'tool-call';
  readonly start: number;
  readonly end: number;
}

/**
 * What a pass-through relay reads of a streamed answer whose bytes go to the client unchanged, so
 * that it parses only the events that carry something for the request's outcome. Once the stream
 * has started, an event that merely continues a block already open (more text, reasoning or tool
 * arguments) carries no usage, stop reason, error, new block or end: the relay leaves it unparsed
 * and keeps only the bytes of the output it carries (its fragment), decoded only when an estimate
 * of the output is needed (no usage reported, or a stream cut short). A stream holds about as many
 * kept bytes as it has output characters, not its events' envelopes.
 */
export interface PassThroughTap {
  /**
   * True when an event, in a stream that has started, only continues an open text, reasoning or
   * tool-arguments block; false when unsure (the event is then decoded as on the translated
   * path). `rawEvent` is the event as the upstream wrote it (its field lines and the blank line
   * that ends it) read as Latin-1: one char per byte, never decoded, so ASCII reads as itself and
   * a multi-byte UTF-8 character appears as several chars above U+007F.
   */
  isContinuation(rawEvent: string): boolean;
  /**
   * The output a continuation carries (`rawEvent` as for isContinuation), located without parsing
   * it; undefined when it carries none (a ping, an empty or null text) or none could be found,
   * which leaves it out of an estimate of output tokens. Never throws.
   */
  continuationFragment(rawEvent: string): ContinuationFragment | undefined;
}

/** One upstream protocol. */
export interface UpstreamAdapter {
  readonly protocol: UpstreamProtocol;
  /**
   * How a streamed answer is framed: `sse` (default) — Server-Sent Events; `aws-eventstream` —
   * the AWS event stream binary encoding (application/vnd.amazon.eventstream,
   * https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html), each message
   * handed to the stream decoder as an UpstreamSseEvent whose `event` is the message's
   * `:event-type` (or `:exception-type` for an exception) and whose `data` is its payload as text.
   */
  readonly streamFraming?: 'sse' | 'aws-eventstream';
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
  /** The pass-through relay's reader of this protocol's streams (PassThroughTap); none: every event is decoded. */
  readonly passThroughTap?: PassThroughTap;
  /**
   * Classifies a non-2xx answer (or a 2xx whose body is an error envelope) into a GatewayError:
   * 408/504 → upstream-timeout, 429 → upstream-rate-limited (retryAfterMs from headers),
   * 5xx/529 → upstream-unavailable, other 4xx → upstream-rejected with the same status and the
   * upstream's message. `body` is the raw text (may be empty or not JSON).
   */
  classifyError(status: number, body: string, headers: UpstreamHeaders): GatewayError;
  /** Builds the protocol's token-count call, when the protocol has one. */
  buildCountTokensRequest?(request: CanonicalRequest, target: UpstreamTarget): UpstreamJsonRequest;
  /** Reads the input-token count from a count-tokens answer. */
  decodeCountTokensResponse?(body: unknown): number;
}

/**
 * What ends an upstream call early (the attempt's deadline, the client gone, the node's drain):
 * an AbortSignal (https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal) fits, and so does
 * the lighter OnceSignal the exchange makes per attempt. `reason`, once aborted, is what ended it
 * (a GatewayError for a missed limit). Listeners are called once; OnceSignal passes them no event.
 */
export interface UpstreamCallSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: (event?: unknown) => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: (event?: unknown) => void): void;
}

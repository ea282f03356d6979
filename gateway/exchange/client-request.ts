/**
 * One client request as the pipeline serves it (serve-generation.ts, serve-count-tokens.ts), and
 * the steps both share: stored-state resolution and decoding. The drain refusal and
 * authentication ran before, as the route's hooks (gateway/http/client-route-hooks.ts). Each
 * refusal is answered in the codec's own format and is not recorded.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../canonical/gateway-error.ts';
import type { ClientFormat } from '../canonical/formats.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { UncarriedPart } from '../canonical/translation-notes.ts';
import type { ControlPlaneView } from '../control-plane/control-plane-view.ts';
import type { DecodeHints, InboundCodec } from '../inbound/inbound-codec.ts';
import type { NodeDrain } from '../lifecycle/node-drain.ts';
import type { AdmissionDeps, AdmissionLimit } from '../policy/admit-request.ts';
import type { BudgetAdmissionDeps } from '../policy/budget-admission.ts';
import type { AttributionSettings } from '../policy/request-attribution.ts';
import type { ResolvedKey } from '../policy/resolve-api-key.ts';
import type { ResponseStore } from '../../schemas/state-store/response-store.ts';
import { sendErrorReply } from './client-response.ts';
import type { ExchangeDeps } from './exchange-types.ts';
import type { RequestStateResolver, ResolvedRequestState } from './request-state-resolver.ts';

/** What route handlers need from the app. */
export interface ClientRouteServices {
  /** Keys and users (the control-plane projection) and the secret their digests are keyed with. */
  readonly controlPlane: { readonly view: ControlPlaneView; readonly hmacSecret: Buffer };
  /** RPM/TPM limiter and spend counters for admission. */
  readonly admission: AdmissionDeps;
  /** Budgets and daily caps (policy/budget-admission.ts); none: no budget applies. */
  readonly budgets?: BudgetAdmissionDeps;
  readonly exchange: ExchangeDeps;
  /** Stored Responses answers (`store`, `previous_response_id`, retrieval); none: the Responses API is stateless. */
  readonly responseStore?: ResponseStore;
  /** The node's drain: generation requests are counted in flight, and refused once it began. None: never refused. */
  readonly drain?: NodeDrain;
  /** Records admission refusals and live streams (the outcome sink records the rest). None: not recorded. */
  readonly metrics?: PipelineMetrics;
  /** End-user precedence and team lookup for attribution (policy/request-attribution.ts); none: the defaults, no team tags. */
  readonly attribution?: AttributionSettings;
}

/** What the pipeline records on the node's metrics; gateway/metrics/gateway-metrics.ts implements it. */
export interface PipelineMetrics {
  /** A request refused before it reached a channel, by the limit that refused it. */
  recordRefusal(format: ClientFormat, limit: AdmissionLimit | 'channel' | 'shutting_down'): void;
  /** A streamed request was admitted; paired with streamClosed. */
  streamOpened(format: ClientFormat): void;
  /** A stream opened with streamOpened ended, however it ended. */
  streamClosed(format: ClientFormat): void;
}

/** Reads the presented API key from a request, per format (gateway/http/api-key-readers.ts). */
export type ApiKeyExtractor = (request: FastifyRequest) => string | undefined;

/** Request fields a client sends as headers rather than in the body (e.g. `anthropic-beta`). */
export type HeaderBorneFields = Pick<CanonicalRequest, 'anthropicBetas'>;

/** The decoded request with the header-borne fields added (none: unchanged). */
export function withHeaderFields(
  decoded: CanonicalRequest,
  fromHeaders: HeaderBorneFields | undefined,
): CanonicalRequest {
  return fromHeaders?.anthropicBetas && fromHeaders.anthropicBetas.length > 0
    ? { ...decoded, anthropicBetas: fromHeaders.anthropicBetas }
    : decoded;
}

/** One client request for serveGeneration or serveCountTokens: who serves it, who asks, and its HTTP exchange. */
export interface ClientRequest {
  readonly services: ClientRouteServices;
  /** The client format's codec: decodes the body, renders the answer and every refusal. */
  readonly codec: InboundCodec;
  /** The caller's key, resolved by the route's authenticate hook. */
  readonly key: ResolvedKey;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  /** What the route knows outside the body (Gemini: model and streaming from the path); none: nothing. */
  readonly hints?: DecodeHints;
  /** Fields the client sent as headers (`anthropic-beta`); none: nothing added. */
  readonly fromHeaders?: HeaderBorneFields;
  /** Resolves stored state before decoding (Responses `previous_response_id` / `store`); none: the body is used as sent. */
  readonly state?: RequestStateResolver;
  /**
   * True when the (resolved) body holds something only the translated path can carry, so it is
   * never passed through unchanged (Responses: a gateway-sealed compaction item). None: never.
   */
  readonly mustTranslate?: (body: Readonly<Record<string, unknown>>) => boolean;
}

/** What each parsed request body was read from, keyed by the parsed object (jsonSourceOf). */
const JSON_SOURCE_OF_BODY = new WeakMap<object, string | Uint8Array>();

/**
 * Remembers that the parsed request body `body` was read from `source` (the body parser calls it):
 * the client's bytes (a large body in valid UTF-8), else the text they decoded to. A pass-through then
 * forwards it instead of serializing the object again. Non-objects are ignored. Bytes are kept as
 * long as the parsed body, and must not change meanwhile.
 */
export function rememberJsonSource(body: unknown, source: string | Uint8Array): void {
  if (body !== null && typeof body === 'object') JSON_SOURCE_OF_BODY.set(body, source);
}

/**
 * What `body` was parsed from (UTF-8 bytes or text), or undefined when it was not parsed from a
 * request (a body the gateway built or replaced, such as a Responses body with its stored turns
 * resolved).
 */
export function jsonSourceOf(body: object): string | Uint8Array | undefined {
  return JSON_SOURCE_OF_BODY.get(body);
}

/** Decodes an object body with `decode`; on refusal (not an object, or invalid) answers 400 in the codec's format and returns undefined. */
export function decodeOrReply(
  decode: (body: unknown) => ReturnType<InboundCodec['decodeRequest']>,
  codec: InboundCodec,
  request: FastifyRequest,
  reply: FastifyReply,
  requestId: string,
): { value: CanonicalRequest; warnings: ReadonlyArray<string>; uncarried: ReadonlyArray<UncarriedPart> } | undefined {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    sendErrorReply(
      reply,
      codec,
      new GatewayError('invalid-request', 'The request body must be a JSON object'),
      requestId,
    );
    return undefined;
  }
  const decoded = decode(body);
  if (decoded.ok) return { value: decoded.value, warnings: decoded.warnings ?? [], uncarried: decoded.uncarried ?? [] };
  const code = decoded.param === 'previous_response_id' ? 'previous_response_not_found' : undefined;
  sendErrorReply(
    reply,
    codec,
    new GatewayError('invalid-request', decoded.message, {
      ...(decoded.param === undefined ? {} : { param: decoded.param }),
      ...(code ? { code } : {}),
    }),
    requestId,
  );
  return undefined;
}

/**
 * Runs the format's stored-state resolver on an object body: `request.body` becomes the resolved
 * body. On refusal answers in the codec's format and returns undefined. Other bodies are left to
 * the decoder to refuse.
 */
export async function resolveStateOrReply(
  state: RequestStateResolver,
  codec: InboundCodec,
  request: FastifyRequest,
  reply: FastifyReply,
  requestId: string,
  keyId: string,
  purpose: 'generate' | 'count',
): Promise<Partial<ResolvedRequestState> | undefined> {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  const result = await state.resolve(body as Record<string, unknown>, { keyId, requestId, purpose, log: request.log });
  if (result instanceof GatewayError) return void sendErrorReply(reply, codec, result, requestId);
  request.body = result.body;
  return result;
}

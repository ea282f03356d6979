/**
 * `POST /v1/responses/compact` (https://platform.openai.com/docs/api-reference/responses/compact),
 * served as one ordinary exchange — same auth, model permission, admission, routing, failover,
 * outcome (recorded and billed once) and OpenAI error envelope as `POST /v1/responses`:
 * - on an OpenAI Responses channel the client's body goes to the upstream's `…/responses/compact`
 *   with the model name mapped, and the upstream's answer is relayed unchanged (its `usage` is
 *   read for billing);
 * - on any other channel (and on an OpenAI Responses channel when the input holds a gateway-sealed
 *   compaction item, which must not leave the gateway) the channel's own model writes a summary of
 *   the conversation as an ordinary generation, and the client gets the compacted response object
 *   with the summary sealed in a gateway compaction item (build-compacted-response.ts).
 * The per-request codec and adapter wrappers below are how the standard exchange is told to do
 * this; nothing else in the exchange changes.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import { canPassThrough } from '../../exchange/pass-through-policy.ts';
import { normalizeResponsesUsage } from '../../upstream/openai-responses/normalize-responses-usage.ts';
import type {
  UpstreamAdapter,
  UpstreamAdapterKey,
  UpstreamAdapters,
  UpstreamDecodeContext,
} from '../../upstream/upstream-adapter.ts';
import type { InboundCodec } from '../../inbound/inbound-codec.ts';
import { encodeOpenAIError } from '../../inbound/openai-common/encode-openai-error.ts';
import { isJsonObject } from '../../inbound/openai-common/request-field-error.ts';
import type { RequestStateResolver } from '../../exchange/request-state-resolver.ts';
import type { ClientRequest } from '../../exchange/client-request.ts';
import { serveGeneration } from '../../exchange/serve-generation.ts';
import { openaiResponsesCodec } from '../../inbound/openai-responses/openai-responses-codec.ts';
import { buildCompactedResponse } from './build-compacted-response.ts';
import { compactionItemOpener, type CompactionSeal } from './compaction-seal.ts';
import { decodeCompactRequest } from './decode-compact-request.ts';
import { holdsGatewayCompactionItem } from '../../inbound/openai-responses/decode-compaction-item.ts';

/** Which channel wrote the summary of this request (set when its answer is decoded). */
interface SummaryAuthor {
  provider?: string;
  model?: string;
}

/** One compact request: the client request as a generation route reads it, and the seal for the summary. */
export interface CompactionRequest extends ClientRequest {
  /**
   * Resolves `previous_response_id` (earlier turns prepended to `input`, or 400
   * `previous_response_not_found`); asked as for a token count, so the compaction itself is
   * never kept as a stored response. Required.
   */
  readonly state: RequestStateResolver;
  /** Seals the summary into the compaction item the client receives. */
  readonly seal: CompactionSeal;
}

/** Serves one compact request on its `reply`; never throws (every failure is an OpenAI error answer). */
export async function serveResponsesCompaction(compaction: CompactionRequest): Promise<void> {
  const { services, seal, state: storedState, request } = compaction;
  // `input` is optional on compact: with only a previous response, the stored turns are the whole input.
  const state: RequestStateResolver = {
    resolve: (body, context) =>
      storedState.resolve(body.input === undefined || body.input === null ? { ...body, input: [] } : body, {
        ...context,
        purpose: 'count',
      }),
  };
  const author: SummaryAuthor = {};
  // Read when the exchange runs: the body the exchange forwards is `request.body` at that time.
  const rawBody = (): Readonly<Record<string, unknown>> => (isJsonObject(request.body) ? request.body : {});
  const adapters = compactionAdapters(services.exchange.adapters, rawBody, author);
  await serveGeneration({
    services: { ...services, exchange: { ...services.exchange, adapters } },
    codec: compactionCodec(seal, author),
    key: compaction.key,
    request,
    reply: compaction.reply,
    state,
    mustTranslate: holdsGatewayCompactionItem,
  });
}

/** The codec of one compact request: decodes the compact body, encodes the compacted response. */
function compactionCodec(seal: CompactionSeal, author: SummaryAuthor): InboundCodec {
  return {
    format: 'openai-responses',
    decodeRequest: (body) => decodeCompactRequest(body, compactionItemOpener(seal)),
    encodeResponse: (response, context) => {
      const encryptedContent = seal.seal({
        summary: summaryText(response),
        provider: author.provider ?? '',
        model: author.model ?? response.model,
        createdAt: context.createdAt,
      });
      return buildCompactedResponse({
        input: context.rawRequest.input,
        encryptedContent,
        usage: response.usage,
        createdAt: context.createdAt,
      });
    },
    // Compaction is never streamed (the decoded request has stream:false); present for the interface.
    createStreamEncoder: (context) => openaiResponsesCodec.createStreamEncoder(context),
    encodeError: encodeOpenAIError,
  };
}

function summaryText(response: CanonicalResponse): string {
  return response.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('')
    .trim();
}

/**
 * Every protocol's adapter, deciding per call as the exchange does (pass-through-policy.ts):
 * passed through, the OpenAI Responses adapter calls `…/responses/compact` and reads the
 * compacted response's usage; otherwise the decode notes the summary's author and refuses an
 * empty summary (a failover-worthy upstream fault).
 */
function compactionAdapters(
  adapters: UpstreamAdapters,
  rawBody: () => Readonly<Record<string, unknown>>,
  author: SummaryAuthor,
): UpstreamAdapters {
  const wrapped: Partial<Record<UpstreamAdapterKey, UpstreamAdapter>> = {};
  for (const [key, adapter] of Object.entries(adapters) as Array<[UpstreamAdapterKey, UpstreamAdapter]>) {
    const passThrough = (): boolean =>
      !holdsGatewayCompactionItem(rawBody()) && canPassThrough('openai-responses', adapter.protocol, rawBody(), false);
    wrapped[key] = {
      ...adapter,
      // Called on the pass-through path only (run-exchange.ts): the body goes to `…/responses/compact`.
      passThroughTarget(request, target) {
        const call = adapter.passThroughTarget(request, target);
        return { ...call, url: compactUrl(call.url) };
      },
      decodeResponse: (body, context) =>
        passThrough() ? decodeUpstreamCompaction(body, context) : decodeSummary(adapter, body, context, author),
    };
  }
  return wrapped;
}

function decodeSummary(
  adapter: UpstreamAdapter,
  body: unknown,
  context: UpstreamDecodeContext,
  author: SummaryAuthor,
): CanonicalResponse {
  const response = adapter.decodeResponse(body, context);
  if (summaryText(response) === '')
    throw new GatewayError(
      'upstream-malformed',
      'The upstream model answered the summarisation request without any text',
    );
  author.provider = context.provider.id;
  author.model = context.upstreamModel;
  return response;
}

/** `{baseUrl}/responses` → `{baseUrl}/responses/compact` (a query string, if any, kept). */
function compactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt < 0 ? `${url}/compact` : `${url.slice(0, queryAt)}/compact${url.slice(queryAt)}`;
}

/** Reads an upstream compacted response (relayed unchanged) for its usage. */
function decodeUpstreamCompaction(body: unknown, context: UpstreamDecodeContext): CanonicalResponse {
  if (!isJsonObject(body) || !Array.isArray(body.output))
    throw new GatewayError('upstream-malformed', 'Upstream answered the compact request without an output list');
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: context.upstreamModel,
    content: [],
    finishReason: { unified: 'stop' },
    usage: normalizeResponsesUsage(body.usage),
  };
}

/**
 * The OpenAI Responses client format (`POST /v1/responses`, `POST /v1/responses/input_tokens`),
 * per https://platform.openai.com/docs/api-reference/responses. Its routes and the features around it
 * (stored responses, compaction, WebSocket mode) live in gateway/responses-api/.
 */
import type { InboundCodec } from '../inbound-codec.ts';
import { encodeOpenAIError } from '../openai-common/encode-openai-error.ts';
import { decodeResponsesCountTokensRequest, decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponsesResponse } from './encode-responses-response.ts';
import { createResponsesStreamEncoder } from './responses-stream-encoder.ts';
import type { CompactionItemOpener } from './decode-compaction-item.ts';

/**
 * Codec of format `openai-responses`:
 * - decodeRequest: create body → CanonicalRequest (ok=false with a dot-path `param` on bad input;
 *   `previous_response_id` is resolved by the route before decoding, gateway/responses-api/stored-responses/);
 * - encodeResponse: the full Response object (https://platform.openai.com/docs/api-reference/responses/object);
 * - createStreamEncoder: the event sequences of https://platform.openai.com/docs/api-reference/responses-streaming
 *   + `data: [DONE]`;
 * - encodeError: `{error:{message,type,param,code}}` with the GatewayError's status (https://platform.openai.com/docs/guides/error-codes);
 * - decodeCountTokensRequest / encodeCountTokensResponse: `{"object":"response.input_tokens","input_tokens":N}`.
 *
 * `compactionOpener` opens compaction items the gateway sealed (decode-compaction-item.ts); a
 * codec built without one refuses them with a 400 naming the item.
 */
export function createOpenaiResponsesCodec(compactionOpener?: CompactionItemOpener): InboundCodec {
  return {
    format: 'openai-responses',
    decodeRequest: (body) => decodeResponsesRequest(body, compactionOpener),
    encodeResponse: encodeResponsesResponse,
    createStreamEncoder: createResponsesStreamEncoder,
    encodeError: encodeOpenAIError,
    decodeCountTokensRequest: (body, hints) => decodeResponsesCountTokensRequest(body, hints, compactionOpener),
    encodeCountTokensResponse: (inputTokens) => ({ object: 'response.input_tokens', input_tokens: inputTokens }),
  };
}

/** The codec without a compaction opener: error rendering, the mock upstream, tests. */
export const openaiResponsesCodec: InboundCodec = createOpenaiResponsesCodec();

/**
 * The OpenAI Responses client format (`POST /v1/responses`, `POST /v1/responses/input_tokens`),
 * per https://platform.openai.com/docs/api-reference/responses. Routes live in routes.ts (owned by the lead).
 */
import type { InboundCodec } from '../inbound-codec.ts';
import { encodeOpenAIError } from '../openai-common/encode-openai-error.ts';
import { decodeResponsesCountTokensRequest, decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponsesResponse } from './encode-responses-response.ts';
import { createResponsesStreamEncoder } from './responses-stream-encoder.ts';

/**
 * Codec of format `openai-responses`:
 * - decodeRequest: create body → CanonicalRequest (ok=false with a dot-path `param` on bad input;
 *   `previous_response_id` is resolved by the route before decoding, stored-responses/);
 * - encodeResponse: the full Response object (https://platform.openai.com/docs/api-reference/responses/object);
 * - createStreamEncoder: the event sequences of https://platform.openai.com/docs/api-reference/responses-streaming
 *   + `data: [DONE]`;
 * - encodeError: `{error:{message,type,param,code}}` with the GatewayError's status (https://platform.openai.com/docs/guides/error-codes);
 * - decodeCountTokensRequest / encodeCountTokensResponse: `{"object":"response.input_tokens","input_tokens":N}`.
 */
export const openaiResponsesCodec: InboundCodec = {
  format: 'openai-responses',
  decodeRequest: (body, hints) => decodeResponsesRequest(body, hints),
  encodeResponse: encodeResponsesResponse,
  createStreamEncoder: createResponsesStreamEncoder,
  encodeError: encodeOpenAIError,
  decodeCountTokensRequest: (body, hints) => decodeResponsesCountTokensRequest(body, hints.model, hints.compactionSeal),
  encodeCountTokensResponse: (inputTokens) => ({ object: 'response.input_tokens', input_tokens: inputTokens }),
};

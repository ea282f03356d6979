/**
 * The OpenAI Responses upstream adapter (https://platform.openai.com/docs/api-reference/responses), for OpenAI and the providers with a
 * Responses-compatible endpoint (DeepSeek, DashScope, MiniMax; gateway/providers/PROVIDER-DOCS.md). Always
 * stateless (`store:false`). Token counting (`/responses/input_tokens`) is not wired here.
 */
import { classifyOpenAiError } from '../shared/classify-openai-error.ts';
import type { UpstreamAdapter } from '../upstream-adapter.ts';
import { buildResponsesRequest, responsesCallTarget } from './build-responses-request.ts';
import { decodeResponsesResponse } from './decode-responses-response.ts';
import { createResponsesStreamDecoder } from './decode-responses-stream.ts';

/** Adapter for protocol `openai-responses`: `POST {baseUrl}/responses`. */
export const openaiResponsesAdapter: UpstreamAdapter = {
  protocol: 'openai-responses',
  buildRequest: buildResponsesRequest,
  passThroughTarget: responsesCallTarget,
  decodeResponse: decodeResponsesResponse,
  createStreamDecoder: createResponsesStreamDecoder,
  classifyError: classifyOpenAiError,
};

/**
 * The Amazon Bedrock Converse upstream adapter: every model family Bedrock serves through Converse
 * and ConverseStream (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html), streamed
 * answers framed as AWS event streams, token counts through CountTokens
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html). The
 * calls carry no credential: the credentials step signs them or adds the Bedrock API key.
 */
import type { CanonicalRequest } from '../../canonical/request.ts';
import { classifyBedrockHttpError } from '../shared/classify-bedrock-error.ts';
import { bedrockModelPathSegment } from '../shared/bedrock-model-path.ts';
import { readTokenCount } from '../shared/read-token-count.ts';
import type { UpstreamAdapter, UpstreamJsonRequest, UpstreamTarget } from '../upstream-adapter.ts';
import { buildConverseBody, buildConverseRequest, converseCallTarget } from './build-converse-request.ts';
import { decodeConverseResponse } from './decode-converse-response.ts';
import { createConverseStreamDecoder } from './decode-converse-stream.ts';

/** Fields of a Converse body that CountTokens takes (ConverseTokensRequest); the rest are generation settings. */
const COUNTED_FIELDS = ['messages', 'system', 'toolConfig', 'additionalModelRequestFields'] as const;

/**
 * `POST {baseUrl}/model/{modelId}/count-tokens` with `{input: {converse: {messages, system,
 * toolConfig, additionalModelRequestFields}}}`; translation notes are discarded.
 */
function buildConverseCountTokensRequest(request: CanonicalRequest, target: UpstreamTarget): UpstreamJsonRequest {
  const { body } = buildConverseBody(request, target);
  const converse: Record<string, unknown> = {};
  for (const field of COUNTED_FIELDS) if (body[field] !== undefined) converse[field] = body[field];
  return {
    url: `${target.baseUrl}/model/${bedrockModelPathSegment(target.upstreamModel)}/count-tokens`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: { converse } }),
  };
}

/** Reads `inputTokens` (tokens) of a CountTokens answer; throws GatewayError('upstream-malformed') without it. */
function decodeConverseCountTokensResponse(body: unknown): number {
  return readTokenCount(body, 'inputTokens', 'CountTokens');
}

/** UpstreamAdapter for protocol `bedrock-converse` (adapter keys `bedrock-converse` and `bedrock:bedrock-converse`). */
export const bedrockConverseAdapter: UpstreamAdapter = {
  protocol: 'bedrock-converse',
  streamFraming: 'aws-eventstream',
  buildRequest: buildConverseRequest,
  passThroughTarget: converseCallTarget,
  decodeResponse: decodeConverseResponse,
  createStreamDecoder: createConverseStreamDecoder,
  classifyError: classifyBedrockHttpError,
  buildCountTokensRequest: buildConverseCountTokensRequest,
  decodeCountTokensResponse: decodeConverseCountTokensResponse,
};

/**
 * The Anthropic Messages upstream adapter: true Anthropic and the Anthropic-compatible endpoints of
 * DeepSeek, Moonshot, Zhipu, MiniMax, DashScope and Xiaomi MiMo (https://docs.anthropic.com/en/api/messages,
 * gateway/providers/PROVIDER-DOCS.md). Provider differences come from the preset's quirks:
 * `defaultMaxTokens`, `forwardAnthropicBeta`, `strictThinkingSignatures`.
 */
import { readTokenCount } from '../shared/read-token-count.ts';
import type { UpstreamAdapter } from '../upstream-adapter.ts';
import {
  buildAnthropicCountTokensRequest,
  buildAnthropicRequest,
  anthropicCallTarget,
} from './build-anthropic-request.ts';
import { classifyAnthropicError } from './classify-anthropic-error.ts';
import { decodeAnthropicResponse } from './decode-anthropic-response.ts';
import { createAnthropicStreamDecoder } from './decode-anthropic-stream.ts';
import { anthropicPassThroughTap } from './anthropic-pass-through-tap.ts';

/**
 * Reads `input_tokens` (tokens) from a `/v1/messages/count_tokens` answer (https://docs.anthropic.com/en/api/messages-count-tokens).
 * Throws GatewayError('upstream-malformed') when it is missing.
 */
function decodeAnthropicCountTokensResponse(body: unknown): number {
  return readTokenCount(body, 'input_tokens', 'count_tokens');
}

/** UpstreamAdapter for protocol `anthropic-messages`. */
export const anthropicMessagesAdapter: UpstreamAdapter = {
  protocol: 'anthropic-messages',
  buildRequest: buildAnthropicRequest,
  passThroughTarget: anthropicCallTarget,
  decodeResponse: decodeAnthropicResponse,
  createStreamDecoder: createAnthropicStreamDecoder,
  passThroughTap: anthropicPassThroughTap,
  classifyError: classifyAnthropicError,
  buildCountTokensRequest: buildAnthropicCountTokensRequest,
  decodeCountTokensResponse: decodeAnthropicCountTokensResponse,
};

/**
 * The Anthropic Messages inbound codec (https://docs.anthropic.com/en/api/messages): `POST /v1/messages` and
 * `POST /v1/messages/count_tokens`, for @anthropic-ai/sdk, the Python SDK and Claude Code.
 */
import type { InboundCodec } from '../inbound-codec.ts';
import { createAnthropicStreamEncoder } from './anthropic-stream-encoder.ts';
import { decodeAnthropicCountTokensRequest, decodeAnthropicRequest } from './decode-anthropic-request.ts';
import { encodeAnthropicError } from './encode-anthropic-error.ts';
import { encodeAnthropicResponse } from './encode-anthropic-response.ts';

/**
 * Anthropic Messages (https://docs.anthropic.com/en/api/messages): decode, encode, stream
 * (https://docs.anthropic.com/en/docs/build-with-claude/streaming), errors (https://docs.anthropic.com/en/api/errors),
 * count_tokens `{input_tokens}` (https://docs.anthropic.com/en/api/messages-count-tokens).
 */
export const anthropicMessagesCodec: InboundCodec = {
  format: 'anthropic-messages',
  decodeRequest: (body) => decodeAnthropicRequest(body),
  encodeResponse: encodeAnthropicResponse,
  createStreamEncoder: createAnthropicStreamEncoder,
  encodeError: encodeAnthropicError,
  decodeCountTokensRequest: (body) => decodeAnthropicCountTokensRequest(body),
  encodeCountTokensResponse: (inputTokens: number) => ({ input_tokens: inputTokens }),
};

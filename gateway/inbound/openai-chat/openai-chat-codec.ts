/**
 * The OpenAI Chat Completions client format (`POST /v1/chat/completions`), per
 * https://platform.openai.com/docs/api-reference/chat. Routes live in routes.ts (owned by the lead).
 */
import type { InboundCodec } from '../inbound-codec.ts';
import { encodeOpenAIError } from '../openai-common/encode-openai-error.ts';
import { createChatStreamEncoder } from './chat-stream-encoder.ts';
import { decodeChatRequest } from './decode-chat-request.ts';
import { encodeChatResponse } from './encode-chat-response.ts';

/**
 * Codec of format `openai-chat`:
 * - decodeRequest: body → CanonicalRequest (ok=false with a dot-path `param` on bad input, or for n>1);
 * - encodeResponse: `chat.completion` (https://platform.openai.com/docs/api-reference/chat/object);
 * - createStreamEncoder: data-only `chat.completion.chunk` frames + `data: [DONE]` (https://platform.openai.com/docs/api-reference/chat-streaming);
 * - encodeError: `{error:{message,type,param,code}}` with the GatewayError's status.
 */
export const openaiChatCodec: InboundCodec = {
  format: 'openai-chat',
  decodeRequest: (body) => decodeChatRequest(body),
  encodeResponse: encodeChatResponse,
  createStreamEncoder: createChatStreamEncoder,
  encodeError: encodeOpenAIError,
};

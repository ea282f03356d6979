/**
 * The OpenAI Chat Completions upstream adapter (https://platform.openai.com/docs/api-reference/chat), used for OpenAI and
 * every Chat-compatible provider (gateway/providers/PROVIDER-DOCS.md): DeepSeek, DashScope, Moonshot, MiniMax,
 * Zhipu, Xiaomi MiMo, Gemini's OpenAI layer. Chat Completions has no token-count endpoint.
 */
import type { UpstreamAdapter } from '../upstream-adapter.ts';
import { buildChatRequest, chatCallTarget } from './build-chat-request.ts';
import { classifyOpenAiError } from '../shared/classify-openai-error.ts';
import { decodeChatResponse } from './decode-chat-response.ts';
import { createChatStreamDecoder } from './decode-chat-stream.ts';
import { chatPassThroughTap } from './chat-pass-through-tap.ts';

/** Adapter for protocol `openai-chat`: `POST {baseUrl}/chat/completions`. */
export const openaiChatAdapter: UpstreamAdapter = {
  protocol: 'openai-chat',
  buildRequest: buildChatRequest,
  passThroughTarget: chatCallTarget,
  decodeResponse: decodeChatResponse,
  createStreamDecoder: createChatStreamDecoder,
  passThroughTap: chatPassThroughTap,
  classifyError: classifyOpenAiError,
};

/**
 * The OpenAI embeddings API as an upstream (https://platform.openai.com/docs/api-reference/embeddings/create):
 * `POST {baseUrl}/embeddings` with `{model, input, dimensions?, encoding_format, user?}`, answered
 * `{object: "list", data: [{object: "embedding", index, embedding}], model, usage: {prompt_tokens,
 * total_tokens}}` (shared/openai-embedding-wire.ts). Spoken by OpenAI and the providers whose
 * presets list `openai` embeddings (DashScope compatible-mode, Zhipu, Mistral, Gemini's OpenAI
 * layer, the compatible kinds).
 *
 * The gateway always asks for `encoding_format: "float"`, the one encoding every compatible
 * provider serves (DashScope serves no other,
 * https://www.alibabacloud.com/help/en/model-studio/text-embedding-synchronous-api), and writes
 * base64 for the client itself; an upstream that answers base64 anyway is decoded.
 */
import { authHeadersFor, authSchemeFor } from '../../providers/auth-headers.ts';
import type { BuiltEmbeddingCall, EmbeddingAdapter, EmbeddingCall } from '../embedding-adapter.ts';
import { classifyOpenAiError } from '../shared/classify-openai-error.ts';
import { decodeOpenAiEmbeddingAnswer, openAiEmbeddingBody } from '../shared/openai-embedding-wire.ts';
import type { UpstreamTarget } from '../upstream-adapter.ts';

/** `POST {baseUrl}/embeddings` with openAiEmbeddingBody and the provider's credential headers. */
export function buildOpenAiEmbeddingCall(call: EmbeddingCall, target: UpstreamTarget): BuiltEmbeddingCall {
  const { body, dropped } = openAiEmbeddingBody(call, target);
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...authHeadersFor(authSchemeFor(target.provider, 'openai-chat'), target.apiKey),
  };
  return { request: { url: `${target.baseUrl}/embeddings`, headers, body: JSON.stringify(body) }, dropped };
}

/** The `openai` embedding style. */
export const openaiEmbeddingsAdapter: EmbeddingAdapter = {
  style: 'openai',
  buildCall: buildOpenAiEmbeddingCall,
  decodeAnswer: decodeOpenAiEmbeddingAnswer,
  classifyError: classifyOpenAiError,
};

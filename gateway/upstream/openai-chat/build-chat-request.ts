/**
 * CanonicalRequest → `POST {baseUrl}/chat/completions` (https://platform.openai.com/docs/api-reference/chat), with the
 * provider quirks of gateway/providers/PROVIDER-DOCS.md applied: max-tokens field name, reasoning toggles,
 * tool_choice degradation (Zhipu), dropped fields (DashScope), usage on streams.
 */
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { ProviderPreset } from '../../providers/provider-preset.ts';
import type { BuiltUpstreamRequest, UpstreamCallTarget, UpstreamTarget } from '../upstream-adapter.ts';
import { encodeChatMessages } from './encode-chat-messages.ts';
import { encodeChatReasoning } from './encode-chat-reasoning.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';
import {
  finishOpenAiRequest,
  encodeOpenAiResponseFormat,
  encodeOpenAiTool,
  encodeOpenAiToolChoice,
  OPENAI_PLATFORM_FIELDS,
  openAiCallTarget,
  type OpenAiEndpoint,
} from '../shared/openai-request-building-blocks.ts';

/** Body keys the gateway owns; an extension may not override them. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['model', 'messages', 'stream']);

/**
 * Chat Completions request fields (https://platform.openai.com/docs/api-reference/chat/create)
 * outside the canonical model that a client of another format may carry in `extensions`.
 */
const CHAT_FIELDS: ReadonlySet<string> = new Set([
  'presence_penalty',
  'frequency_penalty',
  'seed',
  ...OPENAI_PLATFORM_FIELDS,
]);

/** The Chat Completions endpoint, `POST {baseUrl}/chat/completions`. */
const CHAT_COMPLETIONS: OpenAiEndpoint = {
  protocol: 'openai-chat',
  path: '/chat/completions',
  protocolFields: CHAT_FIELDS,
  reservedKeys: RESERVED_KEYS,
};

/**
 * `tools` + `tool_choice`. With `toolChoiceAutoOnly` (Zhipu) a forced choice degrades to `auto`
 * and `none` is expressed by not sending the tools at all (both with a warning).
 */
function encodeTools(
  request: CanonicalRequest,
  provider: ProviderPreset,
  body: Record<string, unknown>,
  warnings: TranslationNotes,
): void {
  const choice = request.toolChoice;
  if (provider.quirks.toolChoiceAutoOnly && choice?.type === 'none') {
    warnings.drop(`toolChoice 'none' is not supported by provider ${provider.id}; tools were not sent instead`);
    return;
  }
  if (request.tools && request.tools.length > 0)
    body.tools = request.tools.map((tool) => encodeOpenAiTool(tool, 'nested'));
  if (!choice) return;
  if (provider.quirks.toolChoiceAutoOnly && choice.type !== 'auto') {
    warnings.refuse(
      'tool_choice',
      `forcing a tool call ('${choice.type === 'tool' ? choice.name : choice.type}') is not supported by this model's provider`,
    );
    body.tool_choice = 'auto';
    return;
  }
  body.tool_choice = encodeOpenAiToolChoice(choice, 'nested');
}

/** Sampling and output controls; `topK` and `metadata` have no Chat Completions field. */
function encodeControls(
  request: CanonicalRequest,
  provider: ProviderPreset,
  body: Record<string, unknown>,
  warnings: TranslationNotes,
): void {
  const maxField =
    provider.quirks.maxTokensField ?? (provider.id === 'openai' ? 'max_completion_tokens' : 'max_tokens');
  if (request.maxOutputTokens !== undefined) body[maxField] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stopSequences && request.stopSequences.length > 0) body.stop = [...request.stopSequences];
  if (request.responseFormat) body.response_format = encodeOpenAiResponseFormat(request.responseFormat, 'nested');
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.user !== undefined) body.user = request.user;
  if (request.topK !== undefined) warnings.drop('topK: a sampling hint Chat Completions has no field for; dropped');
  if (request.metadata !== undefined) warnings.drop('metadata dropped (not forwarded on Chat Completions)');
}

/**
 * Builds the upstream call. Headers: JSON content type and the provider's auth for openai-chat.
 * Streams always ask for `stream_options.include_usage` (billing). Finally removes
 * `quirks.dropFields`. Returns warnings for everything dropped. Never throws.
 */
export function buildChatRequest(request: CanonicalRequest, target: UpstreamTarget): BuiltUpstreamRequest {
  const provider = target.provider;
  const { messages, warnings } = encodeChatMessages(request, provider.quirks);
  const body: Record<string, unknown> = { model: target.upstreamModel, messages };
  encodeTools(request, provider, body, warnings);
  encodeControls(request, provider, body, warnings);
  const reasoning = encodeChatReasoning(request.reasoning, provider.id);
  Object.assign(body, reasoning.fields);
  warnings.absorb(reasoning.warnings);
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return finishOpenAiRequest(CHAT_COMPLETIONS, request, target, body, warnings);
}

/** `POST {baseUrl}/chat/completions` with JSON, SSE accepted when streamed, and the provider's credential headers. */
export function chatCallTarget(request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget {
  return openAiCallTarget(CHAT_COMPLETIONS, request, target);
}

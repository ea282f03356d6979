/**
 * CanonicalRequest → `POST {baseUrl}/chat/completions` (https://platform.openai.com/docs/api-reference/chat), with the
 * provider quirks of gateway/providers/PROVIDER-DOCS.md applied: max-tokens field name, reasoning toggles,
 * tool_choice degradation (Zhipu), dropped fields (DashScope), usage on streams.
 */
import type { CanonicalRequest, ResponseFormat, ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { authHeadersFor, authSchemeFor } from '../../providers/auth-headers.ts';
import type { ProviderPreset } from '../../providers/provider-preset.ts';
import type { BuiltUpstreamRequest, UpstreamCallTarget, UpstreamTarget } from '../upstream-adapter.ts';
import { encodeChatMessages } from './encode-chat-messages.ts';
import { encodeChatReasoning } from './encode-chat-reasoning.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';
import { noteDroppedAnthropicBetas, selectVendorExtensions } from '../vendor-extensions.ts';

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
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
]);

function encodeTool(tool: ToolDefinition): Record<string, unknown> {
  const fn: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) fn.description = tool.description;
  fn.parameters = tool.parameters;
  if (tool.strict !== undefined) fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

function encodeToolChoice(choice: ToolChoice): unknown {
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
}

function encodeResponseFormat(format: ResponseFormat): Record<string, unknown> {
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json-object') return { type: 'json_object' };
  const schema: Record<string, unknown> = { name: format.name, schema: format.schema };
  if (format.strict !== undefined) schema.strict = format.strict;
  if (format.description !== undefined) schema.description = format.description;
  return { type: 'json_schema', json_schema: schema };
}

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
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(encodeTool);
  if (!choice) return;
  if (provider.quirks.toolChoiceAutoOnly && choice.type !== 'auto') {
    warnings.refuse(
      'tool_choice',
      `forcing a tool call ('${choice.type === 'tool' ? choice.name : choice.type}') is not supported by this model's provider`,
    );
    body.tool_choice = 'auto';
    return;
  }
  body.tool_choice = encodeToolChoice(choice);
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
  if (request.responseFormat) body.response_format = encodeResponseFormat(request.responseFormat);
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.user !== undefined) body.user = request.user;
  if (request.topK !== undefined) warnings.drop('topK: a sampling hint Chat Completions has no field for; dropped');
  if (request.metadata !== undefined) warnings.drop('metadata dropped (not forwarded on Chat Completions)');
}

/**
 * Vendor extensions the channel accepts (vendor-extensions.ts) win over everything except the
 * gateway-owned keys; `anthropic-beta` flags are never a body field.
 */
function mergeExtensions(
  request: CanonicalRequest,
  provider: ProviderPreset,
  body: Record<string, unknown>,
  warnings: TranslationNotes,
): void {
  for (const [key, value] of selectVendorExtensions(
    request,
    { protocol: 'openai-chat', provider, protocolFields: CHAT_FIELDS, reservedKeys: RESERVED_KEYS },
    warnings,
  ))
    body[key] = value;
  noteDroppedAnthropicBetas(request, warnings);
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
  mergeExtensions(request, provider, body, warnings);
  for (const field of provider.quirks.dropFields ?? []) delete body[field];
  return { request: { ...chatCallTarget(request, target), body: JSON.stringify(body) }, notes: warnings };
}

/** `POST {baseUrl}/chat/completions` with JSON, SSE accepted when streamed, and the provider's credential headers. */
export function chatCallTarget(request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget {
  const headers = {
    'content-type': 'application/json',
    accept: request.stream ? 'text/event-stream' : 'application/json',
    ...authHeadersFor(authSchemeFor(target.provider, 'openai-chat'), target.apiKey),
  };
  return { url: `${target.baseUrl}/chat/completions`, headers };
}

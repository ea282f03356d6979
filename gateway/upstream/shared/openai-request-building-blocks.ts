/**
 * What the two OpenAI request builders (openai-chat/build-chat-request.ts and
 * openai-responses/build-responses-request.ts) write the same way but for where members go: function
 * tools, named tool choices and output formats (OpenAiMemberLayout); and what they write the same
 * way outright: the platform fields both APIs accept, and the last steps of the request (vendor
 * extensions, the provider's dropped fields, the call target).
 * Chat Completions: https://platform.openai.com/docs/api-reference/chat/create; Responses:
 * https://platform.openai.com/docs/api-reference/responses/create.
 */
import type { CanonicalRequest, ResponseFormat, ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import type { TranslationNotes } from '../../canonical/translation-notes.ts';
import { authHeadersFor, authSchemeFor } from '../../providers/auth-headers.ts';
import type { BuiltUpstreamRequest, UpstreamCallTarget, UpstreamTarget } from '../upstream-adapter.ts';
import { noteDroppedAnthropicBetas, selectVendorExtensions, type ExtensionTarget } from '../vendor-extensions.ts';

/**
 * Request fields of the OpenAI platform that Chat Completions and Responses both define outside
 * the canonical model (service tier, prompt caching, safety identifier): a client of another
 * format may carry them in `extensions`.
 */
export const OPENAI_PLATFORM_FIELDS: readonly string[] = [
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
];

/**
 * Where an API puts the members of a function tool, a named tool choice and a `json_schema` output
 * format: Chat Completions nests them under a key named like the type (`function`, `json_schema`),
 * Responses puts them on the object itself, next to `type`.
 */
export type OpenAiMemberLayout = 'nested' | 'flat';

/** `{type, …}` with `members` placed per `layout` (nested under the key `type` names, or flat). */
function typedObject(
  type: string,
  members: Record<string, unknown>,
  layout: OpenAiMemberLayout,
): Record<string, unknown> {
  return layout === 'nested' ? { type, [type]: members } : { type, ...members };
}

/** A function tool: `name`, `description` when set, `parameters` (JSON Schema), `strict` when set, laid out per `layout`. */
export function encodeOpenAiTool(tool: ToolDefinition, layout: OpenAiMemberLayout): Record<string, unknown> {
  const members: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) members.description = tool.description;
  members.parameters = tool.parameters;
  if (tool.strict !== undefined) members.strict = tool.strict;
  return typedObject('function', members, layout);
}

/** `tool_choice`: the mode string (`none`, `auto`, `required`), or a named function laid out per `layout`. */
export function encodeOpenAiToolChoice(choice: ToolChoice, layout: OpenAiMemberLayout): unknown {
  return choice.type === 'tool' ? typedObject('function', { name: choice.name }, layout) : choice.type;
}

/**
 * An output format: `{type:'text'}`, `{type:'json_object'}`, or `json_schema` with `name`, `schema`
 * (JSON Schema), `strict` and `description` when set, laid out per `layout`.
 */
export function encodeOpenAiResponseFormat(
  format: ResponseFormat,
  layout: OpenAiMemberLayout,
): Record<string, unknown> {
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json-object') return { type: 'json_object' };
  const members: Record<string, unknown> = { name: format.name, schema: format.schema };
  if (format.strict !== undefined) members.strict = format.strict;
  if (format.description !== undefined) members.description = format.description;
  return typedObject('json_schema', members, layout);
}

/**
 * One OpenAI API as a request target: its protocol and the body keys extensions may and may not
 * set (as ExtensionTarget, for any provider), and its path under the channel's base URL.
 */
export interface OpenAiEndpoint extends Omit<ExtensionTarget, 'provider'> {
  /** Path under the channel's base URL, e.g. `/chat/completions`. */
  readonly path: string;
}

/**
 * `POST {baseUrl}{endpoint.path}` with a JSON body, SSE accepted when `request.stream`, and the
 * provider's credential headers for the endpoint's protocol.
 */
export function openAiCallTarget(
  endpoint: OpenAiEndpoint,
  request: CanonicalRequest,
  target: UpstreamTarget,
): UpstreamCallTarget {
  const headers = {
    'content-type': 'application/json',
    accept: request.stream ? 'text/event-stream' : 'application/json',
    ...authHeadersFor(authSchemeFor(target.provider, endpoint.protocol), target.apiKey),
  };
  return { url: `${target.baseUrl}${endpoint.path}`, headers };
}

/**
 * The last steps of an OpenAI request: merges into `body` the vendor extensions the channel
 * accepts (selectVendorExtensions: they win over everything but `endpoint.reservedKeys`), notes the
 * drop of `anthropic-beta` flags (never a body field here), deletes the provider's
 * `quirks.dropFields`, and returns the call (openAiCallTarget) with the body as JSON text and
 * `warnings` as its notes. Mutates `body`. Never throws.
 */
export function finishOpenAiRequest(
  endpoint: OpenAiEndpoint,
  request: CanonicalRequest,
  target: UpstreamTarget,
  body: Record<string, unknown>,
  warnings: TranslationNotes,
): BuiltUpstreamRequest {
  const provider = target.provider;
  for (const [key, value] of selectVendorExtensions(request, { ...endpoint, provider }, warnings)) body[key] = value;
  noteDroppedAnthropicBetas(request, warnings);
  for (const field of provider.quirks.dropFields ?? []) delete body[field];
  return { request: { ...openAiCallTarget(endpoint, request, target), body: JSON.stringify(body) }, notes: warnings };
}

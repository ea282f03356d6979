/**
 * Request rules that the real provider APIs enforce and that every fake upstream of this project
 * (the built-in `mock` provider and the test fakes) applies the same way, so a gateway that leaks a
 * field or a dangling tool result into an upstream body fails in tests as it would in production.
 *
 * Two kinds of refusal, each a 400 in the provider's own error shape and words:
 * 1. An unknown top-level request field (the known-field lists below, one per endpoint).
 * 2. An orphan tool result: a tool result whose call is not where the API requires it.
 *
 * Known-field lists, with their sources:
 * - OpenAI: https://github.com/openai/openai-openapi (`CreateChatCompletionRequest`,
 *   `CreateResponse`, `TokenCountsBody`, `CompactResponseMethodPublicBody` and their `allOf`
 *   parents `CreateModelResponseProperties`, `ModelResponseProperties`, `ResponseProperties`),
 *   cross-checked with the `openai` npm package's `ChatCompletionCreateParamsBase`,
 *   `ResponseCreateParamsBase`, `InputTokenCountParams` and `ResponseCompactParams`.
 * - Anthropic: the `@anthropic-ai/sdk` npm package's `MessageCreateParamsBase`,
 *   `MessageCountTokensParams` and their `beta.messages` variants (union of GA and beta fields, as
 *   the API accepts beta fields when the beta is enabled), less the parameters the SDK sends as
 *   headers (`betas`, `workspace_id`, `user_profile_id`); plus `temperature`, `top_p`, `top_k`,
 *   documented at https://docs.anthropic.com/en/api/messages.
 * - Gemini: https://ai.google.dev/api/generate-content#request-body and
 *   https://ai.google.dev/api/tokens#request-body, plus the fields `@google/genai`'s
 *   `generateContentParametersToMldev` writes at the top level (`serviceTier`, `labels`, `store`,
 *   `continuationToken`). Google's proto-JSON parser accepts a field's lowerCamelCase and its
 *   snake_case name alike (https://protobuf.dev/programming-guides/json/), so both are known.
 */
import type { WireFormat } from '../canonical/formats.ts';

/** One endpoint whose request body the rules know. */
export type StrictEndpoint =
  | 'chat-completions'
  | 'responses'
  | 'responses-input-tokens'
  | 'responses-compact'
  | 'messages'
  | 'messages-count-tokens'
  | 'gemini-generate-content'
  | 'gemini-count-tokens';

/** A refusal as the provider sends it: HTTP status 400, the JSON error body, and its message. */
export interface ProviderRefusal {
  readonly status: 400;
  /** The provider's JSON error body, serialized. */
  readonly body: string;
  /** The human-readable message inside `body`. */
  readonly message: string;
}

/** Per-fake options. */
export interface StrictRulesOptions {
  /**
   * Extra top-level fields a fake accepts on top of the official API's list, per wire format — for
   * a fake standing in for a vendor's compatible API that documents its own fields (e.g. DeepSeek's
   * `thinking` on Chat Completions). Default: none (the official list only).
   */
  readonly extraFields?: Partial<Record<WireFormat, readonly string[]>>;
}

// OpenAI Chat Completions `POST /v1/chat/completions`: CreateChatCompletionRequest (and
// CreateModelResponseProperties, ModelResponseProperties); openai `ChatCompletionCreateParamsBase`.
const CHAT_COMPLETIONS_FIELDS = [
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'moderation',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
];

// OpenAI Responses `POST /v1/responses`: CreateResponse (and CreateModelResponseProperties,
// ModelResponseProperties, ResponseProperties); openai `ResponseCreateParamsBase` (which lacks the
// spec's `max_tool_calls`). Plus `client_metadata`, which OpenAI's own Codex CLI sends to
// api.openai.com on every request (`ResponsesApiRequest` in
// https://github.com/openai/codex/tree/main/codex-rs/codex-api) though neither lists it.
const RESPONSES_FIELDS = [
  'background',
  'client_metadata',
  'context_management',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'model',
  'moderation',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
];

// OpenAI `POST /v1/responses/input_tokens`: TokenCountsBody; openai `InputTokenCountParams`.
const RESPONSES_INPUT_TOKENS_FIELDS = [
  'conversation',
  'input',
  'instructions',
  'model',
  'parallel_tool_calls',
  'personality',
  'previous_response_id',
  'reasoning',
  'text',
  'tool_choice',
  'tools',
  'truncation',
];

// OpenAI `POST /v1/responses/compact`: CompactResponseMethodPublicBody; openai `ResponseCompactParams`.
const RESPONSES_COMPACT_FIELDS = [
  'input',
  'instructions',
  'model',
  'previous_response_id',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'service_tier',
];

// Anthropic `POST /v1/messages`: @anthropic-ai/sdk `MessageCreateParamsBase` ∪
// `beta.messages.MessageCreateParamsBase` body fields, plus the documented sampling fields.
const MESSAGES_FIELDS = [
  'billing_policy',
  'cache_control',
  'compaction',
  'container',
  'context_management',
  'diagnostics',
  'fallback_credit_token',
  'fallbacks',
  'inference_geo',
  'max_tokens',
  'mcp_servers',
  'messages',
  'metadata',
  'model',
  'output_config',
  'output_format',
  'service_tier',
  'speed',
  'stop_sequences',
  'stream',
  'system',
  'temperature',
  'thinking',
  'thread',
  'tool_choice',
  'tools',
  'top_k',
  'top_p',
];

// Anthropic `POST /v1/messages/count_tokens`: @anthropic-ai/sdk `MessageCountTokensParams` ∪
// `beta.messages.MessageCountTokensParams` body fields.
const MESSAGES_COUNT_TOKENS_FIELDS = [
  'billing_policy',
  'cache_control',
  'compaction',
  'context_management',
  'mcp_servers',
  'messages',
  'model',
  'output_config',
  'output_format',
  'speed',
  'system',
  'thinking',
  'tool_choice',
  'tools',
];

// Gemini `models.generateContent` / `models.streamGenerateContent` request body.
const GEMINI_GENERATE_CONTENT_FIELDS = [
  'contents',
  'tools',
  'toolConfig',
  'safetySettings',
  'systemInstruction',
  'generationConfig',
  'cachedContent',
  'serviceTier',
  'labels',
  'store',
  'continuationToken',
];

// Gemini `models.countTokens` request body.
const GEMINI_COUNT_TOKENS_FIELDS = ['contents', 'generateContentRequest'];

/** lowerCamelCase → snake_case, as protobuf derives a field's JSON name from its proto name. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function withSnakeCase(names: readonly string[]): ReadonlySet<string> {
  return new Set(names.flatMap((name) => [name, snakeCase(name)]));
}

/** The official API's known top-level request fields of each endpoint (see the sources above). */
export const KNOWN_REQUEST_FIELDS: Readonly<Record<StrictEndpoint, ReadonlySet<string>>> = {
  'chat-completions': new Set(CHAT_COMPLETIONS_FIELDS),
  responses: new Set(RESPONSES_FIELDS),
  'responses-input-tokens': new Set(RESPONSES_INPUT_TOKENS_FIELDS),
  'responses-compact': new Set(RESPONSES_COMPACT_FIELDS),
  messages: new Set(MESSAGES_FIELDS),
  'messages-count-tokens': new Set(MESSAGES_COUNT_TOKENS_FIELDS),
  'gemini-generate-content': withSnakeCase(GEMINI_GENERATE_CONTENT_FIELDS),
  'gemini-count-tokens': withSnakeCase(GEMINI_COUNT_TOKENS_FIELDS),
};

const FORMAT_OF_ENDPOINT: Readonly<Record<StrictEndpoint, WireFormat>> = {
  'chat-completions': 'openai-chat',
  responses: 'openai-responses',
  'responses-input-tokens': 'openai-responses',
  'responses-compact': 'openai-responses',
  messages: 'anthropic-messages',
  'messages-count-tokens': 'anthropic-messages',
  'gemini-generate-content': 'gemini',
  'gemini-count-tokens': 'gemini',
};

/**
 * The endpoint a request path names (query string ignored; any prefix before the API's own path
 * is allowed, e.g. `/b/slow/v1/messages`), or undefined for a path the rules do not know.
 */
export function strictEndpointOf(path: string): StrictEndpoint | undefined {
  const bare = path.split('?')[0] ?? '';
  if (bare.endsWith('/chat/completions')) return 'chat-completions';
  if (bare.endsWith('/responses')) return 'responses';
  if (bare.endsWith('/responses/input_tokens')) return 'responses-input-tokens';
  if (bare.endsWith('/responses/compact')) return 'responses-compact';
  if (bare.endsWith('/v1/messages')) return 'messages';
  if (bare.endsWith('/v1/messages/count_tokens')) return 'messages-count-tokens';
  if (/\/models\/[^:]+:(generateContent|streamGenerateContent)$/.test(bare)) return 'gemini-generate-content';
  if (/\/models\/[^:]+:countTokens$/.test(bare)) return 'gemini-count-tokens';
  return undefined;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectsOf(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/**
 * The top-level fields of `body` that `endpoint` does not know, in body order (`extra` names more
 * accepted fields). A body that is not a JSON object has none.
 */
export function unknownRequestFields(endpoint: StrictEndpoint, body: unknown, extra: readonly string[] = []): string[] {
  if (!isObject(body)) return [];
  const known = KNOWN_REQUEST_FIELDS[endpoint];
  return Object.keys(body).filter((key) => !known.has(key) && !extra.includes(key));
}

function openaiErrorBody(message: string, param: string | null, code: string | null): string {
  return JSON.stringify({ error: { message, type: 'invalid_request_error', param, code } });
}

function anthropicErrorBody(message: string): string {
  return JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } });
}

function refusal(body: string, message: string): ProviderRefusal {
  return { status: 400, body, message };
}

/** The provider's refusal of `unknown` (non-empty) top-level fields on `endpoint`. */
function unknownFieldsRefusal(endpoint: StrictEndpoint, unknown: readonly string[]): ProviderRefusal {
  const format = FORMAT_OF_ENDPOINT[endpoint];
  const first = unknown[0] ?? '';
  if (format === 'openai-chat') {
    // One name: "…argument supplied: X"; several: "…arguments supplied: X, Y".
    const message =
      unknown.length === 1
        ? `Unrecognized request argument supplied: ${first}`
        : `Unrecognized request arguments supplied: ${unknown.join(', ')}`;
    return refusal(openaiErrorBody(message, null, null), message);
  }
  if (format === 'openai-responses') {
    const message = `Unknown parameter: '${first}'.`;
    return refusal(openaiErrorBody(message, first, 'unknown_parameter'), message);
  }
  if (format === 'anthropic-messages') {
    const message = `${first}: Extra inputs are not permitted`;
    return refusal(anthropicErrorBody(message), message);
  }
  // Google reports every unknown name, one line and one field violation each; a top-level
  // violation carries no `field`.
  const descriptions = unknown.map(
    (name) => `Invalid JSON payload received. Unknown name "${name}": Cannot find field.`,
  );
  const message = descriptions.join('\n');
  const body = {
    error: {
      code: 400,
      message,
      status: 'INVALID_ARGUMENT',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: descriptions.map((description) => ({ description })),
        },
      ],
    },
  };
  return refusal(JSON.stringify(body), message);
}

/**
 * Chat Completions: each `tool` message must answer a `tool_calls` entry of the assistant message
 * that opens its run of tool messages.
 */
function chatOrphan(body: JsonObject): ProviderRefusal | undefined {
  let openCalls: ReadonlySet<string> | undefined;
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) continue;
    if (message.role === 'assistant') {
      openCalls = new Set(objectsOf(message.tool_calls).map((call) => String(call.id)));
      continue;
    }
    if (message.role !== 'tool') {
      openCalls = undefined;
      continue;
    }
    if (!openCalls || openCalls.size === 0) {
      const text =
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      return refusal(openaiErrorBody(text, `messages.[${index}].role`, null), text);
    }
    const id = String(message.tool_call_id);
    if (!openCalls.has(id)) {
      const text = `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`;
      return refusal(openaiErrorBody(text, `messages.[${index}].tool_call_id`, null), text);
    }
  }
  return undefined;
}

const RESPONSES_OUTPUT_TYPES: ReadonlySet<string> = new Set(['function_call_output', 'custom_tool_call_output']);

/**
 * Responses: a `function_call_output`/`custom_tool_call_output` item must name the `call_id` of a
 * call item earlier in `input`. With `previous_response_id` or `conversation` the call may live in
 * stored state the fake cannot see, so such requests are not checked.
 */
function responsesOrphan(body: JsonObject): ProviderRefusal | undefined {
  if (body.previous_response_id != null || body.conversation != null) return undefined;
  const calls = new Set<string>();
  for (const item of objectsOf(body.input)) {
    const type = typeof item.type === 'string' ? item.type : '';
    if (RESPONSES_OUTPUT_TYPES.has(type)) {
      const callId = String(item.call_id);
      if (!calls.has(callId)) {
        const text = `No tool call found for function call output with call_id ${callId}.`;
        return refusal(openaiErrorBody(text, 'input', null), text);
      }
    } else if (typeof item.call_id === 'string' && !type.endsWith('_output')) {
      // function_call, custom_tool_call, and the built-in calls (local_shell_call, shell_call,
      // apply_patch_call, computer_call…) that a function_call_output may also answer.
      calls.add(item.call_id);
    }
  }
  return undefined;
}

/** Anthropic: a `tool_result` block must answer a `tool_use` block of the message just before. */
function anthropicOrphan(body: JsonObject): ProviderRefusal | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  for (const [index, message] of messages.entries()) {
    if (!isObject(message) || !Array.isArray(message.content)) continue;
    const previous = index > 0 ? messages[index - 1] : undefined;
    const uses = new Set(
      isObject(previous) && previous.role === 'assistant'
        ? objectsOf(previous.content)
            .filter((block) => block.type === 'tool_use')
            .map((block) => String(block.id))
        : [],
    );
    let firstOrphan: number | undefined;
    const orphanIds: string[] = [];
    for (const [position, block] of (message.content as unknown[]).entries()) {
      if (!isObject(block) || block.type !== 'tool_result' || uses.has(String(block.tool_use_id))) continue;
      firstOrphan ??= position;
      orphanIds.push(String(block.tool_use_id));
    }
    if (firstOrphan !== undefined) {
      const text = `messages.${index}.content.${firstOrphan}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${orphanIds.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      return refusal(anthropicErrorBody(text), text);
    }
  }
  return undefined;
}

/** The `functionCall` or `functionResponse` payloads of a content's parts (either JSON name). */
function geminiFunctionParts(content: unknown, camel: 'functionCall' | 'functionResponse'): JsonObject[] {
  if (!isObject(content)) return [];
  return objectsOf(content.parts)
    .map((part) => part[camel] ?? part[snakeCase(camel)])
    .filter(isObject);
}

/**
 * Gemini: a content with `functionResponse` parts must come right after a `model` content whose
 * `functionCall` parts include each response's call (by `id` when both carry one, else by name).
 */
function geminiOrphan(contents: unknown): ProviderRefusal | undefined {
  const list = Array.isArray(contents) ? (contents as unknown[]) : [];
  for (const [index, content] of list.entries()) {
    const responses = geminiFunctionParts(content, 'functionResponse');
    if (responses.length === 0) continue;
    const previous = index > 0 ? list[index - 1] : undefined;
    const calls = isObject(previous) && previous.role === 'model' ? geminiFunctionParts(previous, 'functionCall') : [];
    const answered = (response: JsonObject): boolean =>
      calls.some((call) =>
        typeof call.id === 'string' && typeof response.id === 'string'
          ? call.id === response.id
          : call.name === response.name,
      );
    if (calls.length === 0 || !responses.every(answered)) {
      const text = 'Please ensure that function response turn comes immediately after a function call turn.';
      return refusal(JSON.stringify({ error: { code: 400, message: text, status: 'INVALID_ARGUMENT' } }), text);
    }
  }
  return undefined;
}

/**
 * The provider's refusal of an orphan tool result in `body` (a request to `endpoint`), else
 * undefined. Gemini's countTokens checks the contents of its `generateContentRequest` too.
 */
export function orphanToolResultRefusal(endpoint: StrictEndpoint, body: unknown): ProviderRefusal | undefined {
  if (!isObject(body)) return undefined;
  switch (FORMAT_OF_ENDPOINT[endpoint]) {
    case 'openai-chat':
      return chatOrphan(body);
    case 'openai-responses':
      return responsesOrphan(body);
    case 'anthropic-messages':
      return anthropicOrphan(body);
    case 'gemini': {
      const inner = body.generateContentRequest ?? body.generate_content_request;
      return geminiOrphan(body.contents) ?? (isObject(inner) ? geminiOrphan(inner.contents) : undefined);
    }
  }
}

/**
 * How the real API of `format` answers a request with `body` (parsed JSON) to `path`: a 400
 * `ProviderRefusal` for an unknown top-level field (checked first, as schema validation comes
 * before the conversation's) or an orphan tool result; undefined when the request passes these
 * rules, when `path` names no endpoint the rules know, or when it names one of another format.
 * Never throws.
 */
export function refuseLikeProvider(
  format: WireFormat,
  path: string,
  body: unknown,
  options: StrictRulesOptions = {},
): ProviderRefusal | undefined {
  const endpoint = strictEndpointOf(path);
  if (!endpoint || FORMAT_OF_ENDPOINT[endpoint] !== format) return undefined;
  const unknown = unknownRequestFields(endpoint, body, options.extraFields?.[format]);
  if (unknown.length > 0) return unknownFieldsRefusal(endpoint, unknown);
  return orphanToolResultRefusal(endpoint, body);
}

/** `refuseLikeProvider` with the format read from the path, for fakes that serve every format. */
export function refuseLikeProviderAt(
  path: string,
  body: unknown,
  options: StrictRulesOptions = {},
): ProviderRefusal | undefined {
  const endpoint = strictEndpointOf(path);
  return endpoint ? refuseLikeProvider(FORMAT_OF_ENDPOINT[endpoint], path, body, options) : undefined;
}

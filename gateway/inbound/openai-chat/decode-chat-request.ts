/**
 * Decodes a Chat Completions body (per https://platform.openai.com/docs/api-reference/chat) into a CanonicalRequest.
 * `n > 1` is refused (one choice only). Vendor fields commonly sent through `extra_body`
 * (`thinking`, `enable_thinking`, `thinking_budget`, `reasoning_split`, `repetition_penalty`,
 * `tool_stream`) and the sampling fields the canonical model has no slot for
 * (`presence_penalty`, `frequency_penalty`, `seed`) are kept in `extensions` under their wire
 * names, for channels that accept them (gateway/upstream/vendor-extensions.ts); the thinking
 * switches (`thinking`, `enable_thinking`, `thinking_budget`) are also read into the canonical
 * `reasoning`, so that channels of other protocols get them as their own reasoning controls.
 * `top_k` maps to `topK`. `stream_options` stays in the raw body for the encoder.
 */
import type { CanonicalRequest, DecodeResult, ReasoningConfig, ResponseFormat } from '../../canonical/request.ts';
import { mapOpenAIReasoningEffort } from '../openai-common/map-openai-reasoning-effort.ts';
import { omitUndefined } from '../openai-common/omit-undefined.ts';
import {
  catchRequestFieldError,
  isJsonObject,
  parseAt,
  RequestFieldError,
} from '../openai-common/request-field-error.ts';
import {
  chatRequestSchema,
  readPlainChatRequest,
  responseFormatSchema,
  type ChatRequestBody,
} from './chat-request-schema.ts';
import { decodeChatMessages } from './decode-chat-messages.ts';
import { decodeChatToolChoice, decodeChatTools, decodeLegacyFunctionCall } from './decode-chat-tools.ts';
import { decodedWith, TranslationNotes } from '../../canonical/translation-notes.ts';

/** Body fields passed through unchanged in `extensions` (wire names). */
const EXTENSION_FIELDS = [
  'thinking',
  'enable_thinking',
  'thinking_budget',
  'reasoning_split',
  'repetition_penalty',
  'tool_stream',
  'presence_penalty',
  'frequency_penalty',
  'seed',
] as const;

function decodeExtensions(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const extensions: Record<string, unknown> = {};
  for (const field of EXTENSION_FIELDS)
    if (body[field] !== undefined && body[field] !== null) extensions[field] = body[field];
  return Object.keys(extensions).length === 0 ? undefined : extensions;
}

/**
 * The vendor thinking switches as canonical reasoning: DeepSeek/Zhipu/MiMo
 * `thinking: {type: "enabled"|"disabled", budget_tokens?}` (https://api-docs.deepseek.com/guides/thinking_mode;
 * Anthropic's `adaptive` reads as enabled)
 * and DashScope `enable_thinking` + `thinking_budget` (tokens;
 * https://www.alibabacloud.com/help/en/model-studio/deep-thinking). Undefined when none is set or
 * a value has another shape (the field still travels in `extensions` to channels that take it).
 */
function decodeThinkingSwitches(body: Record<string, unknown>): ReasoningConfig | undefined {
  const { thinking, enable_thinking: enableThinking, thinking_budget: budget } = body;
  let enabled: boolean | undefined;
  let budgetTokens: number | undefined;
  if (
    isJsonObject(thinking) &&
    (thinking.type === 'enabled' || thinking.type === 'adaptive' || thinking.type === 'disabled')
  ) {
    enabled = thinking.type !== 'disabled';
    if (
      typeof thinking.budget_tokens === 'number' &&
      Number.isInteger(thinking.budget_tokens) &&
      thinking.budget_tokens > 0
    )
      budgetTokens = thinking.budget_tokens;
  }
  if (typeof enableThinking === 'boolean') enabled = enableThinking;
  if (typeof budget === 'number' && Number.isInteger(budget) && budget > 0 && enabled !== false) budgetTokens = budget;
  if (enabled === undefined && budgetTokens === undefined) return undefined;
  return omitUndefined<ReasoningConfig>({
    enabled: enabled ?? true,
    budgetTokens: enabled === false ? undefined : budgetTokens,
  });
}

/** `reasoning_effort` and the vendor thinking switches, merged (the effort's own `enabled: false` for `none` wins). */
function decodeReasoning(
  request: ChatRequestBody,
  body: Record<string, unknown>,
  warnings: TranslationNotes,
): ReasoningConfig | undefined {
  const effort = request.reasoning_effort
    ? mapOpenAIReasoningEffort(request.reasoning_effort, 'reasoning_effort', warnings)
    : undefined;
  const switches = decodeThinkingSwitches(body);
  if (!switches) return effort;
  return { ...switches, ...effort };
}

function decodeResponseFormat(format: unknown): ResponseFormat | undefined {
  if (format === undefined || format === null) return undefined;
  const parsed = parseAt(responseFormatSchema, format, ['response_format']);
  switch (parsed.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json-object' };
    case 'json_schema': {
      const { name, schema, strict, description } = parsed.json_schema;
      return omitUndefined<ResponseFormat>({
        type: 'json-schema',
        name,
        schema: schema ?? { type: 'object' },
        strict: strict ?? undefined,
        description: description ?? undefined,
      });
    }
  }
}

/**
 * Top-level fields outside the canonical model: those whose loss would change the answer are
 * refused when translated; `prediction`, `service_tier` and `store` only affect latency,
 * scheduling or OpenAI-side storage and are dropped (README, "What the gateway drops").
 */
function warnDropped(body: Record<string, unknown>, warnings: TranslationNotes): void {
  if (body.logprobs === true) warnings.refuse('logprobs', 'log probabilities cannot be returned from other APIs');
  if (typeof body.top_logprobs === 'number' && body.top_logprobs > 0)
    warnings.refuse('top_logprobs', 'log probabilities cannot be returned from other APIs');
  if (body.logit_bias !== undefined && body.logit_bias !== null && Object.keys(body.logit_bias).length > 0)
    warnings.refuse('logit_bias', 'token biases are tokenizer-specific and cannot be carried to other APIs');
  if (body.audio !== undefined && body.audio !== null)
    warnings.refuse('audio', 'audio output cannot be produced through other APIs');
  if (body.web_search_options !== undefined && body.web_search_options !== null)
    warnings.refuse('web_search_options', "web search runs inside OpenAI's platform");
  for (const field of ['prediction', 'service_tier', 'store'] as const) {
    if (body[field] !== undefined && body[field] !== null)
      warnings.drop(`${field}: only affects latency, scheduling or OpenAI-side storage; dropped`);
  }
}

function decodeBody(body: unknown): DecodeResult<CanonicalRequest> {
  if (!isJsonObject(body)) throw new RequestFieldError([], 'request body must be a JSON object');
  const request: ChatRequestBody = readPlainChatRequest(body) ?? parseAt(chatRequestSchema, body, []);
  if (request.n !== undefined && request.n !== null && request.n !== 1)
    throw new RequestFieldError(['n'], 'only n=1 is supported');
  const warnings = new TranslationNotes();
  warnDropped(body, warnings);
  const decoded = decodeChatMessages(request.messages, warnings);
  if (decoded.messages.length === 0)
    throw new RequestFieldError(['messages'], 'must contain at least one user, assistant or tool message');
  const tools = decodeChatTools(request.tools ?? [], request.functions ?? [], warnings);
  const value = omitUndefined<CanonicalRequest>({
    clientFormat: 'openai-chat',
    model: request.model,
    stream: request.stream === true,
    system: decoded.systemTexts.length > 0 ? decoded.systemTexts.join('\n\n') : undefined,
    messages: decoded.messages,
    tools: tools.length > 0 ? tools : undefined,
    toolChoice: decodeChatToolChoice(request.tool_choice, warnings) ?? decodeLegacyFunctionCall(request.function_call),
    parallelToolCalls: request.parallel_tool_calls ?? undefined,
    maxOutputTokens: request.max_completion_tokens ?? request.max_tokens ?? undefined,
    temperature: request.temperature ?? undefined,
    topP: request.top_p ?? undefined,
    topK: request.top_k ?? undefined,
    stopSequences:
      request.stop === undefined || request.stop === null
        ? undefined
        : typeof request.stop === 'string'
          ? [request.stop]
          : request.stop,
    responseFormat: decodeResponseFormat(request.response_format),
    reasoning: decodeReasoning(request, body, warnings),
    user: request.user ?? undefined,
    safetyIdentifier: request.safety_identifier ?? undefined,
    metadata: request.metadata ?? undefined,
    extensions: decodeExtensions(body),
  });
  return decodedWith(value, warnings);
}

/**
 * Validates and decodes `POST /v1/chat/completions`. Never throws on bad input: returns
 * `{ ok: false, message, param }` with a dot path (e.g. `messages.1.tool_calls.0.id`).
 */
export function decodeChatRequest(body: unknown): DecodeResult<CanonicalRequest> {
  return catchRequestFieldError(() => decodeBody(body));
}

/**
 * Decodes a Chat Completions body (per https://platform.openai.com/docs/api-reference/chat) into a CanonicalRequest.
 * `n > 1` is refused (one choice only). Vendor fields commonly sent through `extra_body`
 * (`thinking`, `enable_thinking`, `thinking_budget`, `reasoning_split`, `repetition_penalty`,
 * `tool_stream`) and the sampling fields the canonical model has no slot for
 * (`presence_penalty`, `frequency_penalty`, `seed`) are passed through in `extensions` under
 * their wire names; `top_k` maps to `topK`. `stream_options` stays in the raw body for the encoder.
 */
import type { CanonicalRequest, DecodeResult, ResponseFormat } from '../../canonical/request.ts';
import { mapOpenAIReasoningEffort } from '../openai-common/map-openai-reasoning-effort.ts';
import { omitUndefined } from '../openai-common/omit-undefined.ts';
import { catchRequestFieldError, isJsonObject, parseAt, RequestFieldError } from '../openai-common/request-field-error.ts';
import { chatRequestSchema, responseFormatSchema, type ChatRequestBody } from './chat-request-schema.ts';
import { decodeChatMessages } from './decode-chat-messages.ts';
import { decodeChatToolChoice, decodeChatTools, decodeLegacyFunctionCall } from './decode-chat-tools.ts';
import { decodedWith, TranslationNotes } from '../../canonical/translation-notes.ts';

/** Body fields passed through unchanged in `extensions` (wire names). */
const EXTENSION_FIELDS = ['thinking', 'enable_thinking', 'thinking_budget', 'reasoning_split', 'repetition_penalty', 'tool_stream', 'presence_penalty', 'frequency_penalty', 'seed'] as const;

function decodeExtensions(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const extensions: Record<string, unknown> = {};
  for (const field of EXTENSION_FIELDS) if (body[field] !== undefined && body[field] !== null) extensions[field] = body[field];
  return Object.keys(extensions).length === 0 ? undefined : extensions;
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
      return omitUndefined<ResponseFormat>({ type: 'json-schema', name, schema: schema ?? { type: 'object' }, strict: strict ?? undefined, description: description ?? undefined });
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
  if (typeof body.top_logprobs === 'number' && body.top_logprobs > 0) warnings.refuse('top_logprobs', 'log probabilities cannot be returned from other APIs');
  if (body.logit_bias !== undefined && body.logit_bias !== null && Object.keys(body.logit_bias as object).length > 0) warnings.refuse('logit_bias', 'token biases are tokenizer-specific and cannot be carried to other APIs');
  if (body.audio !== undefined && body.audio !== null) warnings.refuse('audio', 'audio output cannot be produced through other APIs');
  if (body.web_search_options !== undefined && body.web_search_options !== null) warnings.refuse('web_search_options', "web search runs inside OpenAI's platform");
  for (const field of ['prediction', 'service_tier', 'store'] as const) {
    if (body[field] !== undefined && body[field] !== null) warnings.drop(`${field}: only affects latency, scheduling or OpenAI-side storage; dropped`);
  }
}

function decodeBody(body: unknown): DecodeResult<CanonicalRequest> {
  if (!isJsonObject(body)) throw new RequestFieldError([], 'request body must be a JSON object');
  const request: ChatRequestBody = parseAt(chatRequestSchema, body, []);
  if (request.n !== undefined && request.n !== null && request.n !== 1) throw new RequestFieldError(['n'], 'only n=1 is supported');
  const warnings = new TranslationNotes();
  warnDropped(body, warnings);
  const decoded = decodeChatMessages(request.messages, warnings);
  if (decoded.messages.length === 0) throw new RequestFieldError(['messages'], 'must contain at least one user, assistant or tool message');
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
    stopSequences: request.stop === undefined || request.stop === null ? undefined : typeof request.stop === 'string' ? [request.stop] : request.stop,
    responseFormat: decodeResponseFormat(request.response_format),
    reasoning: request.reasoning_effort ? mapOpenAIReasoningEffort(request.reasoning_effort, 'reasoning_effort', warnings) : undefined,
    user: request.user ?? undefined,
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

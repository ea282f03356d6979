/**
 * Zod schemas of what OpenAI Chat Completions upstreams send back: a `chat.completion` body or a
 * `chat.completion.chunk` stream event (https://platform.openai.com/docs/api-reference/chat/object,
 * https://platform.openai.com/docs/api-reference/chat-streaming), with the compat variants of
 * gateway/providers/PROVIDER-DOCS.md (reasoning fields, content as a part array, usage on the
 * choice). Lenient (shared/lenient-wire-schemas.ts): a field of the wrong type reads as absent.
 */
import { z } from 'zod';
import { anyJson, lenientArray, lenientNumber, lenientObject, lenientString } from '../shared/lenient-wire-schemas.ts';

/** A function call's name and arguments (JSON text; a few compat upstreams send an object). */
const chatFunctionSchema = lenientObject({ name: lenientString, arguments: anyJson });

/** One `tool_calls[]` entry of a message, or a fragment of one in a delta (`index` in streams). */
const chatToolCallSchema = lenientObject({ id: lenientString, index: lenientNumber, function: chatFunctionSchema });
/** Parsed shape of one `tool_calls[]` entry (undefined when the entry is not an object). */
export type ChatToolCall = z.infer<typeof chatToolCallSchema>;

/** `message` of a choice or `delta` of a chunk's choice; reasoning in any of three compat fields. */
export const chatMessageSchema = z.object({
  /** A string, or (some compat upstreams) an array of parts with `text`: kept raw (a union costs a stream chunk more than reading it). */
  content: anyJson,
  refusal: lenientString,
  reasoning_content: lenientString,
  reasoning: lenientString,
  reasoning_details: lenientArray(lenientObject({ text: lenientString })),
  tool_calls: lenientArray(chatToolCallSchema),
  /** The legacy single function call. */
  function_call: chatFunctionSchema,
});
/** Parsed shape of `chatMessageSchema`. */
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** A message with no field set (a choice without `message`, a chunk choice without `delta`). */
export const EMPTY_CHAT_MESSAGE: ChatMessage = chatMessageSchema.parse({});

/** One choice: `message` in a body, `delta` in a chunk; `usage` here on Moonshot streams. */
const chatChoiceSchema = lenientObject({
  message: chatMessageSchema.nullish().catch(undefined),
  delta: chatMessageSchema.nullish().catch(undefined),
  finish_reason: lenientString,
  /** Raw: read by normalizeChatUsage (chatUsageSchema). */
  usage: anyJson,
});

/**
 * A Chat Completions body or stream chunk. `usage` is kept raw (normalizeChatUsage reads it);
 * an `error` or MiniMax `base_resp` is read from the raw body (embeddedOpenAiError).
 */
export const chatCompletionSchema = z.object({
  id: lenientString,
  model: lenientString,
  choices: lenientArray(chatChoiceSchema),
  usage: anyJson,
});
/** Parsed shape of `chatCompletionSchema`. */
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

/** A Chat Completions `usage` object (tokens); details may be absent or null (Xiaomi MiMo). */
export const chatUsageSchema = z.object({
  prompt_tokens: lenientNumber,
  completion_tokens: lenientNumber,
  /** DeepSeek */
  prompt_cache_hit_tokens: lenientNumber,
  /** Moonshot */
  cached_tokens: lenientNumber,
  prompt_tokens_details: lenientObject({ cached_tokens: lenientNumber, cache_write_tokens: lenientNumber }),
  completion_tokens_details: lenientObject({ reasoning_tokens: lenientNumber }),
});
/** Parsed shape of `chatUsageSchema`. */
export type ChatUsage = z.infer<typeof chatUsageSchema>;

/** Absent, null or a string: what `lenientString` keeps as it is. */
const isNullishOrString = (value: unknown): boolean =>
  value === undefined || value === null || typeof value === 'string';

/** Absent or null: what every lenient schema keeps as it is. */
const isNullish = (value: unknown): boolean => value === undefined || value === null;

/** Absent, null or a finite number: what `lenientNumber` keeps as it is (zod 4's `z.number()` refuses NaN and ±Infinity). */
const isNullishOrNumber = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'number' && Number.isFinite(value));

/** A plain object (not null, not an array). */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * True when `delta` is absent, null, or a text delta that `chatMessageSchema` would keep field for
 * field: string or absent text fields, and none of the list or object fields (reasoning details,
 * tool calls, a function call) that the schema would have to rebuild.
 */
function isPlainDelta(delta: unknown): boolean {
  if (isNullish(delta)) return true;
  if (!isObject(delta)) return false;
  return (
    isNullishOrString(delta.refusal) &&
    isNullishOrString(delta.reasoning_content) &&
    isNullishOrString(delta.reasoning) &&
    isNullish(delta.reasoning_details) &&
    isNullish(delta.tool_calls) &&
    isNullish(delta.function_call)
  );
}

/**
 * One `chat.completion.chunk` as `chatCompletionSchema` reads it. Nearly every chunk of a stream is
 * a text delta whose fields already have the schema's types; such a chunk is returned as it is,
 * which reads the same through every field the decoder uses (unknown keys are never read), and
 * spares the copy zod makes of each chunk. Any other chunk is parsed by the schema.
 * `chunk` is a parsed JSON object. Never throws.
 */
export function readChatChunk(chunk: Record<string, unknown>): ChatCompletion {
  const choices = chunk.choices;
  const plain =
    isNullishOrString(chunk.id) &&
    isNullishOrString(chunk.model) &&
    (isNullish(choices) ||
      (Array.isArray(choices) &&
        (choices.length === 0 ||
          (choices.length === 1 &&
            isObject(choices[0]) &&
            isNullishOrString(choices[0].finish_reason) &&
            isNullish(choices[0].message) &&
            isPlainDelta(choices[0].delta)))));
  return plain ? chunk : chatCompletionSchema.parse(chunk);
}

/**
 * One non-streamed `chat.completion` body as `chatCompletionSchema` reads it. Nearly every answer
 * has one choice whose message holds only text (and maybe reasoning text); such a body is returned
 * as it is, which reads the same through every field the decoder uses (unknown keys are never
 * read), and spares the copy zod makes of it. Any other body is parsed by the schema.
 * `body` is a parsed JSON object. Never throws.
 */
export function readChatCompletion(body: Record<string, unknown>): ChatCompletion {
  const choices = body.choices;
  const plain =
    isNullishOrString(body.id) &&
    isNullishOrString(body.model) &&
    Array.isArray(choices) &&
    choices.length === 1 &&
    isObject(choices[0]) &&
    isNullishOrString(choices[0].finish_reason) &&
    isNullish(choices[0].delta) &&
    isPlainDelta(choices[0].message);
  return plain ? body : chatCompletionSchema.parse(body);
}

/**
 * True when `raw` is a usage object that `chatUsageSchema` would keep field for field: every count
 * it reads absent, null or a finite number, and each `*_details` absent, null or an object whose
 * counts are too. Such an object reads through the schema's type as it is.
 */
export function isPlainChatUsage(raw: unknown): raw is ChatUsage {
  if (!isObject(raw)) return false;
  const input = raw.prompt_tokens_details;
  const output = raw.completion_tokens_details;
  return (
    isNullishOrNumber(raw.prompt_tokens) &&
    isNullishOrNumber(raw.completion_tokens) &&
    isNullishOrNumber(raw.prompt_cache_hit_tokens) &&
    isNullishOrNumber(raw.cached_tokens) &&
    (isNullish(input) ||
      (isObject(input) && isNullishOrNumber(input.cached_tokens) && isNullishOrNumber(input.cache_write_tokens))) &&
    (isNullish(output) || (isObject(output) && isNullishOrNumber(output.reasoning_tokens)))
  );
}

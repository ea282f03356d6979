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

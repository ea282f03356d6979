/**
 * Zod schemas of what Anthropic-compatible upstreams send back (per https://docs.anthropic.com/en/api/messages).
 * Deliberately loose: unknown keys are ignored (new API versions add fields), and compat upstreams
 * (DeepSeek, Moonshot, Zhipu, MiniMax, DashScope, MiMo) omit optional ones or send null.
 */
import { z } from 'zod';

const count = z.number().nullish();

/**
 * `usage` of a Message / `message_delta` (tokens). `input_tokens` excludes cache reads and writes;
 * `cache_creation` splits `cache_creation_input_tokens` by cache lifetime (5 minutes, 1 hour):
 * https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching "1-hour cache duration".
 */
export const anthropicUsageSchema = z.object({
  input_tokens: count,
  cache_creation_input_tokens: count,
  cache_read_input_tokens: count,
  cache_creation: z.object({ ephemeral_5m_input_tokens: count, ephemeral_1h_input_tokens: count }).nullish(),
  output_tokens: count,
  output_tokens_details: z.object({ thinking_tokens: count }).nullish(),
});
/** Parsed shape of `anthropicUsageSchema`. */
export type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;

/** One content block of a response or a `content_block_start`; fields depend on `type`. */
export const anthropicContentBlockSchema = z.object({
  type: z.string(),
  text: z.string().nullish(),
  thinking: z.string().nullish(),
  signature: z.string().nullish(),
  data: z.string().nullish(),
  id: z.string().nullish(),
  name: z.string().nullish(),
  input: z.unknown().optional(),
});
/** Parsed shape of `anthropicContentBlockSchema`. */
export type AnthropicContentBlock = z.infer<typeof anthropicContentBlockSchema>;

/** The `error` object of an error body or SSE `error` event (https://docs.anthropic.com/en/api/errors). */
export const anthropicErrorObjectSchema = z.object({ type: z.string().nullish(), message: z.string().nullish() });
/** Parsed shape of `anthropicErrorObjectSchema`. */
export type AnthropicErrorObject = z.infer<typeof anthropicErrorObjectSchema>;

/** A non-streamed Message, or an error envelope (`type: "error"`). */
export const anthropicMessageSchema = z.object({
  type: z.string().nullish(),
  id: z.string().nullish(),
  model: z.string().nullish(),
  content: z.array(anthropicContentBlockSchema).nullish(),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: anthropicUsageSchema.nullish(),
  error: anthropicErrorObjectSchema.nullish(),
});
/** Parsed shape of `anthropicMessageSchema`. */
export type AnthropicMessage = z.infer<typeof anthropicMessageSchema>;

/** `content_block_delta.delta` and `message_delta.delta`, merged into one loose shape. */
const deltaSchema = z.object({
  type: z.string().nullish(),
  text: z.string().nullish(),
  thinking: z.string().nullish(),
  signature: z.string().nullish(),
  partial_json: z.string().nullish(),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
});

/** Any SSE event payload of an Anthropic stream; `type` selects which fields matter (https://docs.anthropic.com/en/docs/build-with-claude/streaming). */
export const anthropicStreamEventSchema = z.object({
  type: z.string().nullish(),
  message: anthropicMessageSchema.nullish(),
  index: z.number().int().nonnegative().nullish(),
  content_block: anthropicContentBlockSchema.nullish(),
  delta: deltaSchema.nullish(),
  usage: anthropicUsageSchema.nullish(),
  error: anthropicErrorObjectSchema.nullish(),
});
/** Parsed shape of `anthropicStreamEventSchema`. */
export type AnthropicStreamEvent = z.infer<typeof anthropicStreamEventSchema>;

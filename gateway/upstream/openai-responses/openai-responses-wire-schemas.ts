/**
 * Zod schemas of what OpenAI Responses upstreams send back: a response object (a non-streamed
 * body, or the snapshot in `response.*` lifecycle events) and the stream events the decoder reads
 * (https://platform.openai.com/docs/api-reference/responses/object,
 * https://platform.openai.com/docs/api-reference/responses-streaming). Lenient
 * (shared/lenient-wire-schemas.ts): a field of the wrong type reads as absent.
 */
import { z } from 'zod';
import { anyJson, lenientArray, lenientNumber, lenientObject, lenientString } from '../shared/lenient-wire-schemas.ts';

/** A content part of a `message` item (`output_text` with `text`, `refusal` with `refusal`) or of a `reasoning` item (`reasoning_text`). */
const contentPartSchema = lenientObject({ type: lenientString, text: lenientString, refusal: lenientString });

/** One output item; fields depend on `type` (`message`, `reasoning`, `function_call`, …). */
export const responsesOutputItemSchema = z.object({
  type: lenientString,
  id: lenientString,
  /** function_call */
  call_id: lenientString,
  name: lenientString,
  /** function_call: JSON text. */
  arguments: lenientString,
  /** message and reasoning */
  content: lenientArray(contentPartSchema),
  /** reasoning: `summary_text` parts. */
  summary: lenientArray(lenientObject({ text: lenientString })),
  /** reasoning: the opaque signature. */
  encrypted_content: lenientString,
});
/** Parsed shape of `responsesOutputItemSchema`. */
export type ResponsesOutputItem = z.infer<typeof responsesOutputItemSchema>;

/** An item with no field set (an `output_item.*` event without a readable `item`). */
export const EMPTY_OUTPUT_ITEM: ResponsesOutputItem = responsesOutputItemSchema.parse({});

/**
 * A response object. `error` and `usage` are kept raw (classifyResponsesFailure and
 * normalizeResponsesUsage read them); `output` is null/undefined when it is not an array.
 */
export const responsesResponseSchema = z.object({
  id: lenientString,
  object: lenientString,
  model: lenientString,
  status: lenientString,
  error: anyJson,
  output: lenientArray(responsesOutputItemSchema.nullish().catch(undefined)),
  incomplete_details: lenientObject({ reason: lenientString }),
  usage: anyJson,
});
/** Parsed shape of `responsesResponseSchema`. */
export type ResponsesResponse = z.infer<typeof responsesResponseSchema>;

/** A response with no field set (a terminal event without a readable `response`). */
export const EMPTY_RESPONSE: ResponsesResponse = responsesResponseSchema.parse({});

/** Any SSE event payload of a Responses stream; `type` selects which fields matter. An `error` event is read raw (classifyResponsesFailure). */
export const responsesStreamEventSchema = z.object({
  type: lenientString,
  response: responsesResponseSchema.nullish().catch(undefined),
  item: responsesOutputItemSchema.nullish().catch(undefined),
  part: lenientObject({ type: lenientString }),
  output_index: lenientNumber,
  summary_index: lenientNumber,
  content_index: lenientNumber,
  delta: lenientString,
});
/** Parsed shape of `responsesStreamEventSchema`. */
export type ResponsesStreamEvent = z.infer<typeof responsesStreamEventSchema>;

/** A Responses `usage` object (tokens); details may be absent or null. */
export const responsesUsageSchema = z.object({
  input_tokens: lenientNumber,
  output_tokens: lenientNumber,
  input_tokens_details: lenientObject({ cached_tokens: lenientNumber, cache_write_tokens: lenientNumber }),
  output_tokens_details: lenientObject({ reasoning_tokens: lenientNumber }),
});

/**
 * Zod schemas of what Amazon Bedrock's Converse and ConverseStream APIs send back
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html).
 * Loose on purpose: unknown keys are ignored (Bedrock adds fields, and pads stream events with a
 * random `p` field), optional ones may be absent. Blobs (`redactedContent`) are base64 text on the
 * JSON wire.
 */
import { z } from 'zod';

const count = z.number().nullish();

/** `usage` (TokenUsage, tokens): `inputTokens` excludes cache reads and writes. */
export const converseUsageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  cacheReadInputTokens: count,
  cacheWriteInputTokens: count,
});
/** Parsed shape of `converseUsageSchema`. */
export type ConverseUsage = z.infer<typeof converseUsageSchema>;

/** A `reasoningContent` block: `reasoningText {text, signature}` or `redactedContent` (base64). */
const reasoningContentSchema = z.object({
  reasoningText: z.object({ text: z.string().nullish(), signature: z.string().nullish() }).nullish(),
  redactedContent: z.string().nullish(),
});

/** One ContentBlock of the answer's message; exactly one member is set. */
export const converseContentBlockSchema = z.object({
  text: z.string().nullish(),
  toolUse: z.object({ toolUseId: z.string().nullish(), name: z.string().nullish(), input: z.unknown() }).nullish(),
  reasoningContent: reasoningContentSchema.nullish(),
});
/** Parsed shape of `converseContentBlockSchema`. */
export type ConverseContentBlock = z.infer<typeof converseContentBlockSchema>;

/** A Converse answer (ConverseResponse). */
export const converseResponseSchema = z.object({
  output: z
    .object({
      message: z.object({ role: z.string().nullish(), content: z.array(converseContentBlockSchema) }).nullish(),
    })
    .nullish(),
  stopReason: z.string().nullish(),
  usage: converseUsageSchema.nullish(),
  additionalModelResponseFields: z.unknown().optional(),
});
/** Parsed shape of `converseResponseSchema`. */
export type ConverseResponse = z.infer<typeof converseResponseSchema>;

/** `messageStart` (MessageStartEvent). */
export const converseMessageStartSchema = z.object({ role: z.string().nullish() });

/** `contentBlockStart` (ContentBlockStartEvent): a tool use announces its id and name here. */
export const converseBlockStartSchema = z.object({
  contentBlockIndex: z.number(),
  start: z
    .object({ toolUse: z.object({ toolUseId: z.string().nullish(), name: z.string().nullish() }).nullish() })
    .nullish(),
});

/** `contentBlockDelta` (ContentBlockDeltaEvent): text, tool input JSON text, or reasoning text/signature/redacted. */
export const converseBlockDeltaSchema = z.object({
  contentBlockIndex: z.number(),
  delta: z.object({
    text: z.string().nullish(),
    toolUse: z.object({ input: z.string().nullish() }).nullish(),
    reasoningContent: z
      .object({ text: z.string().nullish(), signature: z.string().nullish(), redactedContent: z.string().nullish() })
      .nullish(),
  }),
});

/** `contentBlockStop` (ContentBlockStopEvent). */
export const converseBlockStopSchema = z.object({ contentBlockIndex: z.number() });

/** `messageStop` (MessageStopEvent). */
export const converseMessageStopSchema = z.object({ stopReason: z.string().nullish() });

/** `metadata` (ConverseStreamMetadataEvent): the usage of the whole answer. */
export const converseMetadataSchema = z.object({ usage: converseUsageSchema.nullish() });

/** The payload of an exception message (`{"message": "…"}`). */
export const bedrockExceptionPayloadSchema = z.object({ message: z.string().nullish() });

/**
 * Zod schemas of what a Gemini upstream sends back (per https://ai.google.dev/api/generate-content).
 * Loose on purpose: unknown keys (safetyRatings, citationMetadata, …) are ignored.
 */
import { z } from 'zod';

const count = z.number().nullish();

/** One response part; only the fields the canonical model keeps are read. */
export const geminiPartSchema = z.object({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  functionCall: z.object({ name: z.string(), args: z.unknown().optional(), id: z.string().nullish() }).nullish(),
});
/** Parsed shape of `geminiPartSchema`. */
export type GeminiPart = z.infer<typeof geminiPartSchema>;

/** `usageMetadata` (tokens). `promptTokenCount` includes cached tokens; candidates exclude thoughts. */
export const geminiUsageMetadataSchema = z.object({
  promptTokenCount: count,
  candidatesTokenCount: count,
  thoughtsTokenCount: count,
  cachedContentTokenCount: count,
  toolUsePromptTokenCount: count,
  totalTokenCount: count,
});
/** Parsed shape of `geminiUsageMetadataSchema`. */
export type GeminiUsageMetadata = z.infer<typeof geminiUsageMetadataSchema>;

/** google.rpc.Status as Gemini sends it in error bodies and late stream errors (https://ai.google.dev/gemini-api/docs/troubleshooting). */
export const geminiErrorObjectSchema = z.object({
  code: z.number().nullish(),
  message: z.string().nullish(),
  status: z.string().nullish(),
  details: z.array(z.unknown()).nullish(),
});
/** Parsed shape of `geminiErrorObjectSchema`. */
export type GeminiErrorObject = z.infer<typeof geminiErrorObjectSchema>;

const candidateSchema = z.object({
  content: z.object({ parts: z.array(geminiPartSchema).nullish(), role: z.string().nullish() }).nullish(),
  finishReason: z.string().nullish(),
});

/** A GenerateContentResponse, or one stream chunk of it, or an error envelope. */
export const geminiResponseSchema = z.object({
  candidates: z.array(candidateSchema).nullish(),
  promptFeedback: z.object({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: geminiUsageMetadataSchema.nullish(),
  modelVersion: z.string().nullish(),
  responseId: z.string().nullish(),
  error: geminiErrorObjectSchema.nullish(),
});
/** Parsed shape of `geminiResponseSchema`. */
export type GeminiResponse = z.infer<typeof geminiResponseSchema>;

/**
 * zod schemas of the Gemini `GenerateContentRequest` body (https://ai.google.dev/api/generate-content),
 * applied AFTER `normalizeGeminiKeys` (so only camelCase names appear here). Unknown fields are
 * tolerated; `null` is accepted wherever a field is optional and means "absent".
 */
import { z } from 'zod';

const jsonObject = z.record(z.string(), z.unknown());

const part = z.object({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  inlineData: z.object({ mimeType: z.string(), data: z.string() }).nullish(),
  fileData: z.object({ mimeType: z.string().nullish(), fileUri: z.string() }).nullish(),
  functionCall: z.object({ name: z.string(), args: jsonObject.nullish(), id: z.string().nullish() }).nullish(),
  functionResponse: z
    .object({ name: z.string(), response: z.unknown().optional(), id: z.string().nullish() })
    .nullish(),
  executableCode: z.unknown().optional(),
  codeExecutionResult: z.unknown().optional(),
});

const content = z.object({
  role: z.enum(['user', 'model', 'function', 'tool']).nullish(),
  parts: z.array(part),
});

const thinkingConfig = z.object({
  thinkingBudget: z.number().int().min(-1).nullish(),
  includeThoughts: z.boolean().nullish(),
  thinkingLevel: z.string().nullish(),
});

const generationConfig = z.object({
  temperature: z.number().nullish(),
  topP: z.number().nullish(),
  topK: z.number().nullish(),
  candidateCount: z.number().int().nullish(),
  maxOutputTokens: z.number().int().min(1).nullish(),
  stopSequences: z.array(z.string()).nullish(),
  responseMimeType: z.string().nullish(),
  responseSchema: jsonObject.nullish(),
  responseJsonSchema: jsonObject.nullish(),
  thinkingConfig: thinkingConfig.nullish(),
  presencePenalty: z.unknown().optional(),
  frequencyPenalty: z.unknown().optional(),
  seed: z.unknown().optional(),
  responseLogprobs: z.unknown().optional(),
  logprobs: z.unknown().optional(),
  responseModalities: z.array(z.string()).nullish(),
  speechConfig: z.unknown().optional(),
  imageConfig: z.unknown().optional(),
});

const functionDeclaration = z.object({
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: jsonObject.nullish(),
  parametersJsonSchema: jsonObject.nullish(),
});

const tool = z.looseObject({ functionDeclarations: z.array(functionDeclaration).nullish() });

const functionCallingMode = z
  .string()
  .transform((mode) => mode.toUpperCase())
  .pipe(z.enum(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']));

const toolConfig = z.object({
  functionCallingConfig: z
    .object({ mode: functionCallingMode.nullish(), allowedFunctionNames: z.array(z.string()).nullish() })
    .nullish(),
});

/** The generateContent body (camelCase). `contents` is required here; countTokens relaxes that. */
export const geminiRequestSchema = z.object({
  contents: z.array(content),
  systemInstruction: z.union([z.string(), z.object({ role: z.string().nullish(), parts: z.array(part) })]).nullish(),
  generationConfig: generationConfig.nullish(),
  tools: z.array(tool).nullish(),
  toolConfig: toolConfig.nullish(),
  safetySettings: z.unknown().optional(),
  cachedContent: z.string().nullish(),
});

/** A validated generateContent body. */
export type GeminiRequestBody = z.output<typeof geminiRequestSchema>;
/** One validated `Content`. */
export type GeminiContent = z.output<typeof content>;
/** One validated `Part`. */
export type GeminiPart = z.output<typeof part>;
/** A validated `generationConfig`. */
export type GeminiGenerationConfig = z.output<typeof generationConfig>;
/** One validated `Tool` entry. */
export type GeminiTool = z.output<typeof tool>;
/** A validated `toolConfig`. */
export type GeminiToolConfig = z.output<typeof toolConfig>;

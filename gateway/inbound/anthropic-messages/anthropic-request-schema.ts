/**
 * zod schemas of the Anthropic Messages request body (https://docs.anthropic.com/en/api/messages).
 * Unknown fields are tolerated (stripped); `null` is accepted wherever a field is optional and
 * means "absent". Content blocks of unknown types parse as `{ type: 'unsupported' }` so that the
 * decoder can drop them with a warning instead of rejecting the request.
 */
import { z } from 'zod';

const base64Source = z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() });
const urlSource = z.object({ type: z.literal('url'), url: z.string() });
const fileSource = z.object({ type: z.literal('file'), file_id: z.string() });
const plainTextSource = z.object({ type: z.literal('text'), data: z.string(), media_type: z.string().nullish() });
const contentSource = z.object({
  type: z.literal('content'),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
});

/** Re-reports a nested schema's issues (codes, union branches, paths) from inside a transform. */
function forwardIssues(ctx: z.core.$RefinementCtx, error: z.ZodError, input: unknown): void {
  for (const issue of error.issues) ctx.issues.push({ ...issue, input } as z.core.$ZodRawIssue);
}

const textBlock = z.object({ type: z.literal('text'), text: z.string() });
const imageBlock = z.object({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [base64Source, urlSource, fileSource]),
});
const documentBlock = z.object({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [base64Source, urlSource, fileSource, plainTextSource, contentSource]),
  title: z.string().nullish(),
});
const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().nullish() });
const redactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string() });

/**
 * A content block checked by the schema `schemas` holds for its `type`: a type without one parses
 * as `unsupported` (the decoder drops it with a warning), a known type that does not fit fails
 * with that schema's issues.
 */
function blockOfKnownTypes<T>(schemas: ReadonlyMap<string, z.ZodType<T>>) {
  return z.looseObject({ type: z.string() }).transform((block, ctx): T | UnsupportedBlock => {
    const schema = schemas.get(block.type);
    if (schema === undefined) return { type: 'unsupported', originalType: block.type };
    const parsed = schema.safeParse(block);
    if (parsed.success) return parsed.data;
    forwardIssues(ctx, parsed.error, block);
    return z.NEVER;
  });
}

/** Blocks allowed inside `tool_result.content` (text and image; others are dropped with a warning). */
const toolResultInner = blockOfKnownTypes(
  new Map<string, z.ZodType<ToolResultInnerBlock>>([
    ['text', textBlock],
    ['image', imageBlock],
  ]),
);

const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(toolResultInner)]).nullish(),
  is_error: z.boolean().nullish(),
});

/** A block type the gateway does not translate (server tool blocks, search results, …). */
export interface UnsupportedBlock {
  readonly type: 'unsupported';
  readonly originalType: string;
}

/** `{type: 'text', text}` (cache_control and citations stripped). */
export type AnthropicTextBlock = z.output<typeof textBlock>;
/** `{type: 'image', source: base64 | url | file}`. */
export type AnthropicImageBlock = z.output<typeof imageBlock>;
/** `{type: 'document', source: base64 | url | file | text | content, title?}`. */
export type AnthropicDocumentBlock = z.output<typeof documentBlock>;
/** `{type: 'tool_result', tool_use_id, content?: string | blocks, is_error?}`. */
export type AnthropicToolResultBlock = z.output<typeof toolResultBlock>;
/** What may appear inside `tool_result.content` after parsing. */
export type ToolResultInnerBlock = AnthropicTextBlock | AnthropicImageBlock | UnsupportedBlock;

/** One parsed request content block. */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | z.output<typeof toolUseBlock>
  | AnthropicToolResultBlock
  | z.output<typeof thinkingBlock>
  | z.output<typeof redactedThinkingBlock>
  | UnsupportedBlock;

const BLOCK_SCHEMAS: ReadonlyMap<string, z.ZodType<AnthropicContentBlock>> = new Map<
  string,
  z.ZodType<AnthropicContentBlock>
>([
  ['text', textBlock],
  ['image', imageBlock],
  ['document', documentBlock],
  ['tool_use', toolUseBlock],
  ['tool_result', toolResultBlock],
  ['thinking', thinkingBlock],
  ['redacted_thinking', redactedThinkingBlock],
]);

/** Any content block: known types are validated by their own schema; unknown types become `unsupported`. */
const contentBlock = blockOfKnownTypes(BLOCK_SCHEMAS);

const message = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(contentBlock)]),
});

/** A tool entry: a custom tool (`input_schema` required) or a server tool (`type` like `web_search_20250305`). */
const tool = z
  .object({
    type: z.string().nullish(),
    name: z.string(),
    description: z.string().nullish(),
    input_schema: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  })
  .superRefine((t, ctx) => {
    const custom = t.type === undefined || t.type === null || t.type === 'custom';
    if (custom && (t.input_schema === undefined || t.input_schema === null)) {
      ctx.addIssue({
        code: 'custom',
        message: 'required for custom tools (expected a JSON Schema object)',
        path: ['input_schema'],
      });
    }
  });

const toolChoice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.object({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().nullish() }),
  z.object({ type: z.literal('none') }),
]);

const thinking = z
  .object({ type: z.string(), budget_tokens: z.number().int().min(1).nullish(), display: z.string().nullish() })
  .superRefine((t, ctx) => {
    if (t.type === 'enabled' && (t.budget_tokens === undefined || t.budget_tokens === null)) {
      ctx.addIssue({
        code: 'custom',
        message: 'required when thinking.type is "enabled" (integer ≥ 1)',
        path: ['budget_tokens'],
      });
    }
  });

const outputConfig = z.object({
  effort: z.string().nullish(),
  format: z.looseObject({ type: z.string(), schema: z.record(z.string(), z.unknown()).nullish() }).nullish(),
});

/** The `POST /v1/messages` body (also `count_tokens`, where `max_tokens` is absent). */
export const anthropicRequestSchema = z.object({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1).nullish(),
  messages: z.array(message),
  system: z.union([z.string(), z.array(textBlock)]).nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  top_k: z.number().int().nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: toolChoice.nullish(),
  thinking: thinking.nullish(),
  metadata: z.object({ user_id: z.string().nullish() }).nullish(),
  output_config: outputConfig.nullish(),
  mcp_servers: z.unknown().optional(),
  container: z.unknown().optional(),
  context_management: z.unknown().optional(),
});

/** A validated request body. */
export type AnthropicRequestBody = z.output<typeof anthropicRequestSchema>;
/** One validated message. */
export type AnthropicMessage = z.output<typeof message>;
/** One validated tool entry. */
export type AnthropicTool = z.output<typeof tool>;
/** A validated `tool_choice`. */
export type AnthropicToolChoice = z.output<typeof toolChoice>;
/** A validated `thinking` config. */
export type AnthropicThinking = z.output<typeof thinking>;
/** A validated `output_config`. */
export type AnthropicOutputConfig = z.output<typeof outputConfig>;

const isNullish = (value: unknown): boolean => value === undefined || value === null;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isTextBlock = (block: unknown): boolean =>
  isObject(block) && block.type === 'text' && typeof block.text === 'string';
const isTextContent = (content: unknown): boolean =>
  typeof content === 'string' || (Array.isArray(content) && content.every(isTextBlock));
const isTextMessage = (message: unknown): boolean =>
  isObject(message) &&
  (message.role === 'user' || message.role === 'assistant' || message.role === 'system') &&
  isTextContent(message.content);

/**
 * For each field of `anthropicRequestSchema`, the test a value passes when the schema would take it
 * unchanged: text-only messages (a string or `text` blocks), a text system prompt, the sampling
 * numbers and the stream flag. Tools, tool choice, thinking, stop sequences, metadata and the
 * output config must be absent (the schema checks them); the free-form fields take anything, as
 * the schema does.
 */
export const PLAIN_ANTHROPIC_REQUEST_FIELDS: Readonly<
  Record<keyof typeof anthropicRequestSchema.shape, (value: unknown) => boolean>
> = {
  model: (value) => typeof value === 'string' && value.length > 0,
  max_tokens: (value) => isNullish(value) || (Number.isSafeInteger(value) && (value as number) >= 1),
  messages: (value) => Array.isArray(value) && value.every(isTextMessage),
  system: (value) => isNullish(value) || isTextContent(value),
  stop_sequences: (value) => value === undefined,
  stream: (value) => isNullish(value) || typeof value === 'boolean',
  temperature: (value) => isNullish(value) || Number.isFinite(value),
  top_p: (value) => isNullish(value) || Number.isFinite(value),
  top_k: (value) => isNullish(value) || Number.isSafeInteger(value),
  tools: (value) => value === undefined,
  tool_choice: (value) => value === undefined,
  thinking: (value) => value === undefined,
  metadata: (value) => value === undefined,
  output_config: (value) => value === undefined,
  mcp_servers: () => true,
  container: () => true,
  context_management: () => true,
};

/**
 * `body` itself when every field passes its PLAIN_ANTHROPIC_REQUEST_FIELDS test: it reads the same
 * through every field and block the decoder uses (it reads no other key of them; `cache_control` is
 * read from the raw body apart), without the copy zod makes. Undefined otherwise: parse it with the
 * schema, which names what is wrong.
 */
export function readPlainAnthropicRequest(body: unknown): AnthropicRequestBody | undefined {
  if (!isObject(body)) return undefined;
  for (const field in PLAIN_ANTHROPIC_REQUEST_FIELDS) {
    const isPlain = PLAIN_ANTHROPIC_REQUEST_FIELDS[field as keyof typeof PLAIN_ANTHROPIC_REQUEST_FIELDS];
    if (!isPlain(body[field])) return undefined;
  }
  return body as AnthropicRequestBody;
}

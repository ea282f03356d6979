/**
 * zod schemas of a Chat Completions request (per https://platform.openai.com/docs/api-reference/chat). Objects
 * are non-strict: unknown fields are tolerated and stripped (the raw body stays available to the
 * encoders, e.g. `stream_options`). Message and part lists are validated one by one in
 * decode-chat-messages.ts so that errors name the exact path (e.g. `messages.2.tool_call_id`).
 */
import { z } from 'zod';

const stringOrParts = z.union([z.string(), z.array(z.unknown())], { error: 'expected string or array' });

/** Top-level fields the decoder reads. */
export const chatRequestSchema = z.object({
  model: z.string().min(1, 'must not be empty'),
  messages: z.array(z.unknown()).min(1, 'must contain at least one message'),
  stream: z.boolean().nullish(),
  n: z.number().int().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  max_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  top_k: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())], { error: 'expected string or array of strings' }).nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  functions: z.array(z.unknown()).nullish(),
  function_call: z.unknown().optional(),
  response_format: z.unknown().optional(),
  reasoning_effort: z.string().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

/** The validated top-level body. */
export type ChatRequestBody = z.output<typeof chatRequestSchema>;

const isNullish = (value: unknown): boolean => value === undefined || value === null;
const nullishOrString = (value: unknown): boolean => isNullish(value) || typeof value === 'string';
const nullishOrBoolean = (value: unknown): boolean => isNullish(value) || typeof value === 'boolean';
/** zod 4's `z.number()` refuses NaN and ±Infinity; `.int()` accepts safe integers only. */
const nullishOrNumber = (value: unknown): boolean =>
  isNullish(value) || (typeof value === 'number' && Number.isFinite(value));
const nullishOrInteger = (value: unknown): boolean => isNullish(value) || Number.isSafeInteger(value);
const nullishOrPositiveInteger = (value: unknown): boolean =>
  isNullish(value) || (Number.isSafeInteger(value) && (value as number) > 0);
const nullishOrArray = (value: unknown): boolean => isNullish(value) || Array.isArray(value);
const anything = (): boolean => true;

/**
 * For each field of chatRequestSchema, a check that its value already has the schema's output type
 * and passes its rules, so the schema would keep it as it is. A check may refuse what the schema
 * accepts (a `stop` list, `metadata`): that body is parsed by the schema. A test holds the keys
 * to the schema's.
 */
export const PLAIN_CHAT_REQUEST_FIELDS: Readonly<
  Record<keyof typeof chatRequestSchema.shape, (value: unknown) => boolean>
> = {
  model: (value) => typeof value === 'string' && value.length > 0,
  messages: (value) => Array.isArray(value) && value.length > 0,
  stream: nullishOrBoolean,
  n: nullishOrInteger,
  max_completion_tokens: nullishOrPositiveInteger,
  max_tokens: nullishOrPositiveInteger,
  temperature: nullishOrNumber,
  top_p: nullishOrNumber,
  top_k: nullishOrInteger,
  stop: nullishOrString,
  tools: nullishOrArray,
  tool_choice: anything,
  functions: nullishOrArray,
  function_call: anything,
  response_format: anything,
  reasoning_effort: nullishOrString,
  parallel_tool_calls: nullishOrBoolean,
  user: nullishOrString,
  safety_identifier: nullishOrString,
  metadata: isNullish,
};

/**
 * The top-level body as chatRequestSchema reads it, when every field passes its
 * PLAIN_CHAT_REQUEST_FIELDS check: the body itself, which reads the same through every field the
 * decoder uses (it reads no other key of it), without the copy zod makes. Undefined otherwise:
 * parse it with the schema, which names what is wrong. `body` is a parsed JSON object.
 */
export function readPlainChatRequest(body: Record<string, unknown>): ChatRequestBody | undefined {
  for (const field in PLAIN_CHAT_REQUEST_FIELDS) {
    const isPlain = PLAIN_CHAT_REQUEST_FIELDS[field as keyof typeof PLAIN_CHAT_REQUEST_FIELDS];
    if (!isPlain(body[field])) return undefined;
  }
  return body as ChatRequestBody;
}

/** Any message: the role decides which schema applies next. */
export const roleSchema = z.object({ role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']) });

/** system / developer / user messages. */
export const contentMessageSchema = z.object({ content: stringOrParts });

/** One assistant `tool_calls` entry. */
export const toolCallSchema = z.object({
  id: z.string().min(1, 'must not be empty'),
  type: z.string().nullish(),
  function: z.object({ name: z.string().min(1, 'must not be empty'), arguments: z.string() }),
});

/** assistant messages: content may be null when tool calls are present. */
export const assistantMessageSchema = z.object({
  content: stringOrParts.nullish(),
  tool_calls: z.array(z.unknown()).nullish(),
  reasoning_content: z.string().nullish(),
  refusal: z.string().nullish(),
  function_call: z.object({ name: z.string().min(1, 'must not be empty'), arguments: z.string() }).nullish(),
});

/** tool messages. */
export const toolMessageSchema = z.object({
  tool_call_id: z.string().min(1, 'must not be empty'),
  content: stringOrParts,
});

/** legacy function-result messages. */
export const functionMessageSchema = z.object({
  name: z.string().min(1, 'must not be empty'),
  content: z.string().nullish(),
});

/** `text` part. */
export const textPartSchema = z.object({ text: z.string() });

/** `refusal` part (assistant history). */
export const refusalPartSchema = z.object({ refusal: z.string() });

/** `image_url` part: `{image_url: {url, detail?}}` (a bare string URL is tolerated). */
export const imageUrlPartSchema = z.object({
  image_url: z.union([z.string(), z.object({ url: z.string() })], { error: 'expected an object with a string `url`' }),
});

/** `file` part: `{file: {file_id} | {file_data, filename}}`. */
export const filePartSchema = z.object({
  file: z.object({ file_id: z.string().nullish(), file_data: z.string().nullish(), filename: z.string().nullish() }),
});

/** Nested function tool: `{type:"function", function:{name, description?, parameters?, strict?}}`. */
export const functionDefinitionSchema = z.object({
  name: z.string().min(1, 'must not be empty'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/** `response_format`: text | json_object | json_schema{json_schema:{name, schema?, strict?, description?}}. */
export const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().min(1, 'must not be empty'),
      schema: z.record(z.string(), z.unknown()).nullish(),
      strict: z.boolean().nullish(),
      description: z.string().nullish(),
    }),
  }),
]);

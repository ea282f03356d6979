/**
 * zod schemas of a Responses create request (per https://platform.openai.com/docs/api-reference/responses). Objects are
 * non-strict: unknown fields are tolerated (SDKs add new ones every release) and stripped.
 * Item and content lists are validated item by item in decode-responses-input.ts so that errors
 * name the exact path (e.g. `input.3.call_id`).
 */
import { z } from 'zod';

/** Top-level fields the decoder reads; everything else is echoed from the raw body or ignored. */
export const responsesRequestSchema = z.object({
  model: z.string().min(1, 'must not be empty'),
  input: z.union([z.string(), z.array(z.unknown())], { error: 'expected string or array' }),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z.object({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  text: z.object({ format: z.unknown().optional(), verbosity: z.string().nullish() }).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

/** The validated top-level body. */
export type ResponsesRequestBody = z.output<typeof responsesRequestSchema>;

/** A flat function tool: `{type:"function", name, description?, parameters?, strict?}`. */
export const functionToolSchema = z.object({
  type: z.literal('function'),
  name: z.string().min(1, 'must not be empty'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/**
 * A custom tool (schema `CustomToolParam`): free-text input, optionally constrained by a grammar
 * (https://platform.openai.com/docs/guides/function-calling#custom-tools).
 */
export const customToolSchema = z.object({
  type: z.literal('custom'),
  name: z.string().min(1, 'must not be empty'),
  description: z.string().nullish(),
  format: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('grammar'), syntax: z.string().min(1, 'must not be empty'), definition: z.string() }),
    ])
    .nullish(),
});

/** A namespace tool (schema `NamespaceToolParam`): `{type:"namespace", name, description?, tools:[function|custom…]}`. */
export const namespaceToolSchema = z.object({
  type: z.literal('namespace'),
  name: z.string().min(1, 'must not be empty'),
  description: z.string().nullish(),
  tools: z.array(z.unknown()).min(1, 'must contain at least one tool'),
});

/** An `additional_tools` input item (schema `AdditionalTools`): tools made available from this point. */
export const additionalToolsItemSchema = z.object({ tools: z.array(z.unknown()) });

/** `text.format`: text | json_object | json_schema. */
export const textFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().min(1, 'must not be empty'),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().nullish(),
    description: z.string().nullish(),
  }),
]);

/** An "easy" or typed message item: role + string or part-list content. */
export const messageItemSchema = z.object({
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(z.unknown())], { error: 'expected string or array' }),
});

/** `function_call` replayed from a prior assistant turn. */
export const functionCallItemSchema = z.object({
  call_id: z.string().min(1, 'must not be empty'),
  namespace: z.string().nullish(),
  name: z.string().min(1, 'must not be empty'),
  arguments: z.string(),
});

/** `custom_tool_call` replayed from a prior assistant turn (schema `CustomToolCall`). */
export const customToolCallItemSchema = z.object({
  call_id: z.string().min(1, 'must not be empty'),
  namespace: z.string().nullish(),
  name: z.string().min(1, 'must not be empty'),
  input: z.string(),
});

/** `function_call_output` / `custom_tool_call_output`: output is a string or a list of input_text/input_image/input_file parts. */
export const functionCallOutputItemSchema = z.object({
  call_id: z.string().min(1, 'must not be empty'),
  output: z.union([z.string(), z.array(z.unknown())], { error: 'expected string or array' }),
});

const reasoningTextSchema = z.object({ text: z.string() });

/** `reasoning` item replay: summary/content texts and the opaque `encrypted_content`. */
export const reasoningItemSchema = z.object({
  summary: z.array(reasoningTextSchema).nullish(),
  content: z.array(reasoningTextSchema).nullish(),
  encrypted_content: z.string().nullish(),
});

/** `input_text` / `output_text` parts. */
export const textPartSchema = z.object({ text: z.string() });

/** `refusal` part in assistant history. */
export const refusalPartSchema = z.object({ refusal: z.string() });

/** `input_image`: by `image_url` (http(s) or data URL) or `file_id`. */
export const imagePartSchema = z.object({ image_url: z.string().nullish(), file_id: z.string().nullish() });

/** `input_file`: by `file_id`, `file_data` (+ `filename`) or `file_url`. */
export const filePartSchema = z.object({
  file_id: z.string().nullish(),
  file_data: z.string().nullish(),
  file_url: z.string().nullish(),
  filename: z.string().nullish(),
});

/**
 * Reads, from a request body the gateway sent to an upstream, the parts the Python contract cases
 * check in that upstream protocol's own terms: the replayed tool call and its result, and the
 * structured-output schema. Field names follow each protocol's reference:
 * - Chat Completions: https://platform.openai.com/docs/api-reference/chat/create
 * - Responses: https://platform.openai.com/docs/api-reference/responses/create
 * - Anthropic Messages: https://docs.anthropic.com/en/api/messages
 * - Gemini: https://ai.google.dev/api/generate-content
 */
import type { WireFormat } from '../../../gateway/canonical/formats.ts';

/** A replayed tool call and the result sent for it, as one upstream request carries them. */
export interface UpstreamToolExchange {
  readonly callId: string | undefined;
  readonly callName: string | undefined;
  readonly callArguments: unknown;
  readonly resultCallId: string | undefined;
  readonly resultName: string | undefined;
  /** The result's content as text (JSON text for Gemini's structured `response`). */
  readonly resultText: string;
}

type Json = Record<string, unknown>;

const asRecords = (value: unknown): Json[] =>
  Array.isArray(value) ? (value.filter((v) => v !== null && typeof v === 'object') as Json[]) : [];

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asRecords(content)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('');
}

function parseArguments(text: unknown): unknown {
  try {
    return typeof text === 'string' ? JSON.parse(text) : text;
  } catch {
    return `unparseable: ${String(text)}`;
  }
}

function chatToolExchange(body: Json): UpstreamToolExchange {
  const messages = asRecords(body.messages);
  const call = asRecords(messages.find((m) => m.role === 'assistant' && Array.isArray(m.tool_calls))?.tool_calls)[0];
  const fn = (call?.function ?? {}) as Json;
  const result = messages.find((m) => m.role === 'tool');
  return {
    callId: call?.id as string | undefined,
    callName: fn.name as string | undefined,
    callArguments: parseArguments(fn.arguments),
    resultCallId: result?.tool_call_id as string | undefined,
    resultName: undefined,
    resultText: textOf(result?.content),
  };
}

function responsesToolExchange(body: Json): UpstreamToolExchange {
  const items = asRecords(body.input);
  const call = items.find((item) => item.type === 'function_call');
  const result = items.find((item) => item.type === 'function_call_output');
  return {
    callId: call?.call_id as string | undefined,
    callName: call?.name as string | undefined,
    callArguments: parseArguments(call?.arguments),
    resultCallId: result?.call_id as string | undefined,
    resultName: undefined,
    resultText: textOf(result?.output),
  };
}

function anthropicToolExchange(body: Json): UpstreamToolExchange {
  const blocks = asRecords(body.messages).flatMap((m) =>
    asRecords(m.content).map((block) => ({ role: m.role, block })),
  );
  const call = blocks.find((b) => b.role === 'assistant' && b.block.type === 'tool_use')?.block;
  const result = blocks.find((b) => b.role === 'user' && b.block.type === 'tool_result')?.block;
  return {
    callId: call?.id as string | undefined,
    callName: call?.name as string | undefined,
    callArguments: call?.input,
    resultCallId: result?.tool_use_id as string | undefined,
    resultName: undefined,
    resultText: textOf(result?.content),
  };
}

function geminiToolExchange(body: Json): UpstreamToolExchange {
  const parts = asRecords(body.contents).flatMap((c) => asRecords(c.parts).map((part) => ({ role: c.role, part })));
  const call = parts.find((p) => p.role === 'model' && p.part.functionCall)?.part.functionCall as Json | undefined;
  const result = parts.find((p) => p.role !== 'model' && p.part.functionResponse)?.part.functionResponse as
    Json | undefined;
  return {
    callId: call?.id as string | undefined,
    callName: call?.name as string | undefined,
    callArguments: call?.args,
    resultCallId: result?.id as string | undefined,
    resultName: result?.name as string | undefined,
    resultText: result?.response === undefined ? '' : JSON.stringify(result.response),
  };
}

/** The tool call and tool result that an upstream request of `protocol` replays. */
export function readUpstreamToolExchange(protocol: WireFormat, body: Json): UpstreamToolExchange {
  switch (protocol) {
    case 'openai-chat':
      return chatToolExchange(body);
    case 'openai-responses':
      return responsesToolExchange(body);
    case 'anthropic-messages':
      return anthropicToolExchange(body);
    case 'gemini':
      return geminiToolExchange(body);
  }
}

/**
 * The structured-output schema an upstream request of `protocol` asks for: Chat
 * `response_format.json_schema.schema`, Responses `text.format.schema`, Anthropic
 * `output_config.format.schema`, Gemini `generationConfig.responseJsonSchema` (or the
 * OpenAPI-subset `responseSchema`). Undefined when the request asks for none.
 */
export function readUpstreamOutputSchema(protocol: WireFormat, body: Json): unknown {
  const at = (value: unknown, ...path: string[]): unknown =>
    path.reduce<unknown>(
      (node, key) => (node !== null && typeof node === 'object' ? (node as Json)[key] : undefined),
      value,
    );
  switch (protocol) {
    case 'openai-chat':
      return at(body, 'response_format', 'json_schema', 'schema');
    case 'openai-responses':
      return at(body, 'text', 'format', 'schema');
    case 'anthropic-messages':
      return at(body, 'output_config', 'format', 'schema');
    case 'gemini':
      return at(body, 'generationConfig', 'responseJsonSchema') ?? at(body, 'generationConfig', 'responseSchema');
  }
}

/**
 * `schema` with every `type` value lower-cased, so the OpenAPI-subset form Gemini's `responseSchema`
 * uses (`"OBJECT"`, `"STRING"`) compares equal to the JSON Schema form.
 */
export function withLowerCaseTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withLowerCaseTypes);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Json).map(([key, value]) => [
      key,
      key === 'type' && typeof value === 'string' ? value.toLowerCase() : withLowerCaseTypes(value),
    ]),
  );
}

/** A reasoning part replayed to an upstream: its text and the provider token that vouches for it. */
export interface ReplayedReasoning {
  readonly text: string;
  /** Anthropic `signature`, Responses `encrypted_content`, Gemini `thoughtSignature`. */
  readonly signature: string | undefined;
}

/**
 * The reasoning an upstream request of `protocol` replays in its assistant turns: Anthropic
 * `thinking` blocks, Responses `reasoning` items, Gemini `thought` parts, Chat `reasoning_content`
 * (the DeepSeek-style field: https://api-docs.deepseek.com/guides/reasoning_model).
 */
export function readUpstreamReplayedReasoning(protocol: WireFormat, body: Json): ReplayedReasoning[] {
  switch (protocol) {
    case 'anthropic-messages':
      return asRecords(body.messages)
        .filter((m) => m.role === 'assistant')
        .flatMap((m) => asRecords(m.content))
        .filter((block) => block.type === 'thinking')
        .map((block) => ({
          text: typeof block.thinking === 'string' ? block.thinking : '',
          signature: block.signature as string | undefined,
        }));
    case 'openai-responses':
      return asRecords(body.input)
        .filter((item) => item.type === 'reasoning')
        .map((item) => ({
          text: textOf(item.summary) + textOf(item.content),
          signature: item.encrypted_content as string | undefined,
        }));
    case 'gemini':
      return asRecords(body.contents)
        .filter((c) => c.role === 'model')
        .flatMap((c) => asRecords(c.parts))
        .filter((part) => part.thought === true)
        .map((part) => ({
          text: typeof part.text === 'string' ? part.text : '',
          signature: part.thoughtSignature as string | undefined,
        }));
    case 'openai-chat':
      return asRecords(body.messages)
        .filter((m) => m.role === 'assistant' && typeof m.reasoning_content === 'string')
        .map((m) => ({ text: m.reasoning_content as string, signature: undefined }));
  }
}

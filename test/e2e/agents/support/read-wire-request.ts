/**
 * Reads one model request in any of the four wire formats, or in Amazon Bedrock's Converse (an
 * upstream-only protocol), into the few facts the agent tests need: the tools it offers (by the
 * name the model must call), the tool results already in the conversation, whether structured
 * (JSON) output is asked for, and whether it streams.
 *
 * Shapes follow the public API references:
 * - Anthropic Messages: https://docs.anthropic.com/en/api/messages
 * - OpenAI Chat Completions: https://platform.openai.com/docs/api-reference/chat/create
 * - OpenAI Responses: https://platform.openai.com/docs/api-reference/responses/create
 * - Gemini generateContent: https://ai.google.dev/api/generate-content
 * - Bedrock Converse / ConverseStream: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 *   (Message, ContentBlock, ToolResultBlock, ToolConfiguration, OutputConfig)
 */
import type { UpstreamProtocol } from '../../../../gateway/canonical/formats.ts';

/** A JSON object as parsed from a request body. */
export type JsonObject = Record<string, unknown>;

/** One tool the request offers: its callable name, kind and (for functions) its JSON Schema. */
export interface OfferedTool {
  /** The name a model calls it by in this protocol (namespaced Responses tools: `<namespace>__<name>`). */
  readonly name: string;
  /** `function` (JSON arguments), `custom` (free-form string input), `builtin` (a provider-hosted tool such as web search). */
  readonly kind: 'function' | 'custom' | 'builtin';
  readonly parameters?: JsonObject;
}

/** What a model request asks for, protocol-neutral. */
export interface WireRequestSummary {
  readonly model: string;
  readonly stream: boolean;
  readonly tools: OfferedTool[];
  /** Texts of the tool results present in the conversation, in order. */
  readonly toolResults: string[];
  /** The JSON Schema of a structured-output request; `{}` for plain JSON mode; undefined otherwise. */
  readonly jsonSchema?: JsonObject;
}

/** Codex's default namespace, whose tools keep bare names (OpenAI "NamespaceToolParam"). */
const DEFAULT_NAMESPACE = 'functions';

function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => textOf(asObject(part)?.text ?? asObject(part)?.content ?? '')).join('');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

function readAnthropic(body: JsonObject): WireRequestSummary {
  const tools = asArray(body.tools).map((raw): OfferedTool => {
    const tool = asObject(raw) ?? {};
    const custom = tool.type === undefined || tool.type === 'custom';
    return { name: String(tool.name), kind: custom ? 'function' : 'builtin', parameters: asObject(tool.input_schema) };
  });
  const toolResults = asArray(body.messages).flatMap((message) =>
    asArray(asObject(message)?.content)
      .map(asObject)
      .filter((block) => block?.type === 'tool_result')
      .map((block) => textOf(block?.content)),
  );
  const format = asObject(body.output_format) ?? asObject(asObject(body.output_config)?.format);
  return {
    model: String(body.model),
    stream: body.stream === true,
    tools,
    toolResults,
    jsonSchema: format ? (asObject(format.schema) ?? {}) : undefined,
  };
}

function readChat(body: JsonObject): WireRequestSummary {
  const tools = asArray(body.tools).map((raw): OfferedTool => {
    const tool = asObject(raw) ?? {};
    const fn = asObject(tool.function);
    if (tool.type === 'function' && fn)
      return { name: String(fn.name), kind: 'function', parameters: asObject(fn.parameters) };
    const custom = asObject(tool.custom);
    if (tool.type === 'custom' && custom) return { name: String(custom.name), kind: 'custom' };
    return { name: String(tool.type), kind: 'builtin' };
  });
  const toolResults = asArray(body.messages)
    .map(asObject)
    .filter((message) => message?.role === 'tool')
    .map((message) => textOf(message?.content));
  const format = asObject(body.response_format);
  const jsonSchema =
    format?.type === 'json_schema'
      ? (asObject(asObject(format.json_schema)?.schema) ?? {})
      : format?.type === 'json_object'
        ? {}
        : undefined;
  return { model: String(body.model), stream: body.stream === true, tools, toolResults, jsonSchema };
}

function responsesTool(raw: unknown, namespace?: string): OfferedTool[] {
  const tool = asObject(raw) ?? {};
  if (tool.type === 'namespace') return asArray(tool.tools).flatMap((inner) => responsesTool(inner, String(tool.name)));
  const qualified = (name: string) => (namespace && namespace !== DEFAULT_NAMESPACE ? `${namespace}__${name}` : name);
  if (tool.type === 'function')
    return [{ name: qualified(String(tool.name)), kind: 'function', parameters: asObject(tool.parameters) }];
  if (tool.type === 'custom') return [{ name: qualified(String(tool.name)), kind: 'custom' }];
  return [{ name: String(tool.name ?? tool.type), kind: 'builtin' }];
}

function readResponses(body: JsonObject): WireRequestSummary {
  const items = asArray(body.input).map(asObject);
  // Codex sends its tools in `additional_tools` input items as well as (or instead of) top-level `tools`.
  const toolSources = [
    ...asArray(body.tools),
    ...items.filter((item) => item?.type === 'additional_tools').flatMap((item) => asArray(item?.tools)),
  ];
  const tools = toolSources.flatMap((tool) => responsesTool(tool));
  const toolResults = items
    .filter((item) => item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output')
    .map((item) => textOf(item?.output));
  const format = asObject(asObject(body.text)?.format);
  const jsonSchema =
    format?.type === 'json_schema' ? (asObject(format.schema) ?? {}) : format?.type === 'json_object' ? {} : undefined;
  return { model: String(body.model), stream: body.stream === true, tools, toolResults, jsonSchema };
}

function readGemini(body: JsonObject, path: string): WireRequestSummary {
  const match = /\/models\/([^:]+):(\w+)/.exec(path);
  const tools = asArray(body.tools).flatMap((raw): OfferedTool[] => {
    const tool = asObject(raw) ?? {};
    const declarations = asArray(tool.functionDeclarations ?? tool.function_declarations).map(asObject);
    const builtins = Object.keys(tool).filter(
      (key) => key !== 'functionDeclarations' && key !== 'function_declarations',
    );
    return [
      ...declarations.map((d): OfferedTool => ({
        name: String(d?.name),
        kind: 'function',
        parameters: asObject(d?.parametersJsonSchema) ?? asObject(d?.parameters),
      })),
      ...builtins.map((key): OfferedTool => ({ name: key, kind: 'builtin' })),
    ];
  });
  const toolResults = asArray(body.contents).flatMap((content) =>
    asArray(asObject(content)?.parts)
      .map((part) => asObject(asObject(part)?.functionResponse))
      .filter((response) => response !== undefined)
      .map((response) => JSON.stringify(response?.response ?? {})),
  );
  const config = asObject(body.generationConfig) ?? {};
  const schema = asObject(config.responseJsonSchema) ?? asObject(config.responseSchema);
  const jsonSchema = schema ?? (config.responseMimeType === 'application/json' ? {} : undefined);
  return {
    model: decodeURIComponent(match?.[1] ?? ''),
    stream: match?.[2] === 'streamGenerateContent',
    tools,
    toolResults,
    jsonSchema,
  };
}

/** Converse and ConverseStream paths: `/model/{modelId}/converse` and `/model/{modelId}/converse-stream`. */
const CONVERSE_PATH = /\/model\/([^/]+)\/(converse|converse-stream)$/;

/** The text of one Converse ToolResultContentBlock: `text`, or `json` as JSON text; other blocks name their kind. */
function converseToolResultText(block: JsonObject | undefined): string {
  if (typeof block?.text === 'string') return block.text;
  if (block?.json !== undefined) return JSON.stringify(block.json);
  return block ? `[${Object.keys(block).join(',')}]` : '';
}

/**
 * A Converse request: model and streaming from the path; tools from `toolConfig.tools[].toolSpec`
 * (`inputSchema.json` the parameters); tool results from the `toolResult` blocks of the messages;
 * a JSON schema from `outputConfig.textFormat.structure.jsonSchema.schema` (a JSON string).
 */
function readConverse(body: JsonObject, path: string): WireRequestSummary {
  const match = CONVERSE_PATH.exec(path);
  const tools = asArray(asObject(body.toolConfig)?.tools).flatMap((raw): OfferedTool[] => {
    const spec = asObject(asObject(raw)?.toolSpec);
    if (!spec) return [];
    return [{ name: String(spec.name), kind: 'function', parameters: asObject(asObject(spec.inputSchema)?.json) }];
  });
  const toolResults = asArray(body.messages).flatMap((message) =>
    asArray(asObject(message)?.content)
      .map((block) => asObject(asObject(block)?.toolResult))
      .filter((result) => result !== undefined)
      .map((result) =>
        asArray(result?.content)
          .map((block) => converseToolResultText(asObject(block)))
          .join(''),
      ),
  );
  const structure = asObject(asObject(asObject(body.outputConfig)?.textFormat)?.structure);
  const schemaText = asObject(structure?.jsonSchema)?.schema;
  return {
    model: decodeURIComponent(match?.[1] ?? ''),
    stream: match?.[2] === 'converse-stream',
    tools,
    toolResults,
    jsonSchema: typeof schemaText === 'string' ? (asObject(JSON.parse(schemaText)) ?? {}) : undefined,
  };
}

/**
 * Summarises a model request of `format`. `path` is the URL path (Gemini and Converse carry model
 * and streaming there). Throws on a body that is not a JSON object, or a Converse JSON schema that
 * is not JSON text.
 */
export function readWireRequest(format: UpstreamProtocol, path: string, body: unknown): WireRequestSummary {
  const object = asObject(body);
  if (!object) throw new Error(`${format} request body is not a JSON object`);
  switch (format) {
    case 'anthropic-messages':
      return readAnthropic(object);
    case 'openai-chat':
      return readChat(object);
    case 'openai-responses':
      return readResponses(object);
    case 'gemini':
      return readGemini(object, path);
    case 'bedrock-converse':
      return readConverse(object, path);
  }
}

/**
 * The protocol of a model-generation path (`/v1/messages`, `/v1/chat/completions`, `/v1/responses`,
 * Gemini `:generateContent`/`:streamGenerateContent`, Converse `/model/{id}/converse(-stream)`),
 * else undefined.
 */
export function generationFormatOf(path: string): UpstreamProtocol | undefined {
  const bare = path.split('?')[0] ?? '';
  if (/\/v1\/messages$/.test(bare)) return 'anthropic-messages';
  if (/\/chat\/completions$/.test(bare)) return 'openai-chat';
  if (/\/v1\/responses$/.test(bare)) return 'openai-responses';
  if (/\/models\/[^/]+:(generateContent|streamGenerateContent)$/.test(bare)) return 'gemini';
  if (CONVERSE_PATH.test(bare)) return 'bedrock-converse';
  return undefined;
}

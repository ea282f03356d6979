/**
 * The full Responses `Response` object (https://platform.openai.com/docs/api-reference/responses/object):
 * every key the API returns is present (nulls allowed), request settings are echoed from the
 * client's raw body with OpenAI's defaults when absent. Used for the non-streamed body and every
 * lifecycle snapshot of a stream (`response.created`, `in_progress`, terminal events).
 */
import type { EncodeContext } from '../inbound-codec.ts';
import { isJsonObject } from '../openai-common/request-field-error.ts';
import { echoFunctionTool } from './echo-function-tool.ts';
import type { ResponsesUsage } from './map-responses-usage.ts';

/** What varies between snapshots of one response. `completedAt` in unix seconds. */
export interface ResponseSnapshot {
  readonly id: string;
  readonly status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  readonly output: ReadonlyArray<unknown>;
  readonly usage: ResponsesUsage | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly incompleteDetails: { readonly reason: string } | null;
  readonly completedAt: number | null;
}

/** Request settings echoed in every snapshot, computed once per response. */
export type EchoedRequestFields = Readonly<Record<string, unknown>>;

function orDefault<T>(value: unknown, isValid: (v: unknown) => v is T, fallback: T): T {
  return isValid(value) ? value : fallback;
}
const isNumber = (v: unknown): v is number => typeof v === 'number';
const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isObject = (v: unknown): v is Record<string, unknown> => isJsonObject(v);
const isToolChoice = (v: unknown): v is string | Record<string, unknown> => isString(v) || isObject(v);
/** A guard accepting only the listed strings (enums of the Response schema). */
function isOneOf(...allowed: string[]): (v: unknown) => v is string {
  return (v: unknown): v is string => isString(v) && allowed.includes(v);
}

/** Echo of one tool: a function with `strict`; custom and namespace tools as the client sent them (inner functions with `strict`). */
function echoTool(tool: Record<string, unknown>): Record<string, unknown> {
  if (tool.type === 'function') return echoFunctionTool(tool);
  if (tool.type !== 'namespace' || !Array.isArray(tool.tools)) return tool;
  const tools: unknown[] = tool.tools;
  return { ...tool, tools: tools.map((inner) => (isJsonObject(inner) ? echoTool(inner) : inner)) };
}

/** Echo of top-level `tools`: function, custom and namespace tools (the kinds the gateway carries). */
function echoTools(tools: unknown): unknown[] {
  const carried = ['function', 'custom', 'namespace'];
  return Array.isArray(tools)
    ? tools
        .filter((t): t is Record<string, unknown> => isJsonObject(t) && carried.includes(t.type as string))
        .map(echoTool)
    : [];
}

function echoReasoning(reasoning: unknown): Record<string, unknown> {
  const r = isJsonObject(reasoning) ? reasoning : {};
  return {
    effort: orDefault<string | null>(r.effort, isString, null),
    summary: orDefault<string | null>(r.summary, isString, null),
  };
}

function echoText(text: unknown): Record<string, unknown> {
  const t = isJsonObject(text) ? text : {};
  return {
    format: orDefault(t.format, isObject, { type: 'text' }),
    verbosity: orDefault(t.verbosity, isString, 'medium'),
  };
}

/**
 * Computes the echoed request fields from the raw body. Defaults when absent: temperature 1,
 * top_p 1, presence_penalty 0, frequency_penalty 0, tool_choice "auto", store true,
 * safety_identifier / prompt_cache_key / prompt_cache_retention / previous_response_id null (the
 * gateway resolves `previous_response_id` from its own store before decoding, gateway/responses-api/stored-responses/,
 * and echoes it as the API does). `user` (deprecated, typed
 * as a non-null string by the schema) is echoed only when the client sent one.
 */
export function echoRequestFields(raw: Readonly<Record<string, unknown>>): EchoedRequestFields {
  return {
    background: orDefault(raw.background, isBoolean, false),
    frequency_penalty: orDefault(raw.frequency_penalty, isNumber, 0),
    instructions: isString(raw.instructions) || Array.isArray(raw.instructions) ? raw.instructions : null,
    max_output_tokens: orDefault<number | null>(raw.max_output_tokens, isNumber, null),
    max_tool_calls: orDefault<number | null>(raw.max_tool_calls, isNumber, null),
    parallel_tool_calls: orDefault(raw.parallel_tool_calls, isBoolean, true),
    presence_penalty: orDefault(raw.presence_penalty, isNumber, 0),
    previous_response_id:
      isString(raw.previous_response_id) && raw.previous_response_id !== '' ? raw.previous_response_id : null,
    prompt_cache_key: orDefault<string | null>(raw.prompt_cache_key, isString, null),
    prompt_cache_retention: orDefault<string | null>(raw.prompt_cache_retention, isOneOf('in_memory', '24h'), null),
    reasoning: echoReasoning(raw.reasoning),
    safety_identifier: orDefault<string | null>(raw.safety_identifier, isString, null),
    service_tier: orDefault(raw.service_tier, isString, 'default'),
    store: orDefault(raw.store, isBoolean, true),
    temperature: orDefault(raw.temperature, isNumber, 1),
    text: echoText(raw.text),
    tool_choice: orDefault(raw.tool_choice, isToolChoice, 'auto'),
    tools: echoTools(raw.tools),
    top_logprobs: orDefault(raw.top_logprobs, isNumber, 0),
    top_p: orDefault(raw.top_p, isNumber, 1),
    truncation: orDefault(raw.truncation, isString, 'disabled'),
    user: orDefault<string | undefined>(raw.user, isString, undefined),
    metadata: orDefault(raw.metadata, isObject, {}),
  };
}

/**
 * Builds the Response object in OpenAI's key order. `model` is `context.model`, `created_at` is
 * `context.createdAt`; `user` is left out when not echoed.
 */
export function buildResponseObject(
  snapshot: ResponseSnapshot,
  echo: EchoedRequestFields,
  context: EncodeContext,
): Record<string, unknown> {
  return {
    id: snapshot.id,
    object: 'response',
    created_at: context.createdAt,
    status: snapshot.status,
    completed_at: snapshot.completedAt,
    background: echo.background,
    error: snapshot.error,
    frequency_penalty: echo.frequency_penalty,
    incomplete_details: snapshot.incompleteDetails,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    max_tool_calls: echo.max_tool_calls,
    model: context.model,
    output: snapshot.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    presence_penalty: echo.presence_penalty,
    previous_response_id: echo.previous_response_id,
    prompt_cache_key: echo.prompt_cache_key,
    prompt_cache_retention: echo.prompt_cache_retention,
    reasoning: echo.reasoning,
    safety_identifier: echo.safety_identifier,
    service_tier: echo.service_tier,
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_logprobs: echo.top_logprobs,
    top_p: echo.top_p,
    truncation: echo.truncation,
    usage: snapshot.usage,
    ...(echo.user === undefined ? {} : { user: echo.user }),
    metadata: echo.metadata,
  };
}

/** Current time in unix seconds (for `completed_at`). */
export function nowUnixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

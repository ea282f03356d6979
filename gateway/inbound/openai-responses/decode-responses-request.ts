/**
 * Decodes a Responses create body (per https://platform.openai.com/docs/api-reference/responses) into a CanonicalRequest.
 * `previous_response_id` and `conversation` need stored state the gateway does not keep yet:
 * both are refused (OpenAI answers an unknown previous response with 400
 * `previous_response_not_found`, §6 item 8).
 */
import type { CanonicalRequest, DecodeResult, ReasoningConfig, ResponseFormat } from '../../canonical/request.ts';
import { mapOpenAIReasoningEffort } from '../openai-common/map-openai-reasoning-effort.ts';
import { omitUndefined } from '../openai-common/omit-undefined.ts';
import { catchRequestFieldError, isJsonObject, parseAt, RequestFieldError } from '../openai-common/request-field-error.ts';
import { decodeResponsesInput } from './decode-responses-input.ts';
import { decodeResponsesToolChoice, decodeResponsesTools } from './decode-responses-tools.ts';
import { responsesRequestSchema, textFormatSchema, type ResponsesRequestBody } from './responses-request-schema.ts';

/** Refuses stateful continuation fields (no persistence yet). */
function refuseStoredState(body: Record<string, unknown>): DecodeResult<never> | undefined {
  const previous = body.previous_response_id;
  if (typeof previous === 'string' && previous !== '') {
    return { ok: false, message: `Previous response with id '${previous}' not found.`, param: 'previous_response_id' };
  }
  if (body.conversation !== undefined && body.conversation !== null) {
    return { ok: false, message: 'Conversations are not supported by this gateway; send the full input instead.', param: 'conversation' };
  }
  return undefined;
}

function decodeTextFormat(text: ResponsesRequestBody['text']): ResponseFormat | undefined {
  if (text?.format === undefined || text.format === null) return undefined;
  const format = parseAt(textFormatSchema, text.format, ['text', 'format']);
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json-object' };
    case 'json_schema':
      return omitUndefined<ResponseFormat>({ type: 'json-schema', name: format.name, schema: format.schema, strict: format.strict ?? undefined, description: format.description ?? undefined });
  }
}

/** `reasoning.effort` → effort; any `reasoning.summary` asks for the reasoning text (`includeThoughts`). */
function decodeReasoning(reasoning: ResponsesRequestBody['reasoning'], warnings: string[]): ReasoningConfig | undefined {
  if (!reasoning) return undefined;
  const effort = reasoning.effort ? mapOpenAIReasoningEffort(reasoning.effort, 'reasoning.effort', warnings) : undefined;
  const includeThoughts = reasoning.summary ? true : undefined;
  const config = omitUndefined<ReasoningConfig>({ ...effort, includeThoughts });
  return Object.keys(config).length === 0 ? undefined : config;
}

function systemText(instructions: string | null | undefined, texts: string[]): string | undefined {
  const all = [instructions ?? '', ...texts].filter((t) => t !== '');
  return all.length === 0 ? undefined : all.join('\n\n');
}

function decodeBody(body: unknown, countOnly: boolean): DecodeResult<CanonicalRequest> {
  if (!isJsonObject(body)) throw new RequestFieldError([], 'request body must be a JSON object');
  const refused = refuseStoredState(body);
  if (refused) return refused;
  const request = parseAt(responsesRequestSchema, body, []);
  const warnings: string[] = [];
  if (body.prompt !== undefined && body.prompt !== null) warnings.push('prompt: stored prompt templates are not supported and were ignored');
  const input = decodeResponsesInput(request.input, warnings);
  if (input.messages.length === 0) throw new RequestFieldError(['input'], 'must contain at least one user, assistant or tool item');
  const tools = decodeResponsesTools(body, warnings);
  const value = omitUndefined<CanonicalRequest>({
    clientFormat: 'openai-responses',
    model: request.model,
    stream: countOnly ? false : request.stream === true,
    system: systemText(request.instructions, input.systemTexts),
    messages: input.messages,
    tools: tools.length > 0 ? tools : undefined,
    toolChoice: decodeResponsesToolChoice(request.tool_choice, warnings),
    parallelToolCalls: request.parallel_tool_calls ?? undefined,
    maxOutputTokens: request.max_output_tokens ?? undefined,
    temperature: request.temperature ?? undefined,
    topP: request.top_p ?? undefined,
    responseFormat: decodeTextFormat(request.text),
    reasoning: decodeReasoning(request.reasoning, warnings),
    user: request.user ?? undefined,
    metadata: request.metadata ?? undefined,
  });
  return warnings.length === 0 ? { ok: true, value } : { ok: true, value, warnings };
}

/**
 * Validates and decodes `POST /v1/responses`. Never throws on bad input: returns
 * `{ ok: false, message, param }` with a dot path (e.g. `input.2.call_id`). Requires `model`
 * (non-empty string) and `input` (string or item list yielding at least one turn).
 */
export function decodeResponsesRequest(body: unknown): DecodeResult<CanonicalRequest> {
  return catchRequestFieldError(() => decodeBody(body, false));
}

/**
 * Decodes `POST /v1/responses/input_tokens`: the same body as a create request; `stream` is
 * forced to false. `hints.model` fills a missing `model`.
 */
export function decodeResponsesCountTokensRequest(body: unknown, hintModel?: string): DecodeResult<CanonicalRequest> {
  const withModel = hintModel !== undefined && isJsonObject(body) && body.model === undefined ? { ...body, model: hintModel } : body;
  return catchRequestFieldError(() => decodeBody(withModel, true));
}

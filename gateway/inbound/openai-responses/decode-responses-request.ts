/**
 * Decodes a Responses create body (per https://platform.openai.com/docs/api-reference/responses) into a CanonicalRequest.
 * `previous_response_id` is resolved before decoding (gateway/responses-api/stored-responses/:
 * the earlier turns are prepended to `input`, an unknown id is refused with 400
 * `previous_response_not_found`), so the decoder ignores it; `conversation` needs state the
 * gateway does not keep and is refused.
 */
import type { CanonicalRequest, DecodeResult, ReasoningConfig, ResponseFormat } from '../../canonical/request.ts';
import { mapOpenAIReasoningEffort } from '../openai-common/map-openai-reasoning-effort.ts';
import { omitUndefined } from '../openai-common/omit-undefined.ts';
import {
  catchRequestFieldError,
  isJsonObject,
  parseAt,
  RequestFieldError,
} from '../openai-common/request-field-error.ts';
import { decodeResponsesInput } from './decode-responses-input.ts';
import type { DecodeHints } from '../inbound-codec.ts';
import type { CompactionItemOpener } from './decode-compaction-item.ts';
import { decodeResponsesToolChoice, decodeResponsesTools } from './decode-responses-tools.ts';
import { responsesRequestSchema, textFormatSchema, type ResponsesRequestBody } from './responses-request-schema.ts';
import { decodedWith, TranslationNotes } from '../../canonical/translation-notes.ts';

/** Refuses `conversation` (no stored conversations); `previous_response_id` was resolved by the route. */
function refuseStoredState(body: Record<string, unknown>): DecodeResult<never> | undefined {
  if (body.conversation !== undefined && body.conversation !== null) {
    return {
      ok: false,
      message: 'Conversations are not supported by this gateway; send the full input instead.',
      param: 'conversation',
    };
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
      return omitUndefined<ResponseFormat>({
        type: 'json-schema',
        name: format.name,
        schema: format.schema,
        strict: format.strict ?? undefined,
        description: format.description ?? undefined,
      });
  }
}

/** `reasoning.effort` → effort; any `reasoning.summary` asks for the reasoning text (`includeThoughts`). */
function decodeReasoning(
  reasoning: ResponsesRequestBody['reasoning'],
  warnings: TranslationNotes,
): ReasoningConfig | undefined {
  if (!reasoning) return undefined;
  const effort = reasoning.effort
    ? mapOpenAIReasoningEffort(reasoning.effort, 'reasoning.effort', warnings)
    : undefined;
  const includeThoughts = reasoning.summary ? true : undefined;
  const config = omitUndefined<ReasoningConfig>({ ...effort, includeThoughts });
  return Object.keys(config).length === 0 ? undefined : config;
}

function systemText(instructions: string | null | undefined, texts: string[]): string | undefined {
  const all = [instructions ?? '', ...texts].filter((t) => t !== '');
  return all.length === 0 ? undefined : all.join('\n\n');
}

/**
 * Top-level fields outside the canonical model. Refused when translated: stored prompts,
 * background mode, log probabilities. Dropped as safe (README, "What the gateway drops"):
 * `truncation`, `service_tier`, `text.verbosity`, `max_tool_calls` (it limits built-in tools only,
 * which are refused anyway), `context_management`, `prompt_cache_key`, `prompt_cache_retention`,
 * `safety_identifier` (read as the end user's id for attribution) — these are echoed in the Response
 * object but change nothing upstream.
 */
function noteTopLevelFields(body: Readonly<Record<string, unknown>>, warnings: TranslationNotes): void {
  if (body.prompt !== undefined && body.prompt !== null)
    warnings.refuse('prompt', 'a stored prompt template lives on the OpenAI platform');
  if (body.background === true)
    warnings.refuse('background', 'background mode runs the response on the OpenAI platform');
  if (typeof body.top_logprobs === 'number' && body.top_logprobs > 0)
    warnings.refuse('top_logprobs', 'log probabilities cannot be returned from other APIs');
  if (Array.isArray(body.include) && body.include.includes('message.output_text.logprobs'))
    warnings.refuse('include', 'log probabilities cannot be returned from other APIs');
  for (const field of ['truncation', 'service_tier', 'max_tool_calls', 'context_management'] as const) {
    if (body[field] !== undefined && body[field] !== null && body[field] !== 'disabled')
      warnings.drop(`${field}: has no effect on other APIs; dropped`);
  }
}

function decodeBody(
  body: unknown,
  countOnly: boolean,
  compactionOpener?: CompactionItemOpener,
): DecodeResult<CanonicalRequest> {
  if (!isJsonObject(body)) throw new RequestFieldError([], 'request body must be a JSON object');
  const refused = refuseStoredState(body);
  if (refused) return refused;
  const request = parseAt(responsesRequestSchema, body, []);
  const warnings = new TranslationNotes();
  noteTopLevelFields(body, warnings);
  const input = decodeResponsesInput(request.input, warnings, compactionOpener);
  if (input.messages.length === 0)
    throw new RequestFieldError(['input'], 'must contain at least one user, assistant or tool item');
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
    safetyIdentifier: request.safety_identifier ?? undefined,
    metadata: request.metadata ?? undefined,
  });
  return decodedWith(value, warnings);
}

/**
 * Validates and decodes `POST /v1/responses`. Never throws on bad input: returns
 * `{ ok: false, message, param }` with a dot path (e.g. `input.2.call_id`). Requires `model`
 * (non-empty string) and `input` (string or item list yielding at least one turn).
 * `compactionOpener` opens gateway-sealed compaction items in `input`; without it they are refused.
 */
export function decodeResponsesRequest(
  body: unknown,
  compactionOpener?: CompactionItemOpener,
): DecodeResult<CanonicalRequest> {
  return catchRequestFieldError(() => decodeBody(body, false, compactionOpener));
}

/**
 * Decodes `POST /v1/responses/input_tokens`: the same body as a create request; `stream` is
 * forced to false. `hints.model` fills a missing `model`; `compactionOpener` opens gateway-sealed compaction items.
 */
export function decodeResponsesCountTokensRequest(
  body: unknown,
  hints: DecodeHints,
  compactionOpener?: CompactionItemOpener,
): DecodeResult<CanonicalRequest> {
  const withModel =
    hints.model !== undefined && isJsonObject(body) && body.model === undefined
      ? { ...body, model: hints.model }
      : body;
  return catchRequestFieldError(() => decodeBody(withModel, true, compactionOpener));
}

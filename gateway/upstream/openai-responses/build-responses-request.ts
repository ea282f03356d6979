/**
 * CanonicalRequest → `POST {baseUrl}/responses` (https://platform.openai.com/docs/api-reference/responses), stateless:
 * `store:false`, full history in `input`, system text as `instructions`.
 */
import type { CanonicalRequest, ReasoningConfig } from '../../canonical/request.ts';
import type { ProviderPreset } from '../../providers/provider-preset.ts';
import type { BuiltUpstreamRequest, UpstreamCallTarget, UpstreamTarget } from '../upstream-adapter.ts';
import { encodeResponsesInput } from './encode-responses-input.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';
import {
  finishOpenAiRequest,
  encodeOpenAiResponseFormat,
  encodeOpenAiTool,
  encodeOpenAiToolChoice,
  OPENAI_PLATFORM_FIELDS,
  openAiCallTarget,
  type OpenAiEndpoint,
} from '../shared/openai-request-building-blocks.ts';

/** Body keys the gateway owns; an extension may not override them. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['model', 'input', 'stream']);

/**
 * Responses request fields (https://platform.openai.com/docs/api-reference/responses/create)
 * outside the canonical model that a client of another format may carry in `extensions`.
 */
const RESPONSES_FIELDS: ReadonlySet<string> = new Set([...OPENAI_PLATFORM_FIELDS, 'truncation']);

/** The Responses endpoint, `POST {baseUrl}/responses`. */
const RESPONSES: OpenAiEndpoint = {
  protocol: 'openai-responses',
  path: '/responses',
  protocolFields: RESPONSES_FIELDS,
  reservedKeys: RESERVED_KEYS,
};

/**
 * `reasoning:{effort, summary}`; OpenAI also gets `include:["reasoning.encrypted_content"]` so that
 * reasoning survives `store:false` (only when reasoning was asked for: non-reasoning OpenAI models
 * reject both fields).
 */
function encodeReasoning(
  reasoning: ReasoningConfig,
  provider: ProviderPreset,
  body: Record<string, unknown>,
  warnings: TranslationNotes,
): void {
  const wire: Record<string, unknown> = {};
  if (reasoning.effort !== undefined) wire.effort = reasoning.effort;
  if (reasoning.includeThoughts) wire.summary = 'auto';
  if (Object.keys(wire).length > 0) body.reasoning = wire;
  if (reasoning.enabled === false && reasoning.effort === undefined)
    warnings.drop('reasoning.enabled: turning reasoning off needs an effort on Responses; dropped');
  if (reasoning.budgetTokens !== undefined)
    warnings.drop('reasoning.budgetTokens dropped (Responses takes an effort, not a token budget)');
  const wantsReasoning = reasoning.enabled !== false && reasoning.effort !== 'none' && Object.keys(wire).length > 0;
  if (wantsReasoning && provider.id === 'openai') body.include = ['reasoning.encrypted_content'];
}

function encodeControls(
  request: CanonicalRequest,
  provider: ProviderPreset,
  body: Record<string, unknown>,
  warnings: TranslationNotes,
): void {
  if (request.tools && request.tools.length > 0)
    body.tools = request.tools.map((tool) => encodeOpenAiTool(tool, 'flat'));
  if (request.toolChoice) body.tool_choice = encodeOpenAiToolChoice(request.toolChoice, 'flat');
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.responseFormat) body.text = { format: encodeOpenAiResponseFormat(request.responseFormat, 'flat') };
  if (request.reasoning) encodeReasoning(request.reasoning, provider, body, warnings);
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.user !== undefined) body.user = request.user;
  if (request.metadata !== undefined) body.metadata = { ...request.metadata };
  if (request.stopSequences && request.stopSequences.length > 0)
    warnings.refuse('stopSequences', 'the OpenAI Responses API has no stop sequences');
  if (request.topK !== undefined) warnings.drop('topK: a sampling hint the Responses API has no field for; dropped');
}

/**
 * Builds the upstream call: JSON body with `store:false` and `stream`, the provider's auth for
 * openai-responses, the vendor `extensions` the channel accepts merged last (except
 * model/input/stream; vendor-extensions.ts), then
 * `quirks.dropFields` removed (DashScope rejects `store`). Returns warnings for what was dropped.
 * Never throws.
 */
export function buildResponsesRequest(request: CanonicalRequest, target: UpstreamTarget): BuiltUpstreamRequest {
  const provider = target.provider;
  const { input, warnings } = encodeResponsesInput(request.messages);
  const body: Record<string, unknown> = { model: target.upstreamModel };
  if (request.system !== undefined && request.system !== '') body.instructions = request.system;
  body.input = input;
  encodeControls(request, provider, body, warnings);
  body.store = false;
  body.stream = request.stream;
  return finishOpenAiRequest(RESPONSES, request, target, body, warnings);
}

/** `POST {baseUrl}/responses` with JSON, SSE accepted when streamed, and the provider's credential headers. */
export function responsesCallTarget(request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget {
  return openAiCallTarget(RESPONSES, request, target);
}

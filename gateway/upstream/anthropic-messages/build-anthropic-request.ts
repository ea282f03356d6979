/**
 * CanonicalRequest → Anthropic Messages HTTP call (per https://docs.anthropic.com/en/api/messages and
 * gateway/providers/PROVIDER-DOCS.md for the compat upstreams).
 */
import type { CanonicalRequest, ReasoningConfig } from '../../canonical/request.ts';
import { authHeadersFor, authSchemeFor } from '../../providers/auth-headers.ts';
import type {
  BuiltUpstreamRequest,
  UpstreamCallTarget,
  UpstreamJsonRequest,
  UpstreamTarget,
} from '../upstream-adapter.ts';
import { cacheControlOf, encodeAnthropicMessages } from './encode-anthropic-messages.ts';
import { encodeAnthropicTools } from './encode-anthropic-tools.ts';
import { planAnthropicThinking, reconcileAnthropicThinking } from './plan-anthropic-thinking.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';
import { selectVendorExtensions } from '../vendor-extensions.ts';

/**
 * Top-level Messages fields (https://docs.anthropic.com/en/api/messages) that `extensions` may
 * carry through unchanged. Other extension keys (OpenAI sampling fields, other vendors' switches)
 * would make Anthropic answer 400 ("Extra inputs are not permitted") and are dropped or refused by
 * vendor-extensions.ts; `thinking` is read as a reasoning control (readReasoning).
 */
const PASS_THROUGH_FIELDS: ReadonlySet<string> = new Set([
  'service_tier',
  'container',
  'mcp_servers',
  'context_management',
  'cache_control',
  'inference_geo',
]);

/** Body keys the gateway sets itself; an extension may not override them. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['model', 'max_tokens', 'messages', 'system', 'stream']);

/** Fields `/v1/messages/count_tokens` accepts (https://docs.anthropic.com/en/api/messages-count-tokens); everything else is a generation parameter. */
const COUNT_TOKENS_FIELDS = ['model', 'system', 'messages', 'tools', 'tool_choice', 'thinking'] as const;

/**
 * Headers: JSON content type, `anthropic-version: 2023-06-01`, the provider's credential headers,
 * and `anthropic-beta` (the client's `anthropicBetas`, comma-joined) only for providers with
 * `quirks.forwardAnthropicBeta`: Anthropic-compatible upstreams document the header as ignored
 * (https://api-docs.deepseek.com/guides/anthropic_api), so it is dropped for them as safe.
 */
export function buildAnthropicHeaders(request: CanonicalRequest, target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'anthropic-version': '2023-06-01',
    ...authHeadersFor(authSchemeFor(target.provider, 'anthropic-messages'), target.apiKey),
  };
  const betas = request.anthropicBetas;
  if (betas && betas.length > 0 && target.provider.quirks.forwardAnthropicBeta)
    headers['anthropic-beta'] = betas.join(',');
  return headers;
}

function encodeOutputConfig(
  request: CanonicalRequest,
  warnings: TranslationNotes,
): Record<string, unknown> | undefined {
  const format = request.responseFormat;
  if (format?.type === 'json-schema') return { format: { type: 'json_schema', schema: format.schema } };
  if (format?.type === 'json-object')
    warnings.refuse(
      'response_format',
      'JSON mode without a schema is not supported by Anthropic Messages (give a json_schema)',
    );
  return undefined;
}

function encodeMetadata(request: CanonicalRequest, warnings: TranslationNotes): Record<string, unknown> | undefined {
  if (request.metadata && Object.keys(request.metadata).length > 0) {
    warnings.drop('metadata: Anthropic Messages only accepts metadata.user_id; other metadata dropped');
  }
  return request.user === undefined ? undefined : { user_id: request.user };
}

/**
 * The reasoning controls: the canonical ones, else an Anthropic-style `thinking` extension
 * (`{type: "enabled"|"adaptive", budget_tokens?}` → enabled, `{type: "disabled"}` → disabled), so
 * that it goes through the same budget planning instead of overriding it.
 */
function readReasoning(request: CanonicalRequest): ReasoningConfig | undefined {
  if (request.reasoning) return request.reasoning;
  const thinking = request.extensions?.thinking;
  if (thinking === null || typeof thinking !== 'object') return undefined;
  const { type, budget_tokens: budget } = thinking as { type?: unknown; budget_tokens?: unknown };
  if (type === 'disabled') return { enabled: false };
  if (type !== 'enabled' && type !== 'adaptive') return undefined;
  return typeof budget === 'number' ? { enabled: true, budgetTokens: budget } : { enabled: true };
}

function mergeExtensions(
  body: Record<string, unknown>,
  request: CanonicalRequest,
  target: UpstreamTarget,
  warnings: TranslationNotes,
): void {
  const extensionTarget = {
    protocol: 'anthropic-messages' as const,
    provider: target.provider,
    protocolFields: PASS_THROUGH_FIELDS,
    reservedKeys: RESERVED_KEYS,
  };
  for (const [key, value] of selectVendorExtensions(request, extensionTarget, warnings)) body[key] = value;
}

/**
 * Builds the JSON body of `POST /v1/messages`: model, max_tokens (see planAnthropicThinking),
 * system, messages, tools/tool_choice (with the client's `cache_control` breakpoints where
 * CanonicalRequest.promptCacheMarks puts them), thinking, stop_sequences, temperature, top_p, top_k,
 * metadata.user_id, output_config.format (JSON schema output), stream; then the `extensions` that
 * are Anthropic fields (PASS_THROUGH_FIELDS); `thinking` is a reasoning control, anything else is
 * dropped or refused by vendor-extensions.ts (`anthropic-beta` is a header: buildAnthropicHeaders).
 * Extended-thinking restrictions are applied before the extensions (reconcileAnthropicThinking).
 * Returns the body object and the warnings for what was dropped.
 */
export function buildAnthropicBody(
  request: CanonicalRequest,
  target: UpstreamTarget,
): { body: Record<string, unknown>; warnings: TranslationNotes } {
  const warnings = new TranslationNotes();
  const quirks = target.provider.quirks;
  const { thinking, maxTokens } = planAnthropicThinking(
    readReasoning(request),
    request.maxOutputTokens,
    quirks.defaultMaxTokens,
    warnings,
  );
  const marks = request.promptCacheMarks;
  const messages = encodeAnthropicMessages(
    request.messages,
    {
      strictThinkingSignatures: quirks.strictThinkingSignatures === true,
      ...(marks ? { promptCacheMarks: marks } : {}),
    },
    warnings,
  );
  const body: Record<string, unknown> = { model: target.upstreamModel, max_tokens: maxTokens };
  if (request.system !== undefined && request.system !== '')
    body.system = marks?.system
      ? [{ type: 'text', text: request.system, cache_control: cacheControlOf(marks.system) }]
      : request.system;
  body.messages = messages;
  Object.assign(body, encodeAnthropicTools(request));
  if (marks?.tools && Array.isArray(body.tools) && body.tools.length > 0) {
    const tools = [...(body.tools as Array<Record<string, unknown>>)];
    tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: cacheControlOf(marks.tools) };
    body.tools = tools;
  }
  if (thinking) body.thinking = thinking;
  if (request.stopSequences && request.stopSequences.length > 0) body.stop_sequences = [...request.stopSequences];
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) body.top_k = request.topK;
  const metadata = encodeMetadata(request, warnings);
  if (metadata) body.metadata = metadata;
  const outputConfig = encodeOutputConfig(request, warnings);
  if (outputConfig) body.output_config = outputConfig;
  if (request.stream) body.stream = true;
  reconcileAnthropicThinking(body, warnings);
  mergeExtensions(body, request, target, warnings);
  return { body, warnings };
}

/** The full `POST {baseUrl}/v1/messages` call with the warnings of the translation. */
export function buildAnthropicRequest(request: CanonicalRequest, target: UpstreamTarget): BuiltUpstreamRequest {
  const { body, warnings } = buildAnthropicBody(request, target);
  return { request: { ...anthropicCallTarget(request, target), body: JSON.stringify(body) }, notes: warnings };
}

/** `POST {baseUrl}/v1/messages` with buildAnthropicHeaders. */
export function anthropicCallTarget(request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget {
  return { url: `${target.baseUrl}/v1/messages`, headers: buildAnthropicHeaders(request, target) };
}

/**
 * `POST {baseUrl}/v1/messages/count_tokens` with the create body reduced to model, system,
 * messages, tools, tool_choice and thinking (https://docs.anthropic.com/en/api/messages-count-tokens). Translation warnings are discarded.
 */
export function buildAnthropicCountTokensRequest(
  request: CanonicalRequest,
  target: UpstreamTarget,
): UpstreamJsonRequest {
  const { body } = buildAnthropicBody(request, target);
  const counted: Record<string, unknown> = {};
  for (const field of COUNT_TOKENS_FIELDS) if (body[field] !== undefined) counted[field] = body[field];
  return {
    url: `${target.baseUrl}/v1/messages/count_tokens`,
    headers: buildAnthropicHeaders(request, target),
    body: JSON.stringify(counted),
  };
}

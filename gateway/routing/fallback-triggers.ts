/**
 * Which fallback trigger (config `routing.models.<alias>.fallbackOn`, FALLBACK_TRIGGERS) a failure
 * of every channel of a model answers to, read from the GatewayError the last channel left:
 * - `unavailable`: a channel fault (failover-worthy: connection error, timeout, 5xx, 429) or every
 *   channel at its limit, or no channel serving the model;
 * - `context-window`: the upstream refused the request as longer than the model's context window —
 *   OpenAI `code: context_length_exceeded`
 *   (https://platform.openai.com/docs/guides/error-codes), Anthropic "prompt is too long"
 *   (https://docs.anthropic.com/en/api/errors), Gemini "input token count … exceeds the maximum"
 *   (https://ai.google.dev/gemini-api/docs/troubleshooting), Amazon Bedrock's ValidationException
 *   "Input is too long for requested model"
 *   (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors),
 *   and the like from compatible servers;
 * - `content-policy`: the upstream refused on content policy — OpenAI/Azure
 *   `content_policy_violation` / `content_filter`
 *   (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter#scenario-details).
 */
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { FallbackTrigger } from '../config/routing-settings.ts';

const CONTEXT_WINDOW_CODES: ReadonlySet<string> = new Set(['context_length_exceeded', 'string_above_max_length']);

const CONTEXT_WINDOW_TEXT =
  /context[ _-]?(length|window)|maximum context|prompt is too long|input is too long|input token count.{0,40}exceeds|exceeds? (the )?(model'?s? )?(maximum|max) (number of )?(input )?tokens|too many (input )?tokens/i;

const CONTENT_POLICY_CODES: ReadonlySet<string> = new Set([
  'content_policy_violation',
  'content_filter',
  'ResponsibleAIPolicyViolation',
]);

const CONTENT_POLICY_TEXT = /content (management )?polic|content[_ ]filter|responsible ?ai polic/i;

/** The trigger `error` answers to, or undefined when it follows no fallback chain (a bad request, the client left…). */
export function fallbackTriggerOf(error: GatewayError): FallbackTrigger | undefined {
  if (error.allowFailover || error.kind === 'rate-limited' || error.kind === 'not-found') return 'unavailable';
  if (error.kind !== 'upstream-rejected' && error.kind !== 'request-too-large') return undefined;
  const code = error.code ?? '';
  if (CONTEXT_WINDOW_CODES.has(code) || CONTEXT_WINDOW_TEXT.test(error.message)) return 'context-window';
  if (CONTENT_POLICY_CODES.has(code) || CONTENT_POLICY_TEXT.test(error.message)) return 'content-policy';
  return undefined;
}

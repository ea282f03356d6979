/**
 * A non-streamed Responses body → CanonicalResponse (https://platform.openai.com/docs/api-reference/responses).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { CanonicalResponse, OutputBlock } from '../../canonical/response.ts';
import { classifyOpenAiErrorEnvelope } from '../shared/classify-openai-error.ts';
import { asRecord } from '../shared/read-json-field.ts';
import type { UpstreamDecodeContext } from '../upstream-adapter.ts';
import { classifyResponsesFailure } from './classify-responses-failure.ts';
import { mapResponsesFinishReason } from './map-responses-finish-reason.ts';
import { normalizeResponsesUsage } from './normalize-responses-usage.ts';
import { responsesResponseSchema, type ResponsesOutputItem } from './openai-responses-wire-schemas.ts';
import { readReasoningItem } from './read-reasoning-item.ts';

/** Flags gathered while reading output items. */
interface OutputFlags {
  hasToolCalls: boolean;
  refused: boolean;
}

/** A `message` item's parts: `output_text` and `refusal` text joined into one text block. */
function readMessage(item: ResponsesOutputItem, flags: OutputFlags): OutputBlock | undefined {
  let text = '';
  for (const part of item.content ?? []) {
    if (part?.type === 'refusal') {
      flags.refused = true;
      text += part.refusal ?? '';
    } else {
      text += part?.text ?? '';
    }
  }
  return text === '' ? undefined : { type: 'text', text };
}

/** One output item → a block (reasoning, text, tool-call); other item types are skipped. */
function readOutputItem(item: ResponsesOutputItem, flags: OutputFlags): OutputBlock | undefined {
  switch (item.type) {
    case 'reasoning': {
      const reasoning = readReasoningItem(item);
      if (reasoning.text === '' && reasoning.signature === undefined) return undefined;
      return { type: 'reasoning', ...reasoning };
    }
    case 'message':
      return readMessage(item, flags);
    case 'function_call': {
      flags.hasToolCalls = true;
      const id = item.call_id || item.id || '';
      return { type: 'tool-call', id, name: item.name ?? '', arguments: item.arguments ?? '{}' };
    }
    default:
      return undefined;
  }
}

/**
 * Decodes `body` (already JSON-parsed): output items in order → blocks; status → finish reason;
 * usage → Usage (`estimated` zeros when absent).
 * @throws GatewayError classified from `error` when `status` is `failed` (or a non-null `error`
 *   rides on the body); the HTTP envelope `{error:{…}}` sent with a 2xx likewise;
 *   `upstream-malformed` when the body is not an object or has no `output` array.
 */
export function decodeResponsesResponse(body: unknown, context: UpstreamDecodeContext): CanonicalResponse {
  const root = asRecord(body);
  if (!root) throw new GatewayError('upstream-malformed', 'Upstream answered with a body that is not a JSON object');
  const answer = responsesResponseSchema.parse(root);
  const status = answer.status ?? undefined;
  if (status === 'failed' || (answer.error && status !== 'completed' && status !== 'incomplete')) {
    throw answer.object === 'response' || status !== undefined
      ? classifyResponsesFailure(asRecord(answer.error) ?? {})
      : classifyOpenAiErrorEnvelope(root);
  }
  if (!answer.output) throw new GatewayError('upstream-malformed', 'Upstream answer has no output array');
  const flags: OutputFlags = { hasToolCalls: false, refused: false };
  const content: OutputBlock[] = [];
  for (const item of answer.output) {
    const block = item ? readOutputItem(item, flags) : undefined;
    if (block) content.push(block);
  }
  return {
    id: answer.id ?? '',
    model: answer.model ?? context.upstreamModel,
    content,
    finishReason: mapResponsesFinishReason(
      status ?? 'completed',
      answer.incomplete_details?.reason ?? undefined,
      flags,
    ),
    usage: normalizeResponsesUsage(answer.usage),
  };
}

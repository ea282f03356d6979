/**
 * Decodes a `POST /v1/responses/compact` body (https://platform.openai.com/docs/api-reference/responses/compact:
 * `model` required; `input`, `instructions`, `previous_response_id` optional) into the
 * summarisation request the gateway sends to a channel that cannot compact: the conversation,
 * decoded exactly as a Responses create `input` (so earlier compaction items expand too), followed
 * by one user turn holding the summarisation instruction. Codex CLI also sends `tools`,
 * `parallel_tool_calls` and `reasoning` (https://github.com/openai/codex/blob/main/codex-rs/codex-api/src/common.rs,
 * `CompactionInput`): tools are kept so that tool calls in the history stay valid for upstreams
 * that require their definitions, with tool choice `none`; reasoning effort is kept; nothing asks
 * for a stream or a structured output format.
 */
import type { CanonicalRequest, DecodeResult } from '../../canonical/request.ts';
import { isJsonObject } from '../../inbound/openai-common/request-field-error.ts';
import { decodeResponsesRequest } from '../../inbound/openai-responses/decode-responses-request.ts';
import type { CompactionItemOpener } from '../../inbound/openai-responses/decode-compaction-item.ts';
import { SUMMARISATION_INSTRUCTION } from './summarisation-prompt.ts';

/**
 * Fields of the compact body that carry over to the summarisation request's decode
 * (`previous_response_id` was already resolved into `input` by the route; `conversation` is refused).
 */
const CARRIED_FIELDS = ['model', 'input', 'instructions', 'tools', 'reasoning', 'conversation'] as const;

/**
 * Validates the compact body and builds the summarisation request (non-streamed).
 * Never throws on bad input: `{ ok: false, message, param }` with a dot path — `model` when it is
 * missing or empty, `input.N…` for a malformed or unverifiable item.
 */
export function decodeCompactRequest(body: unknown, opener: CompactionItemOpener): DecodeResult<CanonicalRequest> {
  if (!isJsonObject(body)) return { ok: false, message: 'The request body must be a JSON object' };
  if (typeof body.model !== 'string' || body.model === '') {
    return {
      ok: false,
      message:
        body.model === undefined || body.model === null
          ? 'model: missing required parameter'
          : 'model: must be a non-empty string',
      param: 'model',
    };
  }
  const createBody: Record<string, unknown> = {};
  for (const field of CARRIED_FIELDS)
    if (body[field] !== undefined && body[field] !== null) createBody[field] = body[field];
  const decoded = decodeResponsesRequest(createBody, opener);
  if (!decoded.ok) return decoded;
  const conversation = decoded.value;
  const value: CanonicalRequest = {
    clientFormat: 'openai-responses',
    model: conversation.model,
    stream: false,
    ...(conversation.system === undefined ? {} : { system: conversation.system }),
    messages: [
      ...conversation.messages,
      { role: 'user', content: [{ type: 'text', text: SUMMARISATION_INSTRUCTION }] },
    ],
    ...(conversation.tools && conversation.tools.length > 0
      ? { tools: conversation.tools, toolChoice: { type: 'none' } }
      : {}),
    ...(conversation.reasoning === undefined ? {} : { reasoning: conversation.reasoning }),
  };
  return { ...decoded, value };
}

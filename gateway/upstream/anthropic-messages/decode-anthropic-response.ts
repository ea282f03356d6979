/**
 * A non-streamed Anthropic Message → CanonicalResponse (per https://docs.anthropic.com/en/api/messages).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { CanonicalResponse, OutputBlock } from '../../canonical/response.ts';
import { parseUpstreamBody } from '../shared/parse-upstream-body.ts';
import type { UpstreamDecodeContext } from '../upstream-adapter.ts';
import { anthropicMessageSchema, type AnthropicContentBlock } from './anthropic-wire-schemas.ts';
import { classifyAnthropicErrorObject } from './classify-anthropic-error.ts';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.ts';
import { mapAnthropicUsage } from './map-anthropic-usage.ts';

/**
 * The JSON text of a `tool_use.input` (an object; anything else becomes `{}`), as canonical
 * tool-call `arguments`.
 */
export function anthropicToolInputJson(input: unknown): string {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? JSON.stringify(input) : '{}';
}

function decodeBlock(block: AnthropicContentBlock): OutputBlock | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text ?? '' };
    case 'thinking':
      return block.signature
        ? { type: 'reasoning', text: block.thinking ?? '', signature: block.signature }
        : { type: 'reasoning', text: block.thinking ?? '' };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: block.data ?? '' };
    case 'tool_use':
      return {
        type: 'tool-call',
        id: block.id ?? generateId('toolu_'),
        name: block.name ?? '',
        arguments: anthropicToolInputJson(block.input),
      };
    default:
      // server_tool_use, web_search_tool_result, …: run by the upstream, nothing for the client to act on.
      return undefined;
  }
}

/**
 * Decodes a 2xx Anthropic body. Content blocks: `text` → text, `thinking` → reasoning (with its
 * signature), `redacted_thinking` → reasoning `{text:'', redacted}`, `tool_use` → tool-call
 * (`arguments` = JSON of `input`); server-tool blocks are dropped. Ids without `msg_` (MiMo) are
 * kept as they are; a missing id is minted, a missing model is the upstream model.
 * Throws the classified error for a `type: "error"` body, and GatewayError('upstream-malformed')
 * for a body that is not a Message.
 */
export function decodeAnthropicResponse(body: unknown, context: UpstreamDecodeContext): CanonicalResponse {
  const message = parseUpstreamBody(anthropicMessageSchema, body, 'Anthropic message');
  if (message.type === 'error' || (message.error && !message.content))
    throw classifyAnthropicErrorObject(message.error);
  if (!message.content) throw new GatewayError('upstream-malformed', 'Upstream Anthropic message has no content array');
  const content = message.content.map(decodeBlock).filter((b): b is OutputBlock => b !== undefined);
  const response: CanonicalResponse = {
    id: message.id ?? generateId('msg_'),
    model: message.model ?? context.upstreamModel,
    content,
    finishReason: mapAnthropicStopReason(message.stop_reason),
    usage: mapAnthropicUsage(message.usage),
  };
  return typeof message.stop_sequence === 'string' ? { ...response, stopSequence: message.stop_sequence } : response;
}

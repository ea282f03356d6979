/**
 * A Converse answer → CanonicalResponse
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { CanonicalResponse, OutputBlock } from '../../canonical/response.ts';
import { parseUpstreamBody } from '../shared/parse-upstream-body.ts';
import type { UpstreamDecodeContext } from '../upstream-adapter.ts';
import { converseResponseSchema, type ConverseContentBlock } from './converse-wire-schemas.ts';
import { mapConverseStopReason } from './map-converse-stop-reason.ts';
import { mapConverseUsage } from './map-converse-usage.ts';

/** The JSON text of a `toolUse.input` (an object; anything else becomes `{}`), as canonical `arguments`. */
export function converseToolInputJson(input: unknown): string {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? JSON.stringify(input) : '{}';
}

function decodeBlock(block: ConverseContentBlock): OutputBlock | undefined {
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.toolUse)
    return {
      type: 'tool-call',
      id: block.toolUse.toolUseId ?? generateId('tooluse_'),
      name: block.toolUse.name ?? '',
      arguments: converseToolInputJson(block.toolUse.input),
    };
  const reasoning = block.reasoningContent;
  if (reasoning?.redactedContent) return { type: 'reasoning', text: '', redacted: reasoning.redactedContent };
  if (reasoning?.reasoningText) {
    const { text, signature } = reasoning.reasoningText;
    return signature ? { type: 'reasoning', text: text ?? '', signature } : { type: 'reasoning', text: text ?? '' };
  }
  return undefined; // citationsContent, guardContent, images and blocks added after this adapter was written
}

/**
 * Decodes a 2xx Converse body: `output.message.content` blocks `text` → text, `toolUse` → tool-call
 * (`arguments` = JSON of `input`), `reasoningContent.reasoningText` → reasoning with its
 * signature, `reasoningContent.redactedContent` → reasoning `{text: '', redacted}`; `stopReason`
 * and `usage` mapped. Converse answers carry no id: one is minted (`msg_…`); the model is the
 * upstream model. Throws GatewayError('upstream-malformed') for a body that is not a Converse answer.
 */
export function decodeConverseResponse(body: unknown, context: UpstreamDecodeContext): CanonicalResponse {
  const answer = parseUpstreamBody(converseResponseSchema, body, 'Amazon Bedrock Converse answer');
  const message = answer.output?.message;
  if (!message) throw new GatewayError('upstream-malformed', 'Amazon Bedrock Converse answer has no output.message');
  return {
    id: generateId('msg_'),
    model: context.upstreamModel,
    content: message.content.map(decodeBlock).filter((block): block is OutputBlock => block !== undefined),
    finishReason: mapConverseStopReason(answer.stopReason),
    usage: mapConverseUsage(answer.usage),
  };
}

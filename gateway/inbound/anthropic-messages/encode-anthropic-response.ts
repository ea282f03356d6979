/**
 * Encodes a finished CanonicalResponse as an Anthropic Message object (https://docs.anthropic.com/en/api/messages).
 */
import { generateId } from '../../canonical/ids.ts';
import type { CanonicalResponse, OutputBlock } from '../../canonical/response.ts';
import type { EncodeContext } from '../inbound-codec.ts';
import { encodeAnthropicUsage, type AnthropicUsage } from './encode-anthropic-usage.ts';
import { mapFinishReasonToAnthropic, type AnthropicStopReason } from './map-finish-reason-to-anthropic.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';

/** One content block of an Anthropic response. */
export type AnthropicResponseBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The Anthropic `Message` body of a non-streamed answer. */
export interface AnthropicMessageBody {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicResponseBlock[];
  stop_reason: AnthropicStopReason;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

/**
 * One output block → one Anthropic block. Reasoning without a signature gets `signature: ''`;
 * tool-call arguments that are not a JSON object become `input: {}` (the text is lost; the
 * canonical response is still available to the caller's logs).
 */
export function encodeAnthropicBlock(block: OutputBlock): AnthropicResponseBlock {
  switch (block.type) {
    case 'reasoning':
      return block.redacted !== undefined
        ? { type: 'redacted_thinking', data: block.redacted }
        : { type: 'thinking', thinking: block.text, signature: block.signature ?? '' };
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool-call':
      return { type: 'tool_use', id: block.id, name: block.name, input: parseToolArguments(block.arguments).value };
  }
}

/** CanonicalResponse → Anthropic Message with a fresh `msg_…` id and `model` = the client's model name. */
export function encodeAnthropicResponse(response: CanonicalResponse, context: EncodeContext): AnthropicMessageBody {
  return {
    id: generateId('msg_'),
    type: 'message',
    role: 'assistant',
    model: context.model,
    content: response.content.map(encodeAnthropicBlock),
    stop_reason: mapFinishReasonToAnthropic(response.finishReason, response.stopSequence),
    stop_sequence: response.stopSequence ?? null,
    usage: encodeAnthropicUsage(response.usage),
  };
}

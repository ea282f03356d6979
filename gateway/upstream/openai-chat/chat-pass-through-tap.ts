/**
 * The pass-through tap of Chat Completions streams (upstream-adapter.ts PassThroughTap). A chunk
 * continues the open text block when it holds a `content` field and none of what the
 * stream decoder reads for the outcome: a usage object, a finish reason, tool calls, a refusal,
 * reasoning fields or an error. With `stream_options.include_usage` every chunk carries
 * `"usage": null` until the last one, whose `usage` is an object; a finish reason is a string only
 * on the chunk that ends the choice
 * (https://platform.openai.com/docs/api-reference/chat-streaming/streaming).
 */
import type { OutputBlock } from '../../canonical/response.ts';
import type { PassThroughTap } from '../upstream-adapter.ts';

/** Anything the decoder reads beyond text: a usage object, a finish reason, tool calls, refusals, reasoning, errors. */
const CARRIES_MORE_THAN_TEXT =
  /"(?:tool_calls|function_call|refusal|reasoning_content|reasoning|reasoning_details|error)"|"finish_reason"\s*:\s*"|"usage"\s*:\s*\{/;

/** The text of one continuation chunk (`choices[0].delta.content`), or '' when it has none or is not JSON. */
function chunkText(data: string): string {
  try {
    const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: unknown } }> };
    const content = chunk.choices?.[0]?.delta?.content;
    return typeof content === 'string' ? content : '';
  } catch {
    return '';
  }
}

/** The Chat Completions stream tap. */
export const chatPassThroughTap: PassThroughTap = {
  isContinuation: (rawEvent: string) => rawEvent.includes('"content"') && !CARRIES_MORE_THAN_TEXT.test(rawEvent),
  continuationContent(events): OutputBlock[] {
    const text = events.map((event) => chunkText(event.data)).join('');
    return text === '' ? [] : [{ type: 'text', text }];
  },
};

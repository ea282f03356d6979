/**
 * The pass-through tap of Chat Completions streams (upstream-adapter.ts PassThroughTap). A chunk
 * continues the open text block when it holds a `content` field and none of what the
 * stream decoder reads for the outcome: a usage object, a finish reason, tool calls, a refusal,
 * reasoning fields or an error. With `stream_options.include_usage` every chunk carries
 * `"usage": null` until the last one, whose `usage` is an object; a finish reason is a string only
 * on the chunk that ends the choice
 * (https://platform.openai.com/docs/api-reference/chat-streaming/streaming).
 */
import type { PassThroughTap } from '../upstream-adapter.ts';
import { rawJsonStringSpan } from '../shared/raw-json-string-span.ts';

/** Anything the decoder reads beyond text: a usage object, a finish reason, tool calls, refusals, reasoning, errors. */
const CARRIES_MORE_THAN_TEXT =
  /"(?:tool_calls|function_call|refusal|reasoning_content|reasoning|reasoning_details|error)"|"finish_reason"\s*:\s*"|"usage"\s*:\s*\{/;

/** The Chat Completions stream tap. */
export const chatPassThroughTap: PassThroughTap = {
  isContinuation: (rawEvent: string) => rawEvent.includes('"content"') && !CARRIES_MORE_THAN_TEXT.test(rawEvent),
  continuationFragment(rawEvent) {
    // `choices[0].delta.content`: the first `content` member after `delta` (`logprobs.content`, an array, may follow).
    const delta = rawEvent.indexOf('"delta"');
    if (delta === -1) return undefined;
    const span = rawJsonStringSpan(rawEvent, 'content', delta);
    return span && span.end > span.start ? { kind: 'text', start: span.start, end: span.end } : undefined;
  },
};

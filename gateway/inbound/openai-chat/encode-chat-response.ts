/**
 * Encodes a finished CanonicalResponse as a non-streamed `chat.completion` (per
 * https://platform.openai.com/docs/api-reference/chat). Reasoning text goes to the non-standard
 * `message.reasoning_content` (https://api-docs.deepseek.com/guides/thinking_mode), present only when the answer has reasoning; reasoning
 * signatures and redacted blocks cannot be expressed in Chat Completions and are not sent.
 */
import { generateId } from '../../canonical/ids.ts';
import type { CanonicalResponse, OutputReasoning, OutputToolCall } from '../../canonical/response.ts';
import type { EncodeContext } from '../inbound-codec.ts';
import { mapChatFinishReason } from './map-chat-finish-reason.ts';
import { mapChatUsage } from './map-chat-usage.ts';

function toolCallJson(call: OutputToolCall): Record<string, unknown> {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

function buildMessage(response: CanonicalResponse): Record<string, unknown> {
  const texts = response.content.filter((b) => b.type === 'text').map((b) => b.text);
  const reasoning = response.content
    .filter((b): b is OutputReasoning => b.type === 'reasoning' && b.text !== '')
    .map((b) => b.text);
  const toolCalls = response.content.filter((b): b is OutputToolCall => b.type === 'tool-call');
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: texts.length === 0 ? null : texts.join(''),
    refusal: null,
    annotations: [],
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls.map((call) => toolCallJson(call));
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  return message;
}

/**
 * Builds `{id:"chatcmpl-…", object:"chat.completion", created, model, choices:[{index:0, message,
 * logprobs:null, finish_reason}], usage}`. `created` = `context.createdAt`, `model` = `context.model`.
 */
export function encodeChatResponse(response: CanonicalResponse, context: EncodeContext): Record<string, unknown> {
  const hasToolCalls = response.content.some((b) => b.type === 'tool-call');
  return {
    id: generateId('chatcmpl-'),
    object: 'chat.completion',
    created: context.createdAt,
    model: context.model,
    choices: [
      {
        index: 0,
        message: buildMessage(response),
        logprobs: null,
        finish_reason: mapChatFinishReason(response.finishReason, hasToolCalls),
      },
    ],
    usage: mapChatUsage(response.usage),
  };
}

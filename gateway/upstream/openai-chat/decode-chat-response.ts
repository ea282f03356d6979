/**
 * A non-streamed Chat Completions body → CanonicalResponse (https://platform.openai.com/docs/api-reference/chat;
 * gateway/providers/PROVIDER-DOCS.md for usage and reasoning variants).
 */
import { finishReason } from '../../canonical/finish-reason.ts';
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { CanonicalResponse, OutputBlock, OutputToolCall } from '../../canonical/response.ts';
import type { UpstreamDecodeContext } from '../upstream-adapter.ts';
import { embeddedOpenAiError } from '../shared/classify-openai-error.ts';
import { mapChatFinishReason } from './map-chat-finish-reason.ts';
import { normalizeChatUsage } from './normalize-chat-usage.ts';
import { readChatReasoning } from './read-chat-reasoning.ts';
import { asArray, asRecord, asString } from '../shared/read-json-field.ts';
import { EMPTY_CHAT_MESSAGE, readChatCompletion, type ChatMessage } from './openai-chat-wire-schemas.ts';
import { splitThinkTags } from './split-think-tags.ts';

/** `content` as text: a string, or the joined `text` of a part array (some compat upstreams). */
function readContent(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => asString(asRecord(part)?.text) ?? '')
    .join('');
}

/** Arguments as JSON text; a few compat upstreams send an object instead of a string. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '{}' : JSON.stringify(value);
}

/** `tool_calls[]` (and the legacy `function_call`) → tool-call blocks; a missing id is minted. */
function readToolCalls(message: ChatMessage): OutputToolCall[] {
  const calls = (message.tool_calls ?? []).map((call): OutputToolCall => {
    const fn = call?.function;
    return {
      type: 'tool-call',
      id: call?.id || generateId('call_'),
      name: fn?.name ?? '',
      arguments: argumentsText(fn?.arguments),
    };
  });
  const legacy = message.function_call;
  if (legacy)
    calls.push({
      type: 'tool-call',
      id: generateId('call_'),
      name: legacy.name ?? '',
      arguments: argumentsText(legacy.arguments),
    });
  return calls;
}

/**
 * Decodes `body` (already JSON-parsed). Blocks in order: reasoning (from `reasoning_content` /
 * `reasoning` / `reasoning_details`, plus inline `<think>` when `quirks.thinkTagsInContent`), text,
 * tool calls. A `refusal` with no content becomes the text, finish `content-filter`.
 * @throws GatewayError classified from the envelope when the body carries an `error` key (HTTP 200
 *   error bodies, DeepSeek) or a non-zero MiniMax `base_resp`; `upstream-malformed` when it is not
 *   an object or has no choice.
 */
export function decodeChatResponse(body: unknown, context: UpstreamDecodeContext): CanonicalResponse {
  const root = asRecord(body);
  if (!root) throw new GatewayError('upstream-malformed', 'Upstream answered with a body that is not a JSON object');
  const embedded = embeddedOpenAiError(root);
  if (embedded) throw embedded;
  const answer = readChatCompletion(root);
  const choice = answer.choices?.[0];
  if (!choice) throw new GatewayError('upstream-malformed', 'Upstream answer has no choices');
  const message = choice.message ?? EMPTY_CHAT_MESSAGE;

  let reasoning = readChatReasoning(message);
  let text = readContent(message.content);
  if (context.provider.quirks.thinkTagsInContent) {
    const split = splitThinkTags(text);
    reasoning += split.reasoning;
    text = split.text;
  }
  const refusal = message.refusal ?? '';
  const refused = text === '' && refusal !== '';
  if (refused) text = refusal;

  const toolCalls = readToolCalls(message);
  const content: OutputBlock[] = [];
  if (reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
  if (text !== '') content.push({ type: 'text', text });
  content.push(...toolCalls);

  const raw = choice.finish_reason ?? undefined;
  return {
    id: answer.id ?? '',
    model: answer.model ?? context.upstreamModel,
    content,
    finishReason: refused ? finishReason('content-filter', raw) : mapChatFinishReason(raw, toolCalls.length > 0),
    usage: normalizeChatUsage(answer.usage ?? choice.usage),
  };
}

/**
 * Reads reasoning text from a Chat Completions `message` or stream `delta`, whichever convention
 * the upstream uses (https://platform.openai.com/docs/api-reference/chat): `reasoning_content` (DeepSeek, DashScope,
 * Moonshot, Zhipu, MiMo), `reasoning` string (OpenRouter, newer vLLM) or
 * `reasoning_details[].text` (MiniMax with `reasoning_split`).
 */
import type { ChatMessage } from './openai-chat-wire-schemas.ts';

/** The reasoning text carried by `message` (or a delta); '' when none. Never throws. */
export function readChatReasoning(message: ChatMessage): string {
  if (message.reasoning_content) return message.reasoning_content;
  if (message.reasoning) return message.reasoning;
  return (message.reasoning_details ?? []).map((detail) => detail?.text ?? '').join('');
}

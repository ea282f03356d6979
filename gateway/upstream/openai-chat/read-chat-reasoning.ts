/**
 * Reads reasoning text from a Chat Completions `message` or stream `delta`, whichever convention
 * the upstream uses (https://platform.openai.com/docs/api-reference/chat): `reasoning_content` (DeepSeek, DashScope,
 * Moonshot, Zhipu, MiMo), `reasoning` string (OpenRouter, newer vLLM) or
 * `reasoning_details[].text` (MiniMax with `reasoning_split`).
 */
import { asArray, asRecord, asString } from '../shared/read-json-field.ts';

/** The reasoning text carried by `message` (or a delta); '' when none. Never throws. */
export function readChatReasoning(message: Record<string, unknown>): string {
  const content = asString(message.reasoning_content);
  if (content) return content;
  const reasoning = asString(message.reasoning);
  if (reasoning) return reasoning;
  return asArray(message.reasoning_details)
    .map((detail) => asString(asRecord(detail)?.text) ?? '')
    .join('');
}

/**
 * Text and signature of a Responses `reasoning` output item (https://platform.openai.com/docs/api-reference/responses): summary
 * parts (`summary_text`) then content parts (`reasoning_text`), joined with a blank line; the
 * `encrypted_content` is the block's signature.
 */
import type { ResponsesOutputItem } from './openai-responses-wire-schemas.ts';

/** Separator between reasoning parts, also used by the stream decoder so both paths agree. */
export const REASONING_PART_SEPARATOR = '\n\n';

/** `{ text, signature? }` of a reasoning item; '' text when it has no parts. Never throws. */
export function readReasoningItem(item: ResponsesOutputItem): { text: string; signature?: string } {
  const texts = [...(item.summary ?? []), ...(item.content ?? [])]
    .map((part) => part?.text ?? '')
    .filter((text) => text !== '');
  const signature = item.encrypted_content;
  const text = texts.join(REASONING_PART_SEPARATOR);
  return signature ? { text, signature } : { text };
}

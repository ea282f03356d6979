/**
 * Text and signature of a Responses `reasoning` output item (https://platform.openai.com/docs/api-reference/responses): summary
 * parts (`summary_text`) then content parts (`reasoning_text`), joined with a blank line; the
 * `encrypted_content` is the block's signature.
 */
import { asArray, asRecord, asString } from '../shared/read-json-field.ts';

/** Separator between reasoning parts, also used by the stream decoder so both paths agree. */
export const REASONING_PART_SEPARATOR = '\n\n';

/** `{ text, signature? }` of a reasoning item; '' text when it has no parts. Never throws. */
export function readReasoningItem(item: Record<string, unknown>): { text: string; signature?: string } {
  const texts = [...asArray(item.summary), ...asArray(item.content)]
    .map((part) => asString(asRecord(part)?.text) ?? '')
    .filter((text) => text !== '');
  const signature = asString(item.encrypted_content);
  const text = texts.join(REASONING_PART_SEPARATOR);
  return signature ? { text, signature } : { text };
}

/**
 * A `{"type":"compaction","encrypted_content"}` item in the `input` of a Responses request
 * (https://platform.openai.com/docs/api-reference/responses/create#responses_create-input, item
 * "Compaction item", produced by https://platform.openai.com/docs/api-reference/responses/compact):
 * - sealed by this gateway (`tgc1.` prefix, compaction-seal.ts): opened and carried on as one user
 *   message holding the summary under a lead-in, on every upstream protocol;
 * - minted by the upstream (OpenAI's own opaque ciphertext): only an OpenAI Responses channel can
 *   read it, so it is noted as uncarried — it travels only when the client's body is passed
 *   through unchanged, and any translated exchange is refused with a 400 naming the item.
 */
import { z } from 'zod';
import type { CanonicalMessage } from '../../../canonical/request.ts';
import { parseAt, RequestFieldError, type FieldPath } from '../../openai-common/request-field-error.ts';
import { isGatewaySealed, type CompactionSeal } from './compaction-seal.ts';
import { summaryMessageText } from './summarisation-prompt.ts';

const compactionItemSchema = z.object({
  type: z.literal('compaction'),
  encrypted_content: z.string().min(1, 'must not be empty'),
  id: z.string().nullish(),
});

/** Where a decoder notes a part that only a pass-through can carry (canonical/translation-notes.ts). */
export interface UncarriedPartSink {
  refuse(path: string, reason: string): void;
}

/** Reason given for an upstream-minted compaction item on a translated exchange. */
export const UPSTREAM_MINTED_COMPACTION_REASON =
  'compaction item minted by the upstream (OpenAI) can only be read by an OpenAI Responses channel';

/**
 * Decodes the compaction item at `path` (`['input', N]`). Returns the user message carrying the
 * summary for a gateway-sealed item, or undefined for an upstream-minted one (noted on `notes`).
 * @throws RequestFieldError naming `input.N` when the item is malformed, when a gateway-sealed item
 *   does not verify (tampered, truncated, or sealed under another deployment's secret), or when
 *   `seal` is absent (the endpoint cannot open gateway compaction items).
 */
export function expandCompactionItem(
  item: unknown,
  path: FieldPath,
  seal: CompactionSeal | undefined,
  notes: UncarriedPartSink,
): CanonicalMessage | undefined {
  const compaction = parseAt(compactionItemSchema, item, path);
  if (!isGatewaySealed(compaction.encrypted_content)) {
    notes.refuse(path.join('.'), UPSTREAM_MINTED_COMPACTION_REASON);
    return undefined;
  }
  if (!seal) throw new RequestFieldError(path, 'gateway compaction items cannot be expanded on this endpoint');
  const opened = seal.open(compaction.encrypted_content);
  if (!opened)
    throw new RequestFieldError(
      path,
      'compaction item could not be verified: its encrypted_content was altered, truncated, or sealed by another gateway',
    );
  return { role: 'user', content: [{ type: 'text', text: summaryMessageText(opened.summary) }] };
}

/**
 * True when `rawBody.input` holds a gateway-sealed compaction item: such a body must not be
 * forwarded unchanged to any upstream (only the gateway can open the item).
 */
export function holdsGatewayCompactionItem(rawBody: Readonly<Record<string, unknown>>): boolean {
  const input = rawBody.input;
  if (!Array.isArray(input)) return false;
  for (const item of input) {
    if (
      typeof item === 'object' &&
      item !== null &&
      (item as { type?: unknown }).type === 'compaction' &&
      isGatewaySealed((item as { encrypted_content?: unknown }).encrypted_content)
    )
      return true;
  }
  return false;
}

/**
 * A `{"type":"compaction","encrypted_content"}` item in the `input` of a Responses request
 * (https://platform.openai.com/docs/api-reference/responses/create#responses_create-input, item
 * "Compaction item", produced by https://platform.openai.com/docs/api-reference/responses/compact):
 * - sealed by the gateway (`tgc1.` prefix): opened by the CompactionItemOpener the codec was built
 *   with and carried on as one user message holding the summary, on every upstream protocol;
 * - minted by the upstream (OpenAI's own opaque ciphertext): only an OpenAI Responses channel can
 *   read it, so it is noted as uncarried — it travels only when the client's body is passed
 *   through unchanged, and any translated exchange is refused with a 400 naming the item.
 * The codec knows only the item's shape and the gateway's prefix; sealing, keys and the summary's
 * lead-in belong to the Responses API feature that mints such items (gateway/responses-api/compaction/).
 */
import { z } from 'zod';
import type { CanonicalMessage } from '../../canonical/request.ts';
import { parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';

/** Version prefix of every gateway-sealed `encrypted_content`, dot included (`tgc1.`). */
export const GATEWAY_COMPACTION_PREFIX = 'tgc1.';

/**
 * Opens compaction items the gateway sealed itself. Supplied by the composition of the Responses
 * API (gateway/responses-api/compaction/compaction-seal.ts); a codec built without one refuses
 * gateway-sealed items.
 */
export interface CompactionItemOpener {
  /**
   * The text of the user message that carries the sealed summary on, or undefined when the
   * content is not a valid gateway seal under this deployment's key (tampered, truncated, other
   * key). Never throws.
   */
  openAsMessageText(encryptedContent: string): string | undefined;
}

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

/** True when `encryptedContent` carries the gateway's version prefix (whether or not it verifies). */
export function isGatewaySealed(encryptedContent: unknown): encryptedContent is string {
  return typeof encryptedContent === 'string' && encryptedContent.startsWith(GATEWAY_COMPACTION_PREFIX);
}

/**
 * Decodes the compaction item at `path` (`['input', N]`). Returns the user message carrying the
 * summary for a gateway-sealed item, or undefined for an upstream-minted one (noted on `notes`).
 * @throws RequestFieldError naming `input.N` when the item is malformed, when a gateway-sealed item
 *   does not verify (tampered, truncated, or sealed under another deployment's secret), or when
 *   `opener` is absent (the endpoint cannot open gateway compaction items).
 */
export function decodeCompactionItem(
  item: unknown,
  path: FieldPath,
  opener: CompactionItemOpener | undefined,
  notes: UncarriedPartSink,
): CanonicalMessage | undefined {
  const compaction = parseAt(compactionItemSchema, item, path);
  if (!isGatewaySealed(compaction.encrypted_content)) {
    notes.refuse(path.join('.'), UPSTREAM_MINTED_COMPACTION_REASON);
    return undefined;
  }
  if (!opener) throw new RequestFieldError(path, 'gateway compaction items cannot be expanded on this endpoint');
  const text = opener.openAsMessageText(compaction.encrypted_content);
  if (text === undefined)
    throw new RequestFieldError(
      path,
      'compaction item could not be verified: its encrypted_content was altered, truncated, or sealed by another gateway',
    );
  return { role: 'user', content: [{ type: 'text', text }] };
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

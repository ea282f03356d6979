/**
 * How canonical reasoning continuity tokens travel in a Responses reasoning item's opaque
 * `encrypted_content` (per https://platform.openai.com/docs/api-reference/responses): a provider signature
 * (Anthropic `signature`, Gemini `thoughtSignature`) is sent as is; an Anthropic redacted
 * thinking block is sent with the prefix `tollgate-redacted:` so that replaying the item restores
 * a redacted block rather than a signature. Clients treat the value as opaque.
 */

const REDACTED_PREFIX = 'tollgate-redacted:';

/** The `encrypted_content` for a reasoning block, or undefined when it has neither signature nor redacted data. */
export function encryptedContentFor(block: {
  readonly signature?: string | undefined;
  readonly redacted?: string | undefined;
}): string | undefined {
  if (block.redacted !== undefined) return REDACTED_PREFIX + block.redacted;
  return block.signature === undefined || block.signature === '' ? undefined : block.signature;
}

/** Reads `encrypted_content` back into `{ signature }` or `{ redacted }`. */
export function reasoningFromEncryptedContent(encrypted: string): { signature: string } | { redacted: string } {
  return encrypted.startsWith(REDACTED_PREFIX)
    ? { redacted: encrypted.slice(REDACTED_PREFIX.length) }
    : { signature: encrypted };
}

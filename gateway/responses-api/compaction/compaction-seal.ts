/**
 * Sealing of gateway-minted compaction summaries: the `encrypted_content` of a
 * `{"type":"compaction"}` item (https://platform.openai.com/docs/api-reference/responses/compact)
 * that the gateway wrote itself, on a channel whose upstream cannot compact.
 *
 * Format: `tgc1.` + base64url( iv (12 random bytes) | AES-256-GCM ciphertext | tag (16 bytes) ).
 * The plaintext is the UTF-8 JSON of a SealedCompaction; the prefix `tgc1` is bound as additional
 * authenticated data, so a changed version, a flipped bit or a foreign key all fail the tag check
 * (NIST SP 800-38D, https://csrc.nist.gov/pubs/sp/800/38/d/final).
 *
 * The key is derived with HKDF-SHA-256 (RFC 5869, https://www.rfc-editor.org/rfc/rfc5869) from the
 * gateway's key-digest secret, which every node of a deployment shares, with an `info` naming this
 * purpose only: the secret itself is never used as a cipher key, and no other key is reused here.
 * Neither key nor plaintext is ever logged or put in an error message.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import {
  GATEWAY_COMPACTION_PREFIX,
  isGatewaySealed,
  type CompactionItemOpener,
} from '../../inbound/openai-responses/decode-compaction-item.ts';
import { summaryMessageText } from './summarisation-prompt.ts';

/** Version of the seal (`tgc1`), bound as additional authenticated data. */
const COMPACTION_SEAL_VERSION = GATEWAY_COMPACTION_PREFIX.slice(0, -1);
const PREFIX = GATEWAY_COMPACTION_PREFIX;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_SALT = Buffer.from('tollgate', 'utf8');
const HKDF_INFO = Buffer.from('tollgate responses compaction summary v1', 'utf8');

/** What a gateway compaction item carries once unsealed. */
export interface SealedCompaction {
  /** The summary text the channel's model wrote. */
  readonly summary: string;
  /** Provider preset id of the channel that summarised (e.g. `anthropic`). */
  readonly provider: string;
  /** Upstream model name that summarised. */
  readonly model: string;
  /** When the summary was made, unix seconds. */
  readonly createdAt: number;
}

/** Seals and opens gateway compaction summaries under one derived key. */
export interface CompactionSeal {
  /** Returns `tgc1.<base64url>`; a fresh random IV each call. */
  seal(content: SealedCompaction): string;
  /** The sealed content, or undefined when the text is not a valid gateway seal under this key (tampered, truncated, other key). Never throws. */
  open(encryptedContent: string): SealedCompaction | undefined;
}

/**
 * Derives the compaction key from `gatewaySecret` (the bytes of the shared key-digest secret,
 * ≥ 32 bytes) and returns a seal using it.
 */
export function createCompactionSeal(gatewaySecret: Buffer): CompactionSeal {
  const key = Buffer.from(hkdfSync('sha256', gatewaySecret, HKDF_SALT, HKDF_INFO, 32));
  const aad = Buffer.from(COMPACTION_SEAL_VERSION, 'utf8');
  return {
    seal(content) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(aad);
      const plaintext = Buffer.from(JSON.stringify(content), 'utf8');
      const sealed = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return PREFIX + sealed.toString('base64url');
    },
    open(encryptedContent) {
      if (!isGatewaySealed(encryptedContent)) return undefined;
      const bytes = Buffer.from(encryptedContent.slice(PREFIX.length), 'base64url');
      if (bytes.length < IV_BYTES + TAG_BYTES + 2) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
        decipher.setAAD(aad);
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const plaintext = Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return readSealedCompaction(JSON.parse(plaintext.toString('utf8')));
      } catch {
        return undefined;
      }
    },
  };
}

function readSealedCompaction(value: unknown): SealedCompaction | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const { summary, provider, model, createdAt } = record;
  if (
    typeof summary !== 'string' ||
    typeof provider !== 'string' ||
    typeof model !== 'string' ||
    typeof createdAt !== 'number'
  )
    return undefined;
  return { summary, provider, model, createdAt };
}

/**
 * The opener the Responses codec is built with: a gateway-sealed item becomes the user message
 * text that carries its summary (summarisation-prompt.ts), or undefined when it does not verify.
 */
export function compactionItemOpener(seal: CompactionSeal): CompactionItemOpener {
  return {
    openAsMessageText(encryptedContent) {
      const opened = seal.open(encryptedContent);
      return opened ? summaryMessageText(opened.summary) : undefined;
    },
  };
}

/**
 * Channel credentials at rest and in events: AES-256-GCM under TOLLGATE_MASTER_KEY (32 bytes).
 * Ciphertext = base64 of iv (12 random bytes) | auth tag (16 bytes) | encrypted UTF-8 data. The
 * tag authenticates the whole message, so a wrong key and a tampered ciphertext both fail loudly.
 * Neither the plain credential nor the key ever appears in an error message.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Master key length, bytes. */
export const MASTER_KEY_BYTES = 32;

/**
 * Encrypts `plain` (any string, '' included) with a fresh random IV.
 * @returns base64 of iv(12) | tag(16) | data
 * @throws Error when `masterKey` is not 32 bytes
 */
export function encryptCredential(masterKey: Buffer, plain: string): string {
  assertMasterKey(masterKey);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

/**
 * Decrypts a ciphertext made by `encryptCredential`.
 * @throws Error `channel credential cannot be decrypted: …` when the text is not base64 of at
 *   least 28 bytes, or the key is wrong or the ciphertext was altered (authentication failed);
 *   Error when `masterKey` is not 32 bytes
 */
export function decryptCredential(masterKey: Buffer, ciphertext: string): string {
  assertMasterKey(masterKey);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(ciphertext) || ciphertext.length % 4 !== 0) {
    throw new Error('channel credential cannot be decrypted: ciphertext is not base64');
  }
  const bytes = Buffer.from(ciphertext, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES)
    throw new Error(
      `channel credential cannot be decrypted: ciphertext is ${bytes.length} bytes, expected at least ${IV_BYTES + TAG_BYTES}`,
    );
  const decipher = createDecipheriv('aes-256-gcm', masterKey, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(
      'channel credential cannot be decrypted: wrong TOLLGATE_MASTER_KEY or tampered ciphertext (authentication failed)',
    );
  }
}

/**
 * Parses a master key: 64 hex characters, or base64 / base64url (padding optional) of exactly 32
 * bytes. Surrounding whitespace is ignored.
 * @throws Error naming the expected forms and the length received (never the value)
 */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === MASTER_KEY_BYTES) return bytes;
  }
  throw new Error(
    `TOLLGATE_MASTER_KEY must be ${MASTER_KEY_BYTES} bytes written as 64 hex characters or 44 base64 characters ` +
      `(e.g. \`openssl rand -base64 32\`); got ${trimmed.length} characters`,
  );
}

function assertMasterKey(masterKey: Buffer): void {
  if (masterKey.length !== MASTER_KEY_BYTES)
    throw new Error(`master key must be ${MASTER_KEY_BYTES} bytes, got ${masterKey.length}`);
}

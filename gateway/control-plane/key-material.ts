/**
 * Client API key material. A key looks like `sk-<publicId>-<secret>`: publicId is 12 lowercase
 * base32 characters (RFC 4648 alphabet `a-z2-7`, 60 random bits) shown in listings, secret is 32
 * base62 characters (≈190 random bits). Only `digestApiKey` of the full key — hex
 * HMAC-SHA-256 under TOLLGATE_KEY_HMAC_SECRET — is stored or published; the key itself is shown
 * once at creation and never logged.
 */
import { createHmac, randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Length of the public id (characters). */
export const PUBLIC_ID_LENGTH = 12;
/** Length of the secret part (characters). */
export const SECRET_LENGTH = 32;
const API_KEY_PATTERN = /^sk-[a-z2-7]{12}-[0-9A-Za-z]{32}$/;

/** A newly minted key: `key` is secret (show once), `publicId` and `digest` may be stored and published. */
export interface MintedApiKey {
  /** `sk-<publicId>-<secret>` (48 characters). */
  readonly key: string;
  /** 12 lowercase base32 characters. */
  readonly publicId: string;
  /** hex HMAC-SHA-256 of `key` under the HMAC secret (64 characters). */
  readonly digest: string;
}

/** Mints a random key (crypto.randomBytes) and its digest under `hmacSecret`. */
export function mintApiKey(hmacSecret: Buffer): MintedApiKey {
  const publicId = randomPublicId();
  const key = `sk-${publicId}-${randomBase62(SECRET_LENGTH)}`;
  return { key, publicId, digest: digestApiKey(hmacSecret, key) };
}

/**
 * The stored form of a key: lowercase hex HMAC-SHA-256 of its UTF-8 bytes under `hmacSecret`
 * (64 characters). Works for any string, including config-file keys that are not minted ones.
 */
export function digestApiKey(hmacSecret: Buffer, key: string): string {
  return createHmac('sha256', hmacSecret).update(key, 'utf8').digest('hex');
}

/** Whether `s` has the exact shape of a minted key (`sk-` + 12 base32 + `-` + 32 base62). */
export function looksLikeApiKey(s: string): boolean {
  return API_KEY_PATTERN.test(s);
}

/** 12 base32 characters from 60 random bits. */
function randomPublicId(): string {
  let bits = randomBytes(8).readBigUInt64BE();
  let out = '';
  for (let i = 0; i < PUBLIC_ID_LENGTH; i += 1) {
    out += BASE32[Number(bits & 31n)];
    bits >>= 5n;
  }
  return out;
}

/** `length` uniform base62 characters (rejection sampling: bytes ≥ 248 are discarded, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

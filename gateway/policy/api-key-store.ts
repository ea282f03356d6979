/**
 * Client API keys. Only a SHA-256 digest of each key is kept in memory; a presented key is hashed
 * and looked up, so the plain key never needs to be stored or logged.
 * (Issue 4 replaces the config-file keys with event-sourced keys and HMAC digests.)
 */
import { createHash } from 'node:crypto';
import type { KeyConfig } from '../config/config-schema.ts';

/** The identity behind a valid key. */
export interface ApiKeyIdentity {
  readonly keyId: string;
  readonly name: string;
  /** The owning user; config-file keys have none. */
  readonly userId: string | null;
}

/** Hex SHA-256 of a key. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Looks up presented keys by digest. */
export class ApiKeyStore {
  private readonly byDigest = new Map<string, ApiKeyIdentity>();

  constructor(keys: ReadonlyArray<KeyConfig>) {
    for (const key of keys) {
      const digest = hashApiKey(key.key);
      this.byDigest.set(digest, { keyId: `key_${digest.slice(0, 12)}`, name: key.name, userId: null });
    }
  }

  /** The identity for `presented`, or undefined when it is missing, not `sk-…`, or unknown. */
  verify(presented: string | undefined): ApiKeyIdentity | undefined {
    if (!presented || !presented.startsWith('sk-')) return undefined;
    return this.byDigest.get(hashApiKey(presented));
  }
}

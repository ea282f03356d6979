/**
 * What the key-value ports (stored responses, response-store.ts; console sessions,
 * session-store.ts) share about the values their adapters keep: a lifetime in whole ms, and a
 * value held as JSON text that may be anything when read back.
 */

/** Rejects a lifetime that is not a positive integer number of ms. @throws RangeError naming `name` */
export function assertValidTtl(ttlMs: number, name: string): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`${name} must be a positive integer number of ms, got ${ttlMs}`);
}

/** A stored value's JSON text parsed, or undefined when it is not JSON (never throws). */
export function parseStoredJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

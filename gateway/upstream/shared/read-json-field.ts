/**
 * Null-safe readers for upstream JSON of unknown shape. Upstreams add, omit and null fields freely
 * (e.g. Xiaomi MiMo's `prompt_tokens_details: null`, gateway/providers/PROVIDER-DOCS.md), so decoders read
 * every field through these instead of trusting a static type.
 */

/** The value as a plain object, or undefined for null, arrays and primitives. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The value if it is a string, else undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The value if it is a finite number, else undefined. */
export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The value if it is an array, else an empty array. */
export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

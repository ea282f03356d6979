/**
 * Zod building blocks for OpenAI-family wire data, as lenient as the null-safe readers of
 * read-json-field.ts: upstreams add, omit and null fields freely and the compat ones send odd
 * types (gateway/providers/PROVIDER-DOCS.md), so a field of the wrong type reads as absent instead
 * of failing the whole answer. Unknown keys are dropped. Only a root that is not an object fails.
 * Absent and null pass without an issue (cheap: only a wrong type takes the slower catch path), so
 * readers treat null and undefined alike (`??`, truthiness).
 */
import { z } from 'zod';

/** A string; null or undefined for anything else (like asString). */
export const lenientString = z.string().nullish().catch(undefined);

/** A finite number; null or undefined for anything else (like asNumber). */
export const lenientNumber = z.number().nullish().catch(undefined);

/** Any JSON value, kept as it is (null included); undefined when absent. */
export const anyJson = z.unknown().optional();

/** An array of `item` (each item as lenient as `item` is); null or undefined for anything else (read with `?? []`, like asArray). */
export function lenientArray<T extends z.ZodType>(item: T): z.ZodCatch<z.ZodOptional<z.ZodNullable<z.ZodArray<T>>>> {
  return z.array(item).nullish().catch(undefined);
}

/** An object of `shape`; null or undefined for arrays and primitives (like asRecord). */
export function lenientObject<S extends z.ZodRawShape>(
  shape: S,
): z.ZodCatch<z.ZodOptional<z.ZodNullable<z.ZodObject<S>>>> {
  return z.object(shape).nullish().catch(undefined);
}

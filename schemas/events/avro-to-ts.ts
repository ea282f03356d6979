/**
 * Type-level mapping from an Avro schema literal (an `as const` object) to the TypeScript type
 * avsc decodes it into (unwrapped unions, no logical types registered), plus an exact type
 * equality assertion. traffic-events.ts and control-plane-events.ts derive the events' types
 * with it, so each field list is written once, in the `.avsc` files.
 */

/** One field of a record schema literal. Only `name` and `type` shape the TS type. */
interface AvroFieldLiteral {
  readonly name: string;
  readonly type: unknown;
}

/** Primitive type names → TS types (long/int/float/double → number: avsc reads longs as safe JS numbers). */
interface AvroPrimitiveToTs {
  null: null;
  boolean: boolean;
  int: number;
  long: number;
  float: number;
  double: number;
  bytes: Buffer;
  string: string;
}

/** A record's fields → a readonly object keyed by field name. */
type AvroFieldsToTs<F extends ReadonlyArray<AvroFieldLiteral>> = {
  readonly [Field in F[number] as Field['name']]: AvroToTs<Field['type']>;
};

/**
 * The TS type of an Avro schema literal S:
 * - `"string"` → string; `"int" | "long" | "float" | "double"` → number; `"boolean"` → boolean;
 *   `"null"` → null; `"bytes"` → Buffer; `{ type: P, ... }` (e.g. a logicalType) → as P;
 * - `record` → `{ readonly [field]: AvroToTs<fieldType> }` (nested records recurse);
 * - `enum` → union of its symbols; `array` → ReadonlyArray; `map` → Readonly<Record<string, …>>;
 * - a union `[A, B, …]` → `AvroToTs<A> | AvroToTs<B> | …` (so `["null", T]` → `T | null`).
 * Anything else (named-type references by string, unknown names) maps to `never`, which makes
 * the equality assertion fail rather than pass silently.
 */
export type AvroToTs<S> = S extends keyof AvroPrimitiveToTs
  ? AvroPrimitiveToTs[S]
  : S extends ReadonlyArray<unknown>
    ? AvroToTs<S[number]>
    : S extends { readonly type: 'record'; readonly fields: infer F extends ReadonlyArray<AvroFieldLiteral> }
      ? AvroFieldsToTs<F>
      : S extends { readonly type: 'enum'; readonly symbols: ReadonlyArray<infer Symbol extends string> }
        ? Symbol
        : S extends { readonly type: 'array'; readonly items: infer I }
          ? ReadonlyArray<AvroToTs<I>>
          : S extends { readonly type: 'map'; readonly values: infer V }
            ? Readonly<Record<string, AvroToTs<V>>>
            : S extends { readonly type: infer P extends keyof AvroPrimitiveToTs }
              ? AvroPrimitiveToTs[P]
              : never;

/**
 * `true` when A and B are the same type (readonly-ness and optionality included), else `false`.
 * Uses the deferred-conditional identity trick, which is stricter than mutual assignability.
 */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when T is `true`: `type _ = Assert<Equals<X, Y>>`. */
export type Assert<T extends true> = T;

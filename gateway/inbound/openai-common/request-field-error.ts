/**
 * Client-input validation shared by the OpenAI request decoders. Decoders validate deep item
 * lists with `parseAt`, which throws a RequestFieldError naming the field path; the codec's
 * `decodeRequest` catches it at its boundary (`catchRequestFieldError`) and returns
 * `{ ok: false, message, param }`, so no exception ever leaves a codec for bad client input.
 */
import type { z } from 'zod';
import type { DecodeResult } from '../../canonical/request.ts';

/** A path into the request body, e.g. `['input', 2, 'content']`. */
export type FieldPath = ReadonlyArray<string | number>;

/** Bad client input at `param` (dot path, e.g. `messages.0.content`). */
export class RequestFieldError extends Error {
  readonly param: string;

  constructor(path: FieldPath, problem: string) {
    const param = formatPath(path);
    super(param === '' ? problem : `${param}: ${problem}`);
    this.name = 'RequestFieldError';
    this.param = param;
  }
}

/** Joins a path with dots: `['messages', 0, 'content']` → `messages.0.content`. */
export function formatPath(path: FieldPath): string {
  return path.join('.');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const missing =
    (issue as { input?: unknown }).input === undefined &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_union');
  if (missing) return 'missing required parameter';
  return issue.message.replace(/^Invalid input: /, '');
}

/**
 * Validates `value` (found at `path`) with `schema`. Returns the parsed value; throws
 * RequestFieldError for the first issue, e.g. "input.2.call_id: expected string, received number".
 */
export function parseAt<S extends z.ZodType>(schema: S, value: unknown, path: FieldPath): z.output<S> {
  // reportInput turns off zod's compiled fast path, so it is asked for only to describe a failure.
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw new RequestFieldError(path, 'invalid value');
  throw new RequestFieldError(
    [...path, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    describeIssue(issue),
  );
}

/** Runs a decoder and turns a RequestFieldError into `{ ok: false, message, param }`; other errors propagate. */
export function catchRequestFieldError<T>(decode: () => DecodeResult<T>): DecodeResult<T> {
  try {
    return decode();
  } catch (error) {
    if (!(error instanceof RequestFieldError)) throw error;
    return error.param === ''
      ? { ok: false, message: error.message }
      : { ok: false, message: error.message, param: error.param };
  }
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

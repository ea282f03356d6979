/**
 * Turns a zod validation failure into the one-line message and `param` path a decoder returns
 * (`{ ok: false, message, param }`), e.g. `messages.0.content: expected string or array`.
 * Shared by the Anthropic and Gemini codecs (a candidate for `gateway/inbound/` proper).
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** A decoder-ready failure: `message` names the field; `param` is the dotted path ('' for the body). */
export interface FieldFailure {
  readonly message: string;
  readonly param: string;
}

/** Follows union failures into the branch that got furthest (its type matched, a nested field failed). */
function deepestBranchIssue(branches: ReadonlyArray<ReadonlyArray<Issue>>): Issue | undefined {
  let best: Issue | undefined;
  for (const branch of branches) {
    const first = branch[0];
    if (first !== undefined && first.path.length > 0 && (best === undefined || first.path.length > best.path.length))
      best = first;
    if (first?.code === 'invalid_union' && first.path.length === 0 && best === undefined) best = first;
  }
  return best;
}

function expectedTypes(branches: ReadonlyArray<ReadonlyArray<Issue>>): string[] | undefined {
  const expected: string[] = [];
  for (const branch of branches) {
    const first = branch[0];
    if (first?.code !== 'invalid_type') return undefined;
    expected.push(first.expected);
  }
  return expected;
}

/** zod's type names in client terms (`record` → `object`). */
function clientTerms(text: string): string {
  return text.replace(/\brecord\b/g, 'object');
}

function describeIssue(issue: Issue, prefix: ReadonlyArray<PropertyKey>): FieldFailure {
  const path = [...prefix, ...issue.path];
  const param = path.map(String).join('.');
  const where = param === '' ? 'body' : param;
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const nested = deepestBranchIssue(issue.errors);
    if (nested !== undefined) return describeIssue(nested, path);
    const expected = expectedTypes(issue.errors);
    if (expected !== undefined)
      return { param, message: `${where}: ${clientTerms(`expected ${[...new Set(expected)].join(' or ')}`)}` };
  }
  const missing = /^Invalid input: expected (\w+), received undefined$/.exec(issue.message);
  if (missing !== null)
    return { param, message: `${where}: required field missing (expected ${clientTerms(missing[1] ?? '')})` };
  return { param, message: `${where}: ${clientTerms(issue.message.replace(/^Invalid input: /, ''))}` };
}

/** Describes the first issue of a zod error; `prefix` is prepended to its path (e.g. `['generateContentRequest']`). */
export function describeZodError(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): FieldFailure {
  const first = error.issues[0];
  if (first === undefined) return { param: '', message: 'body: invalid request' };
  return describeIssue(first, prefix);
}

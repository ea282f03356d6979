/**
 * The rule both OpenAI protocols follow for a `usage` object (Chat Completions,
 * https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage; Responses,
 * https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage): an object
 * is what the upstream reported, anything else (null, absent) means it reported nothing.
 */
import type { z } from 'zod';
import { emptyUsage, makeUsage, type Usage } from '../../canonical/usage.ts';

/** The counts one protocol reads from its usage object, in tokens; null or undefined count 0. */
export interface ReportedTokenCounts {
  readonly inputTotal: number | null | undefined;
  readonly cacheRead: number | null | undefined;
  readonly cacheWrite: number | null | undefined;
  readonly outputTotal: number | null | undefined;
  readonly reasoning: number | null | undefined;
}

/**
 * Parses `raw` with the protocol's lenient usage `schema` and maps it with `counts` to a Usage of
 * source `reported` (explicit zeros stay zeros). When `raw` does not parse (not an object at all)
 * the upstream was silent: returns `emptyUsage('estimated')`, for the pipeline to fill in an
 * estimate. `isPlain`, when given, recognises a `raw` the schema would keep as it is: that one is
 * read without the schema's copy. Never throws.
 */
export function normalizeOpenAiUsage<S extends z.ZodType>(
  raw: unknown,
  schema: S,
  counts: (usage: z.output<S>) => ReportedTokenCounts,
  isPlain?: (raw: unknown) => raw is z.output<S>,
): Usage {
  // makeUsage's source is `reported` unless told otherwise.
  if (isPlain?.(raw)) return makeUsage(counts(raw));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return emptyUsage('estimated');
  return makeUsage(counts(parsed.data));
}

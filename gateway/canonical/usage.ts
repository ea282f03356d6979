/**
 * Token usage of one exchange, in tokens.
 * - `input.total` includes cached tokens (cache reads and cache writes are subsets of it).
 * - `input.cacheWrite1h` is the part of `input.cacheWrite` written with a 1-hour lifetime
 *   (Anthropic's `cache_creation.ephemeral_1h_input_tokens`,
 *   https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching "1-hour cache duration");
 *   the rest of `cacheWrite` has the default 5-minute lifetime. The field is present only when it
 *   is above 0 (absent = 0, as for every provider but Anthropic): read it with `cacheWrite1hTokens`.
 * - `output.total` includes reasoning tokens.
 * - `source`: `reported` by the upstream, `estimated` locally with a tokenizer, or `partial`
 *   (the exchange ended early and only what was delivered is counted).
 */
export interface Usage {
  readonly input: {
    readonly total: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
    readonly cacheWrite1h?: number;
  };
  readonly output: { readonly total: number; readonly reasoning: number };
  readonly source: 'reported' | 'estimated' | 'partial';
}

/** A usage record with every count zero. `source` defaults to `reported`. */
export function emptyUsage(source: Usage['source'] = 'reported'): Usage {
  return { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 }, source };
}

/**
 * Field-wise constructor with defaults of 0; negative or non-finite counts become 0.
 * `cacheWrite1h` is capped at `cacheWrite` (it is a part of it) and left out when 0.
 */
export function makeUsage(counts: {
  inputTotal?: number | null;
  cacheRead?: number | null;
  cacheWrite?: number | null;
  cacheWrite1h?: number | null;
  outputTotal?: number | null;
  reasoning?: number | null;
  source?: Usage['source'];
}): Usage {
  const cacheWrite = tokenCount(counts.cacheWrite);
  const cacheWrite1h = Math.min(tokenCount(counts.cacheWrite1h), cacheWrite);
  const input: { total: number; cacheRead: number; cacheWrite: number; cacheWrite1h?: number } = {
    total: tokenCount(counts.inputTotal),
    cacheRead: tokenCount(counts.cacheRead),
    cacheWrite,
  };
  if (cacheWrite1h > 0) input.cacheWrite1h = cacheWrite1h;
  return {
    input,
    output: { total: tokenCount(counts.outputTotal), reasoning: tokenCount(counts.reasoning) },
    source: counts.source ?? 'reported',
  };
}

/** A count as makeUsage keeps it: a finite positive number rounded down, else 0 (tokens). */
function tokenCount(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** Input tokens that were neither read from nor written to a cache (Anthropic's `input_tokens`). */
export function uncachedInputTokens(usage: Usage): number {
  return Math.max(0, usage.input.total - usage.input.cacheRead - usage.input.cacheWrite);
}

/** Visible output tokens, i.e. output excluding reasoning (Gemini's `candidatesTokenCount`). */
export function visibleOutputTokens(usage: Usage): number {
  return Math.max(0, usage.output.total - usage.output.reasoning);
}

/** Cache-write tokens with a 1-hour lifetime (0 when none), a part of `input.cacheWrite`. */
export function cacheWrite1hTokens(usage: Usage): number {
  return usage.input.cacheWrite1h ?? 0;
}

/**
 * Splitting an embedding batch into upstream calls that fit the provider's documented per-call
 * limits (ProviderQuirks.embeddings: most inputs, most input tokens per call), and the input-token
 * counts both the split and the TPM reservation use.
 */
import type { EmbeddingInput } from '../canonical/embedding.ts';
import type { EmbeddingSupport } from '../providers/provider-preset.ts';
import { BoundedTokenCounter } from '../tokenize/bounded-token-counter.ts';

/** One upstream call's slice of the inputs: `[start, end)`. */
export interface EmbeddingCallSlice {
  readonly start: number;
  readonly end: number;
}

/**
 * Tokens of each input (tokens): a token-id input counts its ids; a text is counted with the
 * gateway's o200k tokenizer (exact for the first 64 KiB of the request, estimated beyond,
 * bounded-token-counter.ts) — an estimate for models of other tokenizers. Never throws.
 */
export function countEmbeddingInputTokens(inputs: ReadonlyArray<EmbeddingInput>): number[] {
  const counter = new BoundedTokenCounter();
  return inputs.map((input) => (input.kind === 'tokens' ? input.tokens.length : counter.count(input.text)));
}

/**
 * The calls for inputs of `tokenCounts` (tokens each) under `support`'s limits for `upstreamModel`,
 * in order: each call takes inputs while it holds fewer than `maxInputsPerCall` (or the model's
 * entry in `maxInputsPerCallByModel`) and their tokens stay within
 * `maxInputTokensPerCall` (an input over that limit alone gets a call of its own, for the upstream
 * to judge). Without limits: one call. Never empty for at least one input.
 */
export function planEmbeddingCalls(
  tokenCounts: ReadonlyArray<number>,
  support: EmbeddingSupport | undefined,
  upstreamModel = '',
): EmbeddingCallSlice[] {
  const byModel = support?.maxInputsPerCallByModel?.find((entry) => upstreamModel.includes(entry.modelIncludes));
  const maxInputs = byModel?.maxInputsPerCall ?? support?.maxInputsPerCall ?? Infinity;
  const maxTokens = support?.maxInputTokensPerCall ?? Infinity;
  const slices: EmbeddingCallSlice[] = [];
  let start = 0;
  let tokens = 0;
  for (let index = 0; index < tokenCounts.length; index++) {
    const count = tokenCounts[index] ?? 0;
    const full = index - start >= maxInputs || (index > start && tokens + count > maxTokens);
    if (full) {
      slices.push({ start, end: index });
      start = index;
      tokens = 0;
    }
    tokens += count;
  }
  if (tokenCounts.length > start) slices.push({ start, end: tokenCounts.length });
  return slices;
}

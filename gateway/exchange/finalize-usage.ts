/**
 * Completes usage the upstream did not report. Convention (usage.ts): a decoder that saw no usage
 * emits source `estimated` with zero counts; here the zeros are replaced by tokenizer estimates.
 * Counts the upstream did report (source `reported`), explicit zeros included, are kept.
 */
import type { CanonicalRequest } from '../canonical/request.ts';
import type { OutputBlock } from '../canonical/response.ts';
import { makeUsage, type Usage } from '../canonical/usage.ts';
import { estimateInputTokens, estimateOutputTokens } from '../tokenize/estimate-tokens.ts';

/**
 * Final usage for billing; `partial` marks an exchange cut short (counts what was delivered).
 * `content` is what was generated, or a function returning it, called only when an estimate is
 * needed (a stream's accumulated text is not copied when the upstream reported usage).
 */
export function finalizeUsage(
  usage: Usage | undefined,
  request: CanonicalRequest,
  content: ReadonlyArray<OutputBlock> | (() => ReadonlyArray<OutputBlock>),
  partial = false,
): Usage {
  if (usage && usage.source === 'reported' && !partial) return usage;
  const output = estimateOutputTokens({ content: typeof content === 'function' ? content() : content });
  const reported = usage?.source === 'reported';
  return makeUsage({
    inputTotal: usage && usage.input.total > 0 ? usage.input.total : estimateInputTokens(request),
    cacheRead: usage?.input.cacheRead,
    cacheWrite: usage?.input.cacheWrite,
    cacheWrite1h: usage?.input.cacheWrite1h,
    outputTotal: reported && usage.output.total >= output.total ? usage.output.total : output.total,
    reasoning: reported && usage.output.reasoning >= output.reasoning ? usage.output.reasoning : output.reasoning,
    source: partial ? 'partial' : 'estimated',
  });
}

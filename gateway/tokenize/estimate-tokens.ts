/**
 * Local token estimates. Counts with the o200k_base BPE (npm `gpt-tokenizer`, loaded on first use)
 * serve when an upstream has no count endpoint or reports no usage; they are estimates for
 * non-OpenAI models. Every such count goes through a BoundedTokenCounter (bounded-token-counter.ts):
 * exact for the first EXACT_BUDGET bytes of a request or response, estimated beyond, so one
 * request costs at most ≈ 0.1 s of CPU here whatever its text (figures in bounded-token-counter.ts).
 * Admission's reservations use the cheaper character-class estimate (character-class-estimate.ts).
 */
import type { CanonicalRequest, ContentPart } from '../canonical/request.ts';
import type { CanonicalResponse } from '../canonical/response.ts';
import { BoundedTokenCounter } from './bounded-token-counter.ts';
import { CharacterClassTokenEstimator } from './character-class-estimate.ts';

/** What counts the tokens of one string (tokens): the BPE (bounded) or the character-class estimate. */
interface TextTokenCounter {
  count(text: string): number;
}

/** Per-message framing overhead (tokens), as in OpenAI's chat token accounting. */
const TOKENS_PER_MESSAGE = 3;
/** Flat estimate for one image (tokens). */
const TOKENS_PER_IMAGE = 765;

/**
 * Tokens in a string (tokens). Never throws on any text: special-token text such as
 * "<|endoftext|>" is counted as ordinary text (bounded-token-counter.ts). With `counter`, the
 * count shares that counter's exact budget; without, the string gets a budget of its own.
 */
export function countTextTokens(text: string, counter: BoundedTokenCounter = new BoundedTokenCounter()): number {
  return counter.count(text);
}

/** Input estimates already made, per request object (requests are immutable; counted once each). */
const inputTokensByRequest = new WeakMap<CanonicalRequest, number>();

function partTokens(part: ContentPart, counter: TextTokenCounter): number {
  switch (part.type) {
    case 'text':
      return counter.count(part.text);
    case 'reasoning':
      return counter.count(part.text);
    case 'image':
    case 'file':
      return TOKENS_PER_IMAGE;
    case 'tool-call':
      return counter.count(part.name) + counter.count(part.arguments);
    case 'tool-result':
      return typeof part.content === 'string'
        ? counter.count(part.content)
        : part.content.reduce((sum, p) => sum + (p.type === 'text' ? counter.count(p.text) : TOKENS_PER_IMAGE), 0);
  }
}

/**
 * Estimated input tokens of a request: system, messages and tool definitions (tokens). One
 * exact budget for the whole request; the result is kept per request object, so admission,
 * channel limits and usage finalisation tokenize a request once.
 */
export function estimateInputTokens(request: CanonicalRequest): number {
  const known = inputTokensByRequest.get(request);
  if (known !== undefined) return known;
  const total = countInputTokens(request, new BoundedTokenCounter());
  inputTokensByRequest.set(request, total);
  return total;
}

/** Admission estimates already made, per request object. */
const admissionTokensByRequest = new WeakMap<CanonicalRequest, number>();

/**
 * Estimated input tokens of a request for admission (RPM/TPM reservations, budget holds, the cost
 * strategy), from character classes alone (character-class-estimate.ts: 0.83–1.18× the BPE count
 * on prose, code and JSON, 0.72–1.39× on short phrases of 60 languages; ≈ 3.4 ns per character, at
 * most CHARACTER_SCAN_BUDGET characters weighed per request, the rest extrapolated), so admission
 * never loads the vocabulary nor pays 90–220 µs per KiB for it. A reservation is settled to the upstream's reported usage when
 * the request ends, so its precision only matters while the request runs. Billing never uses it:
 * a request without reported usage is billed on estimateInputTokens (tokens). Never throws.
 */
export function estimateAdmissionInputTokens(request: CanonicalRequest): number {
  const known = admissionTokensByRequest.get(request) ?? inputTokensByRequest.get(request);
  if (known !== undefined) return known;
  const total = countInputTokens(request, new CharacterClassTokenEstimator());
  admissionTokensByRequest.set(request, total);
  return total;
}

/** System, messages and tool definitions of `request` through one counter (tokens). */
function countInputTokens(request: CanonicalRequest, counter: TextTokenCounter): number {
  let total = request.system ? counter.count(request.system) + TOKENS_PER_MESSAGE : 0;
  for (const message of request.messages) {
    total += TOKENS_PER_MESSAGE;
    for (const part of message.content) total += partTokens(part, counter);
  }
  for (const tool of request.tools ?? []) {
    total +=
      counter.count(tool.name) + counter.count(tool.description ?? '') + counter.count(JSON.stringify(tool.parameters));
  }
  total += 3;
  return total;
}

/** Estimated output tokens of a response (tokens; one exact budget for all blocks); `reasoning` counts the reasoning blocks alone. */
export function estimateOutputTokens(response: Pick<CanonicalResponse, 'content'>): {
  total: number;
  reasoning: number;
} {
  const counter = new BoundedTokenCounter();
  let total = 0;
  let reasoning = 0;
  for (const block of response.content) {
    if (block.type === 'text') total += counter.count(block.text);
    else if (block.type === 'reasoning') {
      const n = counter.count(block.text);
      total += n;
      reasoning += n;
    } else total += counter.count(block.name) + counter.count(block.arguments);
  }
  return { total, reasoning };
}

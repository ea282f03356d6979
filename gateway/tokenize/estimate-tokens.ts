/**
 * Local token estimates with the o200k_base BPE (npm `gpt-tokenizer`), used when an upstream has
 * no count endpoint or reports no usage. Counts are estimates for non-OpenAI models.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { CanonicalRequest, ContentPart } from '../canonical/request.ts';
import type { CanonicalResponse } from '../canonical/response.ts';

/** Per-message framing overhead (tokens), as in OpenAI's chat token accounting. */
const TOKENS_PER_MESSAGE = 3;
/** Flat estimate for one image (tokens). */
const TOKENS_PER_IMAGE = 765;

/** Tokens in a string. */
export function countTextTokens(text: string): number {
  return text === '' ? 0 : encode(text).length;
}

function partTokens(part: ContentPart): number {
  switch (part.type) {
    case 'text':
      return countTextTokens(part.text);
    case 'reasoning':
      return countTextTokens(part.text);
    case 'image':
    case 'file':
      return TOKENS_PER_IMAGE;
    case 'tool-call':
      return countTextTokens(part.name) + countTextTokens(part.arguments);
    case 'tool-result':
      return typeof part.content === 'string'
        ? countTextTokens(part.content)
        : part.content.reduce((sum, p) => sum + (p.type === 'text' ? countTextTokens(p.text) : TOKENS_PER_IMAGE), 0);
  }
}

/** Estimated input tokens of a request: system, messages and tool definitions. */
export function estimateInputTokens(request: CanonicalRequest): number {
  let total = request.system ? countTextTokens(request.system) + TOKENS_PER_MESSAGE : 0;
  for (const message of request.messages) {
    total += TOKENS_PER_MESSAGE;
    for (const part of message.content) total += partTokens(part);
  }
  for (const tool of request.tools ?? []) {
    total += countTextTokens(tool.name) + countTextTokens(tool.description ?? '') + countTextTokens(JSON.stringify(tool.parameters));
  }
  return total + 3;
}

/** Estimated output tokens of a response; `reasoning` counts the reasoning blocks alone. */
export function estimateOutputTokens(response: Pick<CanonicalResponse, 'content'>): { total: number; reasoning: number } {
  let total = 0;
  let reasoning = 0;
  for (const block of response.content) {
    if (block.type === 'text') total += countTextTokens(block.text);
    else if (block.type === 'reasoning') {
      const n = countTextTokens(block.text);
      total += n;
      reasoning += n;
    } else total += countTextTokens(block.name) + countTextTokens(block.arguments);
  }
  return { total, reasoning };
}

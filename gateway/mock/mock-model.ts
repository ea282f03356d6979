/**
 * The built-in fake model: a deterministic answer for any CanonicalRequest, so demos, tests and
 * load tests run with no provider. Behaviour:
 * - the last user turn ends with tool results → text "Tool results received: …";
 * - tools are offered and the user text does not say "no tools" → a call of the first tool with
 *   arguments `{"input": "<last user text>"}` (finish `tool-calls`);
 * - otherwise → text "Mock reply to: <last user text>";
 * - reasoning enabled → a reasoning block first, with a mock signature;
 * - `maxOutputTokens` smaller than the answer → the answer is cut and finish is `length`.
 * Directives in the last user text: `[mock:fail=503]` answers that HTTP status,
 * `[mock:slow=200]` waits 200 ms before each stream chunk.
 */
import { finishReason } from '../canonical/finish-reason.ts';
import { generateId } from '../canonical/ids.ts';
import type { CanonicalRequest, ContentPart } from '../canonical/request.ts';
import type { CanonicalResponse, OutputBlock } from '../canonical/response.ts';
import { makeUsage } from '../canonical/usage.ts';
import { countTextTokens, estimateInputTokens, estimateOutputTokens } from '../tokenize/estimate-tokens.ts';

/** Directives parsed from the prompt. */
export interface MockDirectives {
  /** HTTP status to fail with. */
  readonly failStatus?: number;
  /** Delay before each stream chunk, ms. */
  readonly slowMs?: number;
}

function textOf(parts: ReadonlyArray<ContentPart>): string {
  return parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** The text of the last user turn, and whether it carries tool results. */
export function lastUserTurn(request: CanonicalRequest): { text: string; toolResults: ContentPart[] } {
  const turn = [...request.messages].reverse().find((m) => m.role === 'user');
  if (!turn) return { text: '', toolResults: [] };
  return { text: textOf(turn.content), toolResults: turn.content.filter((p) => p.type === 'tool-result') };
}

/** Reads `[mock:fail=NNN]` and `[mock:slow=MS]` from the last user text. */
export function parseMockDirectives(request: CanonicalRequest): MockDirectives {
  const { text } = lastUserTurn(request);
  const fail = /\[mock:fail=(\d{3})\]/.exec(text);
  const slow = /\[mock:slow=(\d+)\]/.exec(text);
  return { ...(fail ? { failStatus: Number(fail[1]) } : {}), ...(slow ? { slowMs: Number(slow[1]) } : {}) };
}

function answerBlocks(request: CanonicalRequest): OutputBlock[] {
  const { text, toolResults } = lastUserTurn(request);
  const blocks: OutputBlock[] = [];
  if (request.reasoning?.enabled || (request.reasoning?.effort !== undefined && request.reasoning.effort !== 'none')) {
    blocks.push({
      type: 'reasoning',
      text: `The user wrote ${JSON.stringify(text)}; answer deterministically.`,
      signature: 'mock-signature',
    });
  }
  const firstTool = request.tools?.[0];
  if (toolResults.length > 0) {
    const results = toolResults
      .map((p) => (p.type === 'tool-result' ? (typeof p.content === 'string' ? p.content : textOf(p.content)) : ''))
      .join('; ');
    blocks.push({ type: 'text', text: `Tool results received: ${results}` });
  } else if (firstTool && request.toolChoice?.type !== 'none' && !/no tools/i.test(text)) {
    blocks.push({
      type: 'tool-call',
      id: generateId('call_'),
      name: request.toolChoice?.type === 'tool' ? request.toolChoice.name : firstTool.name,
      arguments: JSON.stringify({ input: text }),
    });
  } else {
    blocks.push({ type: 'text', text: `Mock reply to: ${text}` });
  }
  return blocks;
}

/** Cuts the last text block so that output fits `maxTokens`; returns whether it was cut. */
function truncateToLimit(blocks: OutputBlock[], maxTokens: number | undefined): boolean {
  if (maxTokens === undefined || estimateOutputTokens({ content: blocks }).total <= maxTokens) return false;
  const last = blocks[blocks.length - 1];
  if (last?.type !== 'text') return false;
  const words = last.text.split(' ');
  while (
    words.length > 1 &&
    estimateOutputTokens({ content: [...blocks.slice(0, -1), { type: 'text', text: words.join(' ') }] }).total >
      maxTokens
  )
    words.pop();
  blocks[blocks.length - 1] = { type: 'text', text: words.join(' ') };
  return true;
}

/** The mock's complete answer to `request`, with usage counted by the local tokenizer (source `reported`). */
export function generateMockResponse(request: CanonicalRequest, upstreamModel: string): CanonicalResponse {
  const content = answerBlocks(request);
  const cut = truncateToLimit(content, request.maxOutputTokens);
  const output = estimateOutputTokens({ content });
  const hasToolCall = content.some((b) => b.type === 'tool-call');
  return {
    id: generateId('mock_'),
    model: upstreamModel,
    content,
    finishReason: cut ? finishReason('length') : hasToolCall ? finishReason('tool-calls') : finishReason('stop'),
    usage: makeUsage({
      inputTotal: estimateInputTokens(request),
      outputTotal: output.total,
      reasoning: output.reasoning,
    }),
  };
}

/** Tokens in a text, re-exported for the mock server's count endpoints. */
export const countMockTokens = countTextTokens;

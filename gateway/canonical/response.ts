/**
 * CanonicalResponse: a finished, non-streamed generation in the gateway's own terms. Upstream
 * adapters decode into it; inbound codecs encode from it. Streams are accumulated into the same
 * shape by `accumulateStream` (stream-accumulator.ts).
 */
import type { FinishReason } from './finish-reason.ts';
import type { Usage } from './usage.ts';

/** Generated text. */
export interface OutputText {
  readonly type: 'text';
  readonly text: string;
}

/** Generated reasoning (thinking) with its provider signature, or an Anthropic redacted block. */
export interface OutputReasoning {
  readonly type: 'reasoning';
  readonly text: string;
  readonly signature?: string;
  readonly redacted?: string;
}

/** A tool call the model made; `arguments` is JSON text. */
export interface OutputToolCall {
  readonly type: 'tool-call';
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  readonly signature?: string;
}

/** One block of generated output, in generation order. */
export type OutputBlock = OutputText | OutputReasoning | OutputToolCall;

/**
 * A finished generation.
 * - `id`: the upstream's response id (codecs mint their own client-facing ids).
 * - `model`: the model that served it (upstream name).
 * - `stopSequence`: the stop sequence that matched, when `finishReason.raw` says so.
 */
export interface CanonicalResponse {
  readonly id: string;
  readonly model: string;
  readonly content: ReadonlyArray<OutputBlock>;
  readonly finishReason: FinishReason;
  readonly stopSequence?: string;
  readonly usage: Usage;
}

/**
 * Folds a StreamEvent sequence into a CanonicalResponse. Used when a streamed upstream answer must
 * be returned to a non-streaming client, by the usage tap, and by tests.
 */
import { finishReason as makeFinishReason, type FinishReason } from './finish-reason.ts';
import type { GatewayError } from './gateway-error.ts';
import type { CanonicalResponse, OutputBlock } from './response.ts';
import type { StreamEvent } from './stream-event.ts';
import { emptyUsage, type Usage } from './usage.ts';

type MutableBlock =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string; signature?: string; redacted?: string }
  | { type: 'tool-call'; id: string; name: string; arguments: string; signature?: string };

/** Incremental accumulator; `push` every event, then read `result()`. */
export class StreamAccumulator {
  private id = '';
  private model = '';
  private readonly blocks: MutableBlock[] = [];
  private finish: FinishReason | undefined;
  private stopSequence: string | undefined;
  private usage: Usage | undefined;
  private startUsage: Usage | undefined;
  /** The error that ended the stream, if it ended with one. */
  error: GatewayError | undefined;
  /** True once message-end or error was seen. */
  finished = false;

  push(event: StreamEvent): void {
    switch (event.type) {
      case 'message-start':
        this.id = event.messageId;
        this.model = event.model;
        this.startUsage = event.usage;
        return;
      case 'text-start':
        this.blocks[event.index] = { type: 'text', text: '' };
        return;
      case 'reasoning-start':
        this.blocks[event.index] =
          event.redacted === undefined
            ? { type: 'reasoning', text: '' }
            : { type: 'reasoning', text: '', redacted: event.redacted };
        return;
      case 'tool-input-start': {
        const block: MutableBlock = { type: 'tool-call', id: event.toolCallId, name: event.toolName, arguments: '' };
        if (event.signature !== undefined) block.signature = event.signature;
        this.blocks[event.index] = block;
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const block = this.blocks[event.index];
        if (block && block.type !== 'tool-call') block.text += event.text;
        return;
      }
      case 'reasoning-signature': {
        const block = this.blocks[event.index];
        if (block?.type === 'reasoning') block.signature = (block.signature ?? '') + event.signature;
        return;
      }
      case 'tool-input-delta': {
        const block = this.blocks[event.index];
        if (block?.type === 'tool-call') block.arguments += event.argumentsFragment;
        return;
      }
      case 'message-end':
        this.finish = event.finishReason;
        this.usage = event.usage;
        this.stopSequence = event.stopSequence;
        this.finished = true;
        return;
      case 'error':
        this.error = event.error;
        this.finished = true;
        return;
      case 'block-end':
      case 'keep-alive':
        return;
    }
  }

  /** Usage known so far: final usage if the stream ended, else what message-start announced. */
  currentUsage(): Usage | undefined {
    return this.usage ?? this.startUsage;
  }

  /** The response as accumulated so far (finish reason `error` if the stream never ended). */
  result(): CanonicalResponse {
    const content: OutputBlock[] = this.blocks.filter((b): b is MutableBlock => b !== undefined).map((b) => ({ ...b }));
    const response: CanonicalResponse = {
      id: this.id,
      model: this.model,
      content,
      finishReason: this.finish ?? makeFinishReason('error'),
      usage: this.usage ?? this.startUsage ?? emptyUsage(),
    };
    return this.stopSequence === undefined ? response : { ...response, stopSequence: this.stopSequence };
  }
}

/** Accumulates a complete event list into a response. */
export function accumulateStream(events: Iterable<StreamEvent>): CanonicalResponse {
  const accumulator = new StreamAccumulator();
  for (const event of events) accumulator.push(event);
  return accumulator.result();
}

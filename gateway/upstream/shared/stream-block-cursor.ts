/**
 * Block bookkeeping for stream decoders, enforcing the StreamEvent grammar (stream-event.ts):
 * indices from 0, one more per block, at most one open block (opening a block closes the open one).
 * Blocks are identified by a decoder-chosen `key` (e.g. `text`, `tool:0`, `item:2`).
 */
import type { StreamEvent } from '../../canonical/stream-event.ts';

/** What a block carries. */
export type StreamBlockKind = 'text' | 'reasoning' | 'tool';

/** The open block. */
export interface OpenStreamBlock {
  readonly kind: StreamBlockKind;
  readonly key: string;
  readonly index: number;
}

/** Hands out block indices and tracks the one open block; every method appends events to `out`. */
export class StreamBlockCursor {
  private nextIndex = 0;
  private current: OpenStreamBlock | undefined;

  /** The open block, if any. */
  get open(): OpenStreamBlock | undefined {
    return this.current;
  }

  /** The index of the open block when its key is `key`, else undefined. */
  indexOf(key: string): number | undefined {
    return this.current?.key === key ? this.current.index : undefined;
  }

  /** Makes sure a `kind` block with `key` is open (else closes the open one and starts it); returns its index. */
  ensure(kind: 'text' | 'reasoning', key: string, out: StreamEvent[]): number {
    if (this.current?.key === key && this.current.kind === kind) return this.current.index;
    const index = this.start(kind, key, out);
    out.push(kind === 'text' ? { type: 'text-start', index } : { type: 'reasoning-start', index });
    return index;
  }

  /** Closes the open block and starts a tool-input block; returns its index. */
  openTool(key: string, toolCallId: string, toolName: string, out: StreamEvent[]): number {
    const index = this.start('tool', key, out);
    out.push({ type: 'tool-input-start', index, toolCallId, toolName });
    return index;
  }

  /** Emits block-end for the open block, if any. */
  close(out: StreamEvent[]): void {
    if (!this.current) return;
    out.push({ type: 'block-end', index: this.current.index });
    this.current = undefined;
  }

  private start(kind: StreamBlockKind, key: string, out: StreamEvent[]): number {
    this.close(out);
    const index = this.nextIndex++;
    this.current = { kind, key, index };
    return index;
  }
}

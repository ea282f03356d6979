/**
 * The publisher's in-memory FIFO of accepted records: O(1) push, batch takes from the head
 * bounded by count and bytes, and `putBack` to return a failed batch to the head (order kept).
 */

/** An item that knows its size in bytes. */
export interface Sized {
  readonly bytes: number;
}

/** FIFO queue of sized items. */
export class RecordQueue<T extends Sized> {
  private items: T[] = [];
  private head = 0;

  /** Items queued. */
  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Removes and returns up to `maxItems` from the head, at most `maxBytes` (but always one item when any). */
  take(maxItems: number, maxBytes: number): T[] {
    let end = this.head;
    let bytes = 0;
    while (end < this.items.length && end - this.head < maxItems) {
      const size = this.items[end]?.bytes ?? 0;
      if (end > this.head && bytes + size > maxBytes) break;
      bytes += size;
      end += 1;
    }
    const taken = this.items.slice(this.head, end);
    this.head = end;
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return taken;
  }

  /** Removes and returns everything. */
  takeAll(): T[] {
    const taken = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return taken;
  }

  /** Returns `batch` (taken earlier) to the head, before everything queued since. */
  putBack(batch: ReadonlyArray<T>): void {
    this.items = batch.concat(this.items.slice(this.head));
    this.head = 0;
  }
}

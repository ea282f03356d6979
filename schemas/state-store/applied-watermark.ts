/**
 * The applied-offset watermarks that make the state store's writes exactly-once without time
 * windows (state-store.ts): one per consumer kind (`spend`, `health`) and log partition, holding
 * the highest offset applied. Shared by both adapters so they agree on names and on what counts
 * as "already applied".
 */
import type { LogPosition } from './state-store.ts';

/** What a watermark guards: the spend counters or the channel health. */
export type WatermarkKind = 'spend' | 'health';

/** Largest offset compared exactly (Lua and JS compare offsets as IEEE doubles). */
const MAX_EXACT_OFFSET = 2 ** 53;

/**
 * The watermark's name for a position's partition: `<kind>:<topic>:<partition>` (topic names are
 * `[A-Za-z0-9._-]`, so the parts cannot run together).
 */
export function watermarkName(kind: WatermarkKind, position: LogPosition): string {
  return `${kind}:${position.topic}:${position.partition}`;
}

/**
 * The offset of a position as a number.
 * @throws RangeError when the offset is not a decimal integer in 0..2^53, the partition is not a
 *   non-negative integer or the topic is empty.
 */
export function offsetOf(position: LogPosition): number {
  if (!position || !position.topic || !Number.isInteger(position.partition) || position.partition < 0)
    throw new RangeError(`invalid log position ${JSON.stringify(position)}`);
  const offset = /^\d{1,16}$/.test(position.offset) ? Number(position.offset) : Number.NaN;
  if (!(offset <= MAX_EXACT_OFFSET))
    throw new RangeError(`log offset must be a decimal integer in 0..2^53, got ${JSON.stringify(position.offset)}`);
  return offset;
}

/** Watermarks in memory (the embedded state store): name → highest applied offset. */
export class AppliedWatermarks {
  private readonly applied: Map<string, number>;

  /** Starts from `entries` (watermark name → offset, as `entries()` returns them), or empty. */
  constructor(entries: Iterable<readonly [string, number]> = []) {
    this.applied = new Map(entries);
  }

  /** Every watermark as [name, highest applied offset] (for a snapshot of the embedded store). */
  entries(): Array<[string, number]> {
    return [...this.applied];
  }

  /** The highest applied offset of `<kind>:<topic>:<partition>`, or undefined when none was applied. */
  get(kind: WatermarkKind, topic: string, partition: number): number | undefined {
    return this.applied.get(watermarkName(kind, { topic, partition, offset: '0' }));
  }

  /** True when `position` is past its partition's watermark (not applied yet). */
  isNew(kind: WatermarkKind, position: LogPosition): boolean {
    const watermark = this.applied.get(watermarkName(kind, position));
    return watermark === undefined || offsetOf(position) > watermark;
  }

  /** Records `position` as applied (the watermark only moves forward). */
  advance(kind: WatermarkKind, position: LogPosition): void {
    const name = watermarkName(kind, position);
    this.applied.set(name, Math.max(this.applied.get(name) ?? -1, offsetOf(position)));
  }
}

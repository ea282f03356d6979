/**
 * Applies state-store writes the way the per-partition watermarks need them
 * (schemas/state-store/state-store.ts): within a partition one at a time, in offset order, each
 * only after the previous one succeeded — were a later write to land after an earlier one failed,
 * the watermark would pass the failed record and its redelivery would be skipped. Partitions are
 * independent and run concurrently.
 */
import type { LogPosition } from '../schemas/state-store/state-store.ts';

/** The items grouped by their position's topic and partition, each group in the order given. */
export function byPartition<T extends { readonly position: LogPosition }>(items: ReadonlyArray<T>): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = `${item.position.topic}\u0000${item.position.partition}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/**
 * Calls `apply` for every item, sequentially per partition (items in the order given), partitions
 * concurrently.
 * @throws the first error of any partition; that partition's later items are not applied
 */
export async function applyInLogOrder<T extends { readonly position: LogPosition }>(
  items: ReadonlyArray<T>,
  apply: (item: T) => Promise<unknown>,
): Promise<void> {
  await Promise.all(
    [...byPartition(items).values()].map(async (partition) => {
      for (const item of partition) await apply(item);
    }),
  );
}

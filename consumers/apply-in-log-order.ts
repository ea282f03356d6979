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
 * concurrently. Resolves with the results in the order given.
 * @throws the first error of any partition; that partition's later items are not applied
 */
export async function applyInLogOrder<T, R>(items: ReadonlyArray<T>, positionOf: (item: T) => LogPosition, apply: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  const byPartition = new Map<string, number[]>();
  items.forEach((item, index) => {
    const { topic, partition } = positionOf(item);
    const key = `${topic}\u0000${partition}`;
    const indexes = byPartition.get(key);
    if (indexes) indexes.push(index);
    else byPartition.set(key, [index]);
  });
  await Promise.all(
    [...byPartition.values()].map(async (indexes) => {
      for (const index of indexes) results[index] = await apply(items[index] as T);
    }),
  );
  return results;
}

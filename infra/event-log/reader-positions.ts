/**
 * The positions of the group-less reads (EventLog.read) running in one adapter instance, by
 * reader name: nothing is committed for them anywhere, so `committedOffsets(name, topic)` answers
 * from here while the read runs (the config follower's lag metric reads it that way).
 */

/** Next offset to handle per topic and partition, for each running reader of one adapter instance. */
export class ReaderPositions {
  private readonly readers = new Map<string, Map<string, Map<number, string>>>();

  /** Starts tracking reader `name` (a name already tracked is reset). */
  open(name: string): void {
    this.readers.set(name, new Map());
  }

  /** Reader `name` has handled everything before `nextOffset` (decimal) on this partition. */
  handled(name: string, topic: string, partition: number, nextOffset: string): void {
    const topics = this.readers.get(name);
    if (!topics) return;
    let partitions = topics.get(topic);
    if (!partitions) topics.set(topic, (partitions = new Map<number, string>()));
    partitions.set(partition, nextOffset);
  }

  /** Stops tracking reader `name`. */
  close(name: string): void {
    this.readers.delete(name);
  }

  /**
   * The positions of reader `name` on `topic`, sorted by partition (partitions it has not handled
   * anything of are left out, as committedOffsets leaves out uncommitted ones); undefined when no
   * reader of that name runs here.
   */
  positions(name: string, topic: string): Array<{ partition: number; offset: string }> | undefined {
    const topics = this.readers.get(name);
    if (!topics) return undefined;
    return [...(topics.get(topic) ?? new Map<number, string>()).entries()]
      .map(([partition, offset]) => ({ partition, offset }))
      .sort((a, b) => a.partition - b.partition);
  }
}

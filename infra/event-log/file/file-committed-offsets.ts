/**
 * EventLog.committedOffsets for the embedded file log: the position a consumer group stored
 * (file-subscription.ts: `<dataDir>/offsets/<groupId>/<topic>.offset`, the next byte position it
 * reads; one partition, 0).
 */
import { readFile } from 'node:fs/promises';
import { parseStoredPosition, storedOffsetPath } from './file-subscription.ts';

/**
 * The stored position of `groupId` on `topic`: `[]` when the group never stored one (or it is not
 * a non-negative integer), else `[{ partition: 0, offset }]`. Both names must already be validated.
 * @throws the I/O Error other than a missing file.
 */
export async function fileCommittedOffsets(
  dataDir: string,
  groupId: string,
  topic: string,
): Promise<Array<{ partition: number; offset: string }>> {
  const stored = await readFile(storedOffsetPath(dataDir, groupId, topic), 'utf8').catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
  const position = stored === undefined ? undefined : parseStoredPosition(stored);
  return position === undefined ? [] : [{ partition: 0, offset: String(position) }];
}

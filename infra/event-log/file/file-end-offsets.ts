/**
 * The end of a topic file for EventLog.endOffsets: the embedded log has one partition (0) and
 * its offsets are byte positions, so the end it reports is the last whole record's position + 1
 * (see the port: a reader is done once handed a record with offset >= end - 1). Finding the last
 * record walks the frames; the walk resumes where the previous call of the same instance stopped
 * (frames are only ever appended whole), so the file is read once per process, not per call.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { findFramesTail, type FramesTail } from '../read-file-frames.ts';

/** Per-topic result of the previous walk and the file (inode) it walked, reused while that file has not shrunk. */
export type FramesTailCache = Map<string, FramesTail & { readonly ino: number }>;

/**
 * End offsets of `<dataDir>/events/<topic>.log`: `[]` when the file does not exist,
 * `[{ partition: 0, offset: '0' }]` when it holds no whole record, else the last record's
 * position + 1. `topic` must already be a validated log name.
 * @throws the I/O Error (other than a missing file) or a corrupt-frame Error.
 */
export async function fileEndOffsets(
  dataDir: string,
  topic: string,
  cache: FramesTailCache,
): Promise<Array<{ partition: number; offset: string }>> {
  const handle = await open(join(dataDir, 'events', `${topic}.log`), 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return [];
  try {
    const { size, ino } = await handle.stat();
    const previous = cache.get(topic);
    const resume: FramesTail =
      previous && previous.ino === ino && previous.end <= size ? previous : { end: 0, lastPosition: undefined };
    const walked = await findFramesTail(handle, resume.end);
    const tail: FramesTail = { end: walked.end, lastPosition: walked.lastPosition ?? resume.lastPosition };
    cache.set(topic, { ...tail, ino });
    return [{ partition: 0, offset: tail.lastPosition === undefined ? '0' : String(tail.lastPosition + 1) }];
  } finally {
    await handle.close();
  }
}

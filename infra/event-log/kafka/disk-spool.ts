/**
 * The Kafka adapter's on-disk spool: records accepted while Kafka was unreachable, in the order
 * they were accepted, drained in that order once it is back.
 *
 *   <spoolDir>/spool.log    record frames WITH their topic (record-frame-codec.ts)
 *   <spoolDir>/spool.pos    byte position of the first record not yet acknowledged by Kafka
 *
 * `append` returns only after fdatasync, so a spooled record survives a crash. `spool.pos` is
 * replaced (temp file + rename, not synced) after each acknowledged chunk; losing it only means
 * re-sending already acknowledged records (duplicates, never loss: consumers are idempotent).
 * When everything is drained the file is truncated to zero bytes. One process per spool dir.
 */
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';
import { readFileFrames } from '../read-file-frames.ts';
import { encodeRecordFrame, type FramedRecord } from '../record-frame-codec.ts';

/** Records read from the spool's drain position, and where the position moves once they are acknowledged. */
export interface SpoolChunk {
  readonly records: FramedRecord[];
  readonly nextPosition: number;
}

/** An open spool. Calls must not overlap (the publisher serializes them). */
export interface DiskSpool {
  /** Records spooled and not yet acknowledged. */
  count(): number;
  /** Appends the records in order and fdatasyncs. @throws the I/O error (nothing counted then). */
  append(records: ReadonlyArray<FramedRecord>): Promise<void>;
  /** Reads up to `maxRecords` from the drain position without moving it. @throws I/O errors. */
  peek(maxRecords: number): Promise<SpoolChunk>;
  /** Moves the drain position past `chunk` (acknowledged); truncates the file when it is empty. */
  commit(chunk: SpoolChunk): Promise<void>;
  close(): Promise<void>;
}

/** Opens (creating) the spool in `dir`, cutting off a torn last record and counting what is left to drain. */
export async function openDiskSpool(dir: string, logger: EventLogLogger): Promise<DiskSpool> {
  await mkdir(dir, { recursive: true });
  const logPath = join(dir, 'spool.log');
  const posPath = join(dir, 'spool.pos');
  const handle = await open(logPath, 'a+');
  const { size } = await handle.stat();
  let position = await readFile(posPath, 'utf8').then(
    (text) => Number(text.trim()),
    () => 0,
  );
  if (!Number.isSafeInteger(position) || position < 0 || position > size) position = 0;
  let scan = await scanFrames(handle, position).catch(() => undefined);
  if (!scan) {
    position = 0;
    scan = await scanFrames(handle, 0);
  }
  let { end, count } = scan;
  if (end < size) {
    logger('warn', 'kafka spool: cut off a partially written last record', { bytes: size - end });
    await handle.truncate(end);
  }
  if (count > 0) logger('warn', 'kafka spool: records left by a previous run will be sent first', { records: count });

  return {
    count: () => count,
    async append(records) {
      const data = Buffer.concat(records.map((record) => encodeRecordFrame(record)));
      try {
        let done = 0;
        while (done < data.length) done += (await handle.write(data, done, data.length - done)).bytesWritten;
        await handle.datasync();
      } catch (error) {
        await handle.truncate(end).catch(() => {});
        throw error;
      }
      end += data.length;
      count += records.length;
    },
    async peek(maxRecords) {
      const chunk = await readFileFrames(handle, position, maxRecords, 1024 * 1024);
      return { records: chunk.frames.map((frame) => frame.record), nextPosition: chunk.nextPosition };
    },
    async commit(chunk) {
      count -= chunk.records.length;
      position = chunk.nextPosition;
      if (position >= end) {
        await handle.truncate(0);
        await handle.datasync();
        position = 0;
        end = 0;
        count = 0;
      }
      await writeFile(`${posPath}.tmp`, String(position));
      await rename(`${posPath}.tmp`, posPath);
    },
    close: () => handle.close(),
  };
}

/** Counts the whole frames from `from` and finds where they end. @throws on a corrupt frame. */
async function scanFrames(handle: FileHandle, from: number): Promise<{ end: number; count: number }> {
  let end = from;
  let count = 0;
  for (;;) {
    const chunk = await readFileFrames(handle, end, Number.MAX_SAFE_INTEGER, 1024 * 1024);
    if (chunk.frames.length === 0) return { end, count };
    count += chunk.frames.length;
    end = chunk.nextPosition;
  }
}

/**
 * Positional reads of record frames (record-frame-codec.ts) from an append-only file that another
 * writer — possibly another process — may be appending to: only whole frames are returned; a
 * partially written last frame is left for a later read.
 */
import type { FileHandle } from 'node:fs/promises';
import { decodeRecordFrames, type PositionedFrame } from './record-frame-codec.ts';

/** Whole frames read from one position, and where the next read starts. */
export interface FrameChunk {
  readonly frames: PositionedFrame[];
  /** Byte position after the last returned frame (= the start position when none was complete). */
  readonly nextPosition: number;
}

/** Bytes read per call unless one frame is larger (256 KiB). */
const DEFAULT_CHUNK_BYTES = 256 * 1024;

/**
 * Reads up to `maxFrames` whole frames starting at byte `position`.
 * @throws Error on I/O errors or a corrupt length field.
 */
export async function readFileFrames(file: FileHandle, position: number, maxFrames: number, chunkBytes = DEFAULT_CHUNK_BYTES): Promise<FrameChunk> {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  const { bytesRead } = await file.read(buffer, 0, chunkBytes, position);
  if (bytesRead === 0) return { frames: [], nextPosition: position };
  let decoded = decodeRecordFrames(buffer.subarray(0, bytesRead), position, maxFrames);
  if (decoded.frames.length === 0 && decoded.nextFrameSize > bytesRead) {
    const large = Buffer.allocUnsafe(decoded.nextFrameSize);
    const again = await file.read(large, 0, large.length, position);
    if (again.bytesRead < large.length) return { frames: [], nextPosition: position };
    decoded = decodeRecordFrames(large, position, 1);
  }
  return { frames: decoded.frames, nextPosition: position + decoded.consumed };
}

/**
 * Walks the file's frames and returns the byte position after the last whole frame (where a
 * writer may append after a crash left a torn record). Reads the whole file in 1 MiB chunks.
 * @throws Error on I/O errors or a corrupt length field.
 */
export async function findFramesEnd(file: FileHandle): Promise<number> {
  const { size } = await file.stat();
  let position = 0;
  while (position < size) {
    const chunk = await readFileFrames(file, position, Number.MAX_SAFE_INTEGER, 1024 * 1024);
    if (chunk.frames.length === 0) break;
    position = chunk.nextPosition;
  }
  return position;
}

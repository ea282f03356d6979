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
  /**
   * True when the read stopped at `maxFrames` or at its byte budget while the file held more: the
   * frames are as many as one read returns, not all the file had.
   */
  readonly filled: boolean;
}

/** Bytes read per call unless one frame is larger (256 KiB). */
const DEFAULT_CHUNK_BYTES = 256 * 1024;

/**
 * Reads up to `maxFrames` whole frames starting at byte `position`.
 * @throws Error on I/O errors or a corrupt length field.
 */
export async function readFileFrames(
  file: FileHandle,
  position: number,
  maxFrames: number,
  chunkBytes = DEFAULT_CHUNK_BYTES,
): Promise<FrameChunk> {
  // Sized to what the file holds past `position`: an idle poll allocates and reads nothing.
  const { size } = await file.stat();
  if (size <= position) return { frames: [], nextPosition: position, filled: false };
  const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, size - position));
  const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
  if (bytesRead === 0) return { frames: [], nextPosition: position, filled: false };
  let decoded = decodeRecordFrames(buffer.subarray(0, bytesRead), position, maxFrames);
  if (decoded.frames.length === 0 && decoded.nextFrameSize > bytesRead) {
    const large = Buffer.allocUnsafe(decoded.nextFrameSize);
    const again = await file.read(large, 0, large.length, position);
    if (again.bytesRead < large.length) return { frames: [], nextPosition: position, filled: false };
    decoded = decodeRecordFrames(large, position, 1);
  }
  const nextPosition = position + decoded.consumed;
  const filled = decoded.frames.length >= maxFrames || (bytesRead === chunkBytes && size > position + bytesRead);
  return { frames: decoded.frames, nextPosition, filled };
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

/** Where the whole frames of a file end, and where the last of them starts. */
export interface FramesTail {
  /** Byte position after the last whole frame. */
  readonly end: number;
  /** Byte position of the last whole frame; undefined when there is none. */
  readonly lastPosition: number | undefined;
}

/**
 * Walks the whole frames from `from` (a frame boundary, e.g. a previous `end`) in 1 MiB chunks
 * and returns where they end and where the last one starts; a partially written last frame is
 * left out. `lastPosition` is undefined when no whole frame starts at or after `from`.
 * @throws Error on I/O errors or a corrupt length field.
 */
export async function findFramesTail(file: FileHandle, from = 0): Promise<FramesTail> {
  const { size } = await file.stat();
  let position = from;
  let lastPosition: number | undefined;
  while (position < size) {
    const chunk = await readFileFrames(file, position, Number.MAX_SAFE_INTEGER, 1024 * 1024);
    const last = chunk.frames[chunk.frames.length - 1];
    if (!last) break;
    lastPosition = last.position;
    position = chunk.nextPosition;
  }
  return { end: position, lastPosition };
}

/**
 * The on-disk framing shared by the embedded file log (`<dataDir>/events/<topic>.log`) and the
 * Kafka adapter's spool (`<spoolDir>/spool.log`). One frame per record, all integers big-endian:
 *
 *   u32 bodyLength      bytes after this field (so a frame is 4 + bodyLength bytes)
 *   f64 timestampMs     when the log accepted the record, ms since epoch
 *   u16 topicLength     0 in topic files (the file names the topic); the topic in the spool
 *   topic               UTF-8
 *   u16 keyLength
 *   key                 UTF-8
 *   value               the rest of the body (Avro single-object encoded event)
 *
 * A reader that finds fewer than `4 + bodyLength` bytes at a position has a partially written
 * last record and waits for the rest; frames are only ever appended whole by one writer.
 */

/** A record as stored in a frame. */
export interface FramedRecord {
  /** '' in topic files. */
  readonly topic: string;
  readonly key: string;
  readonly value: Buffer;
  /** ms since epoch. */
  readonly timestamp: number;
}

/** A decoded frame and the byte position of its first byte in the file. */
export interface PositionedFrame {
  readonly position: number;
  readonly record: FramedRecord;
}

/** Result of decoding the whole frames at the start of a buffer. */
export interface DecodedFrames {
  readonly frames: PositionedFrame[];
  /** Bytes consumed by `frames` (the next frame starts there). */
  readonly consumed: number;
  /** Total size in bytes of the next, incomplete frame when its length field was readable; else 0. */
  readonly nextFrameSize: number;
}

/** Bytes of the fixed part of a frame: length, timestamp, topic length, key length. */
const FIXED_BYTES = 4 + 8 + 2 + 2;
/** Frames larger than this are taken for corruption (64 MiB). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * Encodes one record as a frame.
 * @throws RangeError when the topic or key exceeds 65535 UTF-8 bytes or the frame exceeds MAX_FRAME_BYTES.
 */
export function encodeRecordFrame(record: FramedRecord): Buffer {
  const topicBytes = Buffer.byteLength(record.topic);
  const keyBytes = Buffer.byteLength(record.key);
  if (topicBytes > 0xffff || keyBytes > 0xffff) throw new RangeError('topic or key longer than 65535 bytes');
  const size = FIXED_BYTES + topicBytes + keyBytes + record.value.length;
  if (size > MAX_FRAME_BYTES) throw new RangeError(`record of ${size} bytes exceeds ${MAX_FRAME_BYTES}`);
  const frame = Buffer.allocUnsafe(size);
  frame.writeUInt32BE(size - 4, 0);
  frame.writeDoubleBE(record.timestamp, 4);
  frame.writeUInt16BE(topicBytes, 12);
  let at = 14 + frame.write(record.topic, 14, 'utf8');
  frame.writeUInt16BE(keyBytes, at);
  at += 2;
  at += frame.write(record.key, at, 'utf8');
  record.value.copy(frame, at);
  return frame;
}

/**
 * Decodes the whole frames at the start of `buffer` (up to `maxFrames`); `basePosition` is the
 * file position of `buffer[0]`. Values are views into `buffer` (no copy).
 * @throws Error when a length field is corrupt (smaller than the fixed part or above MAX_FRAME_BYTES).
 */
export function decodeRecordFrames(buffer: Buffer, basePosition: number, maxFrames: number): DecodedFrames {
  const frames: PositionedFrame[] = [];
  let at = 0;
  while (frames.length < maxFrames && buffer.length - at >= 4) {
    const size = 4 + buffer.readUInt32BE(at);
    if (size < FIXED_BYTES || size > MAX_FRAME_BYTES)
      throw new Error(`corrupt frame length ${size} at byte ${basePosition + at}`);
    if (buffer.length - at < size) return { frames, consumed: at, nextFrameSize: size };
    frames.push({
      position: basePosition + at,
      record: decodeFrame(buffer.subarray(at, at + size), basePosition + at),
    });
    at += size;
  }
  return { frames, consumed: at, nextFrameSize: 0 };
}

function decodeFrame(frame: Buffer, position: number): FramedRecord {
  const timestamp = frame.readDoubleBE(4);
  const topicEnd = 14 + frame.readUInt16BE(12);
  if (topicEnd + 2 > frame.length) throw new Error(`corrupt topic length at byte ${position}`);
  const keyEnd = topicEnd + 2 + frame.readUInt16BE(topicEnd);
  if (keyEnd > frame.length) throw new Error(`corrupt key length at byte ${position}`);
  return {
    topic: frame.toString('utf8', 14, topicEnd),
    key: frame.toString('utf8', topicEnd + 2, keyEnd),
    value: frame.subarray(keyEnd),
    timestamp,
  };
}

/**
 * CRC-64-AVRO, the 64-bit Rabin fingerprint the Avro specification defines for schemas
 * ("Schema Fingerprints"), used by single-object encoding. (avsc's own `fingerprint()` is
 * MD5/SHA-based and is not this.)
 */
import { parsingCanonicalForm } from './parsing-canonical-form.ts';

/** The fingerprint of the empty byte string, and the polynomial of the table. */
const EMPTY = 0xc15d213aa4d7a795n;
const MASK_64 = 0xffffffffffffffffn;

const FP_TABLE: ReadonlyArray<bigint> = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & (-(fp & 1n) & MASK_64));
  return fp;
});

/**
 * The CRC-64-AVRO fingerprint of a byte string, as an unsigned 64-bit bigint
 * (e.g. the bytes of `"int"` → 0x7275d51a3f395c8fn).
 */
export function rabinFingerprint64(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const byte of bytes) {
    const index = Number((fp ^ BigInt(byte)) & 0xffn);
    fp = (fp >> 8n) ^ (FP_TABLE[index] as bigint);
  }
  return fp;
}

/**
 * The CRC-64-AVRO fingerprint of a schema: the Rabin fingerprint of the UTF-8 bytes of its
 * Parsing Canonical Form, as an unsigned 64-bit bigint.
 *
 * @throws Error when the schema is not a valid JSON Avro schema (see parsingCanonicalForm)
 */
export function schemaFingerprint64(schema: unknown): bigint {
  return rabinFingerprint64(Buffer.from(parsingCanonicalForm(schema), 'utf8'));
}

/** The 8 bytes of a 64-bit fingerprint in little-endian order, as single-object encoding writes them. */
export function fingerprintToLittleEndian(fingerprint: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(fingerprint);
  return bytes;
}

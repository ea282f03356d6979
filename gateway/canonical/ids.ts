import { randomFillSync } from 'node:crypto';

/** Bytes of randomness per id (24 hex characters). */
const ID_RANDOM_BYTES = 12;
/** Ids minted per refill of the pool: one CSPRNG call per 512 ids instead of one per id. */
const POOL_BYTES = ID_RANDOM_BYTES * 512;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;

/**
 * Mints a client-facing id: `prefix` + 24 random hex characters (e.g. `msg_3f…`), 96 bits from the
 * CSPRNG (crypto.randomFillSync into a pool that is refilled every 512 ids and never reused).
 * Ids are unique per call; clients must not parse them.
 */
export function generateId(prefix: string): string {
  if (poolOffset + ID_RANDOM_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const id = prefix + pool.toString('hex', poolOffset, poolOffset + ID_RANDOM_BYTES);
  poolOffset += ID_RANDOM_BYTES;
  return id;
}

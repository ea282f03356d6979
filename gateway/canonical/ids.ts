import { randomBytes } from 'node:crypto';

/**
 * Mints a client-facing id: `prefix` + 24 random hex characters (e.g. `msg_3f…`).
 * Ids are unique per call; clients must not parse them.
 */
export function generateId(prefix: string): string {
  return prefix + randomBytes(12).toString('hex');
}

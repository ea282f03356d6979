/**
 * Console passwords as scrypt hashes, in a self-describing text form
 * `scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>` (N=16384, r=8, p=1, 16-byte random salt,
 * 32-byte key: about 16 MiB and tens of ms per hash). Only this text ever leaves the process
 * (in UserCredentialsSet events); the password itself is never stored or logged.
 *
 * Hashing is synchronous on purpose: it runs inside the pure, synchronous control-plane commands,
 * and a password is set rarely. Verification runs on every sign-in, so it is asynchronous (the
 * libuv thread pool) and never blocks the event loop.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** The scrypt cost parameters of new hashes. */
const COST = { N: 16_384, r: 8, p: 1 } as const;
/** Salt and derived key lengths, bytes. */
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Bounds a stored hash's parameters must respect (anything else is malformed, not attempted). */
const MAX_LOG2_N = 20;
const MAX_R = 32;
const MAX_P = 16;

/** The parsed parameters of a stored hash. */
interface StoredHash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * Hashes `password` with scrypt (N=16384, r=8, p=1) and a fresh 16-byte random salt.
 * @returns `scrypt$16384$8$1$<salt base64url>$<32-byte hash base64url>`
 */
export function hashPasswordSync(password: string): string {
  const salt = randomBytes(SALT_BYTES);
  const hash = scryptSync(password.normalize('NFC'), salt, KEY_BYTES, {
    ...COST,
    maxmem: maxmemFor(COST.N, COST.r, COST.p),
  });
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/**
 * Whether `password` matches `stored` (a hashPasswordSync text; its own N, r, p are used), compared
 * in constant time. Runs scrypt on the libuv thread pool.
 * @returns false for a wrong password and for a malformed `stored` (never throws)
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStoredHash(stored);
  if (!parsed) return false;
  try {
    const derived = await scryptAsync(password.normalize('NFC'), parsed.salt, parsed.hash.length, {
      N: parsed.N,
      r: parsed.r,
      p: parsed.p,
      maxmem: maxmemFor(parsed.N, parsed.r, parsed.p),
    });
    return timingSafeEqual(derived, parsed.hash);
  } catch {
    return false;
  }
}

/**
 * A valid hash of a random password nobody knows: sign-in verifies against it when the login is
 * unknown, so an unknown login costs the same time as a wrong password.
 */
export const DUMMY_PASSWORD_HASH: string = hashPasswordSync(randomBytes(18).toString('base64url'));

/** `scrypt$N$r$p$salt$hash` → its parts; undefined when anything is off. */
function parseStoredHash(stored: string): StoredHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [, nText = '', rText = '', pText = '', saltText = '', hashText = ''] = parts;
  const [N, r, p] = [nText, rText, pText].map((text) => (/^[1-9]\d{0,7}$/.test(text) ? Number(text) : NaN)) as [
    number,
    number,
    number,
  ];
  const powerOfTwo = Number.isInteger(N) && N > 1 && (N & (N - 1)) === 0 && N <= 2 ** MAX_LOG2_N;
  if (!powerOfTwo || !(r >= 1 && r <= MAX_R) || !(p >= 1 && p <= MAX_P)) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(saltText) || !/^[A-Za-z0-9_-]+$/.test(hashText)) return undefined;
  const salt = Buffer.from(saltText, 'base64url');
  const hash = Buffer.from(hashText, 'base64url');
  if (salt.length < 8 || hash.length < 16 || hash.length > 64) return undefined;
  return { N, r, p, salt, hash };
}

/** Memory scrypt needs (128·N·r·p bytes) plus headroom; Node refuses above `maxmem`. */
function maxmemFor(N: number, r: number, p: number): number {
  return 128 * N * r * p + 4 * 1024 * 1024;
}

function scryptAsync(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, derived) => (error ? reject(error) : resolve(derived)));
  });
}

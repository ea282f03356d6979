/**
 * Admin API authentication: `Authorization: Bearer <TOLLGATE_ADMIN_TOKEN>`, compared in constant
 * time. Without a configured token the whole admin API is disabled (403). The token is never
 * logged or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AdminHttpError } from './admin-errors.ts';

/** The 403 message when no admin token is configured. */
export const ADMIN_DISABLED_MESSAGE = 'admin API disabled: set TOLLGATE_ADMIN_TOKEN';

/**
 * Builds the onRequest hook that admits a request carrying the admin token.
 * @throws AdminHttpError 403 when `adminToken` is undefined or empty (API disabled), 401 when the
 *   Authorization header is missing or not `Bearer …`, 401 when the token is wrong.
 */
export function adminAuthHook(adminToken: string | undefined): (request: FastifyRequest) => Promise<void> {
  const expected = adminToken ? sha256(adminToken) : undefined;
  return async (request) => {
    if (!expected) throw new AdminHttpError(403, ADMIN_DISABLED_MESSAGE);
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer\s+(\S.*)$/i.exec(header.trim());
    if (!match) throw new AdminHttpError(401, 'missing admin token: send Authorization: Bearer <TOLLGATE_ADMIN_TOKEN>');
    if (!timingSafeEqual(sha256(match[1]!), expected)) throw new AdminHttpError(401, 'invalid admin token');
  };
}

/** Both sides hashed to 32 bytes, so the comparison leaks neither content nor length. */
function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

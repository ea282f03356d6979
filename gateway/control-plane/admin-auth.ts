/**
 * Admin API authentication: `Authorization: Bearer <token>`, where the token is either the
 * bootstrap TOLLGATE_ADMIN_TOKEN (compared in constant time; actor `bootstrap-token`) or an active
 * personal admin token (looked up by its HMAC digest; actor = the token's name). The identity is
 * decided here only — no request header can choose it. The API is disabled (403) while neither a
 * bootstrap token is configured nor any personal token is active. Tokens are never logged or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AdminHttpError } from './admin-errors.ts';
import { ADMIN_TOKEN_PREFIX, BOOTSTRAP_TOKEN_ACTOR } from './commands-admin-tokens.ts';
import type { ControlPlaneView } from './control-plane-view.ts';
import { digestApiKey } from './key-material.ts';

/** The 403 message when the admin API is disabled. */
export const ADMIN_DISABLED_MESSAGE = 'admin API disabled: set TOLLGATE_ADMIN_TOKEN';

/** Who an admin API request acts as. */
export interface AdminIdentity {
  /** Recorded as the events' actor: the token's name, or `bootstrap-token`. */
  readonly actor: string;
  readonly auth: 'bootstrap-token' | 'admin-token';
  /** The personal token's id; null for the bootstrap token. */
  readonly tokenId: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin identity, set by the admin API's auth hook. */
    adminIdentity?: AdminIdentity;
  }
}

/** What authentication reads: personal tokens from the view, digested with the HMAC secret. */
export interface AdminAuthDeps {
  readonly view: Pick<ControlPlaneView, 'adminTokenByDigest' | 'adminTokens'>;
  readonly hmacSecret: Buffer;
  /** TOLLGATE_ADMIN_TOKEN; undefined or empty: only personal tokens are accepted. */
  readonly adminToken: string | undefined;
}

/**
 * Builds the onRequest hook that sets `request.adminIdentity` for a valid token.
 * @throws AdminHttpError 403 when the API is disabled (no bootstrap token, no active personal
 *   token), 401 when the Authorization header is missing or not `Bearer …`, 401 when the token
 *   is unknown or revoked.
 */
export function adminAuthHook(deps: AdminAuthDeps): (request: FastifyRequest) => Promise<void> {
  const expected = deps.adminToken ? sha256(deps.adminToken) : undefined;
  return async (request) => {
    if (!expected && !deps.view.adminTokens().some((t) => t.revokedAt === null))
      throw new AdminHttpError(403, ADMIN_DISABLED_MESSAGE);
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer\s+(\S.*)$/i.exec(header.trim());
    if (!match)
      throw new AdminHttpError(
        401,
        'missing admin token: send Authorization: Bearer <TOLLGATE_ADMIN_TOKEN or a personal admin token>',
      );
    const presented = match[1]!;
    if (expected && timingSafeEqual(sha256(presented), expected)) {
      request.adminIdentity = { actor: BOOTSTRAP_TOKEN_ACTOR, auth: 'bootstrap-token', tokenId: null };
      return;
    }
    const token = presented.startsWith(ADMIN_TOKEN_PREFIX)
      ? deps.view.adminTokenByDigest(digestApiKey(deps.hmacSecret, presented))
      : undefined;
    if (!token || token.revokedAt !== null) throw new AdminHttpError(401, 'invalid admin token');
    request.adminIdentity = { actor: token.name, auth: 'admin-token', tokenId: token.tokenId };
  };
}

/** The request's admin identity. @throws Error when the auth hook did not run (a wiring fault, 500). */
export function adminIdentityOf(request: FastifyRequest): AdminIdentity {
  if (!request.adminIdentity) throw new Error('admin route without the admin auth hook');
  return request.adminIdentity;
}

/** Both sides hashed to 32 bytes, so the comparison leaks neither content nor length. */
function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Console sign-in and sessions. A session is a random 256-bit token in the `tollgate_session`
 * cookie (HttpOnly, SameSite=Strict, Path=/console, Secure over HTTPS); the state store keeps
 * only its SHA-256 digest, with the user id and a CSRF secret (@fastify/csrf tokens), for 12 h
 * after the last request (sliding). Any gateway node sharing the state store accepts it.
 * Sign-in attempts are limited per login and per client address with the gateway's own GCRA
 * limiter (Redis across nodes), and an unknown login costs the same scrypt work as a known one.
 */
import { createHash, randomBytes } from 'node:crypto';
import CsrfTokens from '@fastify/csrf';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../../schemas/state-store/rate-limiter.ts';
import type { ConsoleSession, SessionStore } from '../../schemas/state-store/session-store.ts';
import type { ControlPlaneView, UserRecord } from '../control-plane/control-plane-view.ts';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../control-plane/password-hash.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'tollgate_session';
/** Idle lifetime of a session, ms (12 h). */
export const SESSION_TTL_MS = 12 * 3600 * 1000;
/** Header carrying the CSRF token on every console write. */
export const CSRF_HEADER = 'x-csrf-token';
/** Sign-in attempts allowed per minute for one login, and for one client address. */
export const SIGN_IN_LIMITS = { perLogin: 5, perAddress: 20 } as const;

/** The signed-in user of a console request. */
export interface ConsoleIdentity {
  readonly user: UserRecord;
  readonly sessionKey: string;
  readonly session: ConsoleSession;
}

/** What the user sees of themselves (CONSOLE-API.md `SessionUser`). */
export interface SessionUser {
  readonly userId: string;
  readonly name: string;
  readonly login: string | null;
  readonly role: 'admin' | 'user';
}

/** The result of a sign-in attempt. */
export type SignInResult =
  | { readonly kind: 'signed-in'; readonly token: string; readonly identity: ConsoleIdentity }
  | { readonly kind: 'refused' }
  | { readonly kind: 'throttled'; readonly retryAfterMs: number };

/** Sessions over a SessionStore, users from the control-plane view. */
export class ConsoleSessions {
  private readonly csrf = CsrfTokens();

  constructor(
    private readonly deps: {
      readonly store: SessionStore;
      readonly view: ControlPlaneView;
      readonly limiter: RateLimiter;
      readonly now?: () => number;
    },
  ) {}

  /**
   * Checks `login`/`password` (after the per-login and per-address limits) and opens a session.
   * Refused when the login is unknown, the password wrong, or the user disabled — one answer for all.
   */
  async signIn(login: string, password: string, address: string): Promise<SignInResult> {
    // Logins have at most 64 characters; longer input is cut so it cannot bloat limiter keys.
    const normalized = login.trim().toLowerCase().slice(0, 100);
    const admission = await this.deps.limiter.admit(
      [
        { scope: `console-sign-in:login:${normalized}`, rpm: SIGN_IN_LIMITS.perLogin, tpm: null },
        { scope: `console-sign-in:address:${address}`, rpm: SIGN_IN_LIMITS.perAddress, tpm: null },
      ],
      0,
    );
    if (!admission.allowed) return { kind: 'throttled', retryAfterMs: admission.retryAfterMs };
    const user = this.deps.view.userByLogin(normalized);
    const matches = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!user || !user.passwordHash || !matches || user.disabled) return { kind: 'refused' };
    const token = randomBytes(32).toString('base64url');
    const session: ConsoleSession = {
      userId: user.userId,
      csrfSecret: this.csrf.secretSync(),
      createdAt: (this.deps.now ?? Date.now)(),
      credentialsStamp: credentialsStampOf(user.passwordHash),
    };
    const sessionKey = sessionKeyOf(token);
    await this.deps.store.put(sessionKey, session, SESSION_TTL_MS);
    return { kind: 'signed-in', token, identity: { user, sessionKey, session } };
  }

  /**
   * The identity behind the request's session cookie, or undefined (no cookie, unknown or expired
   * session, user removed, disabled, or whose password changed since). Extends the session's life.
   */
  async identify(request: FastifyRequest): Promise<ConsoleIdentity | undefined> {
    const token = request.cookies?.[SESSION_COOKIE];
    if (!token) return undefined;
    const sessionKey = sessionKeyOf(token);
    const session = await this.deps.store.get(sessionKey, SESSION_TTL_MS);
    if (!session) return undefined;
    const user = this.deps.view.user(session.userId);
    if (
      !user ||
      user.disabled ||
      !user.passwordHash ||
      session.credentialsStamp !== credentialsStampOf(user.passwordHash)
    ) {
      await this.deps.store.delete(sessionKey);
      return undefined;
    }
    return { user, sessionKey, session };
  }

  /** A fresh CSRF token for the identity's session (any number may be valid at once). */
  csrfToken(identity: ConsoleIdentity): string {
    return this.csrf.create(identity.session.csrfSecret);
  }

  /** Whether `token` is a CSRF token of the identity's session. */
  verifyCsrf(identity: ConsoleIdentity, token: string | undefined): boolean {
    return typeof token === 'string' && token !== '' && this.csrf.verify(identity.session.csrfSecret, token);
  }

  /**
   * Keeps this session valid after its own user changed password (other sessions of the user
   * end: their stamp no longer matches).
   */
  async renew(identity: ConsoleIdentity): Promise<void> {
    const user = this.deps.view.user(identity.user.userId);
    if (!user?.passwordHash) return;
    await this.deps.store.put(
      identity.sessionKey,
      { ...identity.session, credentialsStamp: credentialsStampOf(user.passwordHash) },
      SESSION_TTL_MS,
    );
  }

  /** Ends the session. */
  async signOut(identity: ConsoleIdentity): Promise<void> {
    await this.deps.store.delete(identity.sessionKey);
  }
}

/** Sets the session cookie on `reply` (Secure when the request came over HTTPS). */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  void reply.setCookie(SESSION_COOKIE, token, {
    path: '/console',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    maxAge: SESSION_TTL_MS / 1000,
  });
}

/** Clears the session cookie. */
export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/console' });
}

/** What the console shows of the signed-in user. */
export function presentSessionUser(user: UserRecord): SessionUser {
  return { userId: user.userId, name: user.name, login: user.login, role: user.role };
}

/** A digest of a stored password hash (16 hex characters): changes whenever the password does. */
function credentialsStampOf(passwordHash: string | null): string {
  return createHash('sha256')
    .update(passwordHash ?? '', 'utf8')
    .digest('hex')
    .slice(0, 16);
}

/** The state-store key of a session token: its SHA-256, hex (the token itself is never stored). */
function sessionKeyOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

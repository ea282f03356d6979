/**
 * Makes sure someone can sign in to the console at start-up: the admin named by
 * TOLLGATE_ADMIN_USER / TOLLGATE_ADMIN_PASSWORD, or — when neither is set and no enabled admin can
 * sign in yet — an `admin` login with a generated password that start-gateway-node.ts prints once. Pure: returns
 * the events to append (actor `bootstrap`); an existing login is never reset from the environment.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import { eventHeader, type CommandContext } from '../control-plane/commands-common.ts';
import { credentialsEvent, loginField, passwordField } from '../control-plane/commands-credentials.ts';
import type { ControlPlaneView } from '../control-plane/control-plane-view.ts';

/** The environment variables read (empty strings count as unset). */
export interface BootstrapAdminEnv {
  readonly TOLLGATE_ADMIN_USER?: string | undefined;
  readonly TOLLGATE_ADMIN_PASSWORD?: string | undefined;
}

/** What to append, and what to tell the operator. */
export interface BootstrapAdmin {
  /** UserCreated + UserCredentialsSet of the new admin, or none. */
  readonly events: ReadonlyArray<ControlEvent>;
  /** The generated password (24 base64url characters) to print once; null when none was generated. */
  readonly generatedPassword: string | null;
  /** The login of the admin created now; null when nobody was created. */
  readonly login: string | null;
}

/** Actor of the bootstrap events. */
export const BOOTSTRAP_ACTOR = 'bootstrap';

/** When the events happen and who is recorded as their actor (default `bootstrap`). */
export type BootstrapContext = Pick<CommandContext, 'now'> & Partial<CommandContext>;

const NOTHING: BootstrapAdmin = { events: [], generatedPassword: null, login: null };

/**
 * The events that give the console an admin who can sign in.
 * - Both variables set: when no user has that login (lower-cased), a new admin user (name = the
 *   login) with that login and password; otherwise nothing.
 * - Neither set: when no enabled admin-role user has a login, a new admin with login `admin` (or
 *   `admin-2`, `admin-3`, … when taken) and a generated password (18 random bytes, base64url).
 * @param ctx `now` (ms since epoch, the events' occurredAt) and optionally `actor` (default
 *   `bootstrap`); other CommandContext fields are accepted and unused
 * @throws Error naming the variable when only one of the two is set, when TOLLGATE_ADMIN_USER is
 *   not a valid login (3–64 of a-z 0-9 . _ @ -) or TOLLGATE_ADMIN_PASSWORD not 8–200 characters
 */
export function bootstrapAdminEvents(
  view: ControlPlaneView,
  env: BootstrapAdminEnv,
  ctx: BootstrapContext,
): BootstrapAdmin {
  const user = nonEmpty(env.TOLLGATE_ADMIN_USER);
  const password = nonEmpty(env.TOLLGATE_ADMIN_PASSWORD);
  if (user !== undefined && password === undefined)
    throw new Error(
      'TOLLGATE_ADMIN_USER is set but TOLLGATE_ADMIN_PASSWORD is not: set both, or neither to get a generated admin password',
    );
  if (password !== undefined && user === undefined)
    throw new Error(
      'TOLLGATE_ADMIN_PASSWORD is set but TOLLGATE_ADMIN_USER is not: set both, or neither to get a generated admin password',
    );
  if (user !== undefined && password !== undefined) {
    const login = validLogin(user);
    if (!passwordField.safeParse(password).success)
      throw new Error('TOLLGATE_ADMIN_PASSWORD must have 8–200 characters');
    if (view.userByLogin(login)) return NOTHING;
    return { events: adminEvents(login, password, ctx), generatedPassword: null, login };
  }
  if (view.users().some((u) => u.role === 'admin' && !u.disabled && u.login !== null)) return NOTHING;
  const login = freeAdminLogin(view);
  const generated = randomBytes(18).toString('base64url');
  return { events: adminEvents(login, generated, ctx), generatedPassword: generated, login };
}

/**
 * The user id of the bootstrap admin with `login`: `usr_` + 16 hex characters of a SHA-256 of the
 * login, the same on every node — so gateway nodes bootstrapping at the same moment on a fresh
 * config topic create one user, not one each (the last password set wins; start-gateway-node.ts checks which).
 */
export function bootstrapAdminUserId(login: string): string {
  return `usr_${createHash('sha256').update(`bootstrap-admin:${login}`, 'utf8').digest('hex').slice(0, 16)}`;
}

/** UserCreated (role admin, no limits, name = login) + UserCredentialsSet. */
function adminEvents(login: string, password: string, context: BootstrapContext): ControlEvent[] {
  const ctx = { now: context.now, actor: context.actor ?? BOOTSTRAP_ACTOR };
  const userId = bootstrapAdminUserId(login);
  const created: ControlEvent = {
    type: 'UserCreated',
    event: { ...eventHeader(ctx), userId, name: login, role: 'admin', rpm: null, tpm: null, quotaNanoUsd: null },
  };
  return [created, credentialsEvent(ctx, userId, { login, password })];
}

/** `admin`, else the first free `admin-<n>` (n ≥ 2). */
function freeAdminLogin(view: ControlPlaneView): string {
  if (!view.userByLogin('admin')) return 'admin';
  for (let n = 2; ; n += 1) {
    if (!view.userByLogin(`admin-${n}`)) return `admin-${n}`;
  }
}

/** TOLLGATE_ADMIN_USER as a login (trimmed, lower-cased). @throws Error naming the variable */
function validLogin(text: string): string {
  const parsed = loginField.safeParse(text);
  if (!parsed.success) throw new Error('TOLLGATE_ADMIN_USER must be a login of 3–64 characters: a-z 0-9 . _ @ -');
  return parsed.data;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

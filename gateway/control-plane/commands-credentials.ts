/**
 * Console sign-in credentials of users: the login and password rules (zod), the check that a login
 * is free, the UserCredentialsSet event (password hashed with scrypt here, never carried in
 * clear), and the self-service password change. createUser/updateUser (commands-users.ts) and the
 * admin bootstrap (gateway/console/bootstrap-admin.ts) build on these.
 */
import { z } from 'zod';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import { eventHeader, fail, parseInput, type CommandContext, type CommandResult } from './commands-common.ts';
import type { ControlPlaneView } from './control-plane-view.ts';
import { hashPasswordSync } from './password-hash.ts';

/** A login after trim + lower-case: 3–64 characters of `[a-z0-9._@-]`. */
export const LOGIN_PATTERN = /^[a-z0-9._@-]{3,64}$/;

/** A console login: trimmed, lower-cased, then LOGIN_PATTERN. */
export const loginField = z
  .string({ error: 'use 3–64 characters: a-z 0-9 . _ @ -' })
  .trim()
  .toLowerCase()
  .regex(LOGIN_PATTERN, 'use 3–64 characters: a-z 0-9 . _ @ -');

/** A console password: 8–200 characters, kept as typed (no trimming). */
export const passwordField = z
  .string()
  .min(8, 'must have at least 8 characters')
  .max(200, 'must have at most 200 characters');

/**
 * The login and password a command sets, when it sets any: `password` in clear (hashed by
 * credentialsEvent) or `passwordHash` to keep the current one.
 */
export type CredentialsChange = { readonly login: string } & (
  { readonly password: string } | { readonly passwordHash: string }
);

/**
 * Refuses a login another user holds.
 * @throws CommandError 409 `login '<login>' is already taken` on field `login`
 */
export function requireLoginFree(view: ControlPlaneView, login: string, userId: string | undefined): void {
  const holder = view.userByLogin(login);
  if (holder && holder.userId !== userId) fail(409, `login '${login}' is already taken`, 'login');
}

/** The UserCredentialsSet event for `userId` (hashing `change.password` with scrypt, ~50 ms). */
export function credentialsEvent(
  ctx: Pick<CommandContext, 'now' | 'actor'>,
  userId: string,
  change: CredentialsChange,
): ControlEvent {
  const passwordHash = 'password' in change ? hashPasswordSync(change.password) : change.passwordHash;
  return {
    type: 'UserCredentialsSet',
    event: { ...eventHeader(ctx), userId, login: change.login.toLowerCase(), passwordHash },
  };
}

/**
 * Sets a new console password for `userId`, keeping the login (self-service password change; the
 * caller has checked the current password).
 * @param newPassword 8–200 characters
 * @returns one UserCredentialsSet event; result `{ userId }`
 * @throws CommandError 400 `newPassword: …` for a bad password, 404 unknown user (field `id`),
 *   409 when the user has no login (field `id`)
 */
export function setUserPassword(
  view: ControlPlaneView,
  userId: string,
  newPassword: unknown,
  ctx: CommandContext,
): CommandResult<{ userId: string }> {
  const user = view.user(userId) ?? fail(404, `user '${userId}' not found`, 'id');
  const { newPassword: password } = parseInput(z.object({ newPassword: passwordField }), { newPassword });
  if (user.login === null) fail(409, `user '${userId}' has no login: an admin must set one first`, 'id');
  return { events: [credentialsEvent(ctx, userId, { login: user.login, password })], result: { userId } };
}

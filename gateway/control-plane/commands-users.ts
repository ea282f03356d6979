/**
 * User commands: create and update, including the console login and password. Each validates its
 * input (zod, strict) against the current ControlPlaneView and returns the events to append;
 * nothing is written here. Passwords leave only as scrypt hashes (UserCredentialsSet).
 */
import { z } from 'zod';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import type { UserRecord, ControlPlaneView } from './control-plane-view.ts';
import {
  eventHeader,
  fail,
  limitField,
  nameField,
  newEntityId,
  parseInput,
  requireSomeField,
  usdField,
  type CommandContext,
  type CommandResult,
} from './commands-common.ts';
import {
  credentialsEvent,
  loginField,
  passwordField,
  requireLoginFree,
  type CredentialsChange,
} from './commands-credentials.ts';

export { setUserPassword } from './commands-credentials.ts';

const roleField = z.enum(['admin', 'user'], { error: "must be 'admin' or 'user'" });

/**
 * Body of `createUser`: `{ name, role?: 'admin'|'user' (default user), rpm?, tpm?, quotaUsd?,
 * login?, password? }` — login and password go together.
 */
export const createUserInput = z
  .object({
    name: nameField,
    role: roleField.default('user'),
    rpm: limitField.default(null),
    tpm: limitField.default(null),
    quotaUsd: usdField.default(null),
    login: loginField.optional(),
    password: passwordField.optional(),
  })
  .strict();

/** Body of `updateUser`: any of name, role, rpm, tpm, quotaUsd (null = unlimited), disabled, login, password. */
export const updateUserInput = z
  .object({
    name: nameField.optional(),
    role: roleField.optional(),
    rpm: limitField.optional(),
    tpm: limitField.optional(),
    quotaUsd: usdField.optional(),
    disabled: z.boolean({ error: 'must be true or false' }).optional(),
    login: loginField.optional(),
    password: passwordField.optional(),
  })
  .strict();

/**
 * Creates a user with a fresh id (`usr_…`). Limits are per minute (null = unlimited), the quota
 * is USD (≤ 9 decimals) stored as nano-USD. With `login` and `password` the user can sign in to
 * the console (login trimmed and lower-cased, 3–64 of `[a-z0-9._@-]`; password 8–200 characters).
 * @returns UserCreated, then UserCredentialsSet when a login is given; result `{ userId }`.
 * @throws CommandError 400 for bad input or a login without a password (or the reverse),
 *   409 `login '<login>' is already taken` (field `login`).
 */
export function createUser(
  view: ControlPlaneView,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ userId: string }> {
  const body = parseInput(createUserInput, input);
  if (body.login !== undefined && body.password === undefined)
    fail(400, 'password: is required with a login', 'password');
  if (body.password !== undefined && body.login === undefined) fail(400, 'login: is required with a password', 'login');
  if (body.login !== undefined) requireLoginFree(view, body.login, undefined);
  const userId = newEntityId('usr_');
  const event = {
    ...eventHeader(ctx),
    userId,
    name: body.name,
    role: body.role,
    rpm: body.rpm,
    tpm: body.tpm,
    quotaNanoUsd: body.quotaUsd === null ? null : body.quotaUsd.toString(),
  };
  const events: ControlEvent[] = [{ type: 'UserCreated', event }];
  if (body.login !== undefined && body.password !== undefined)
    events.push(credentialsEvent(ctx, userId, { login: body.login, password: body.password }));
  return { events, result: { userId } };
}

/**
 * Updates a user: the given fields replace the current ones; the rest are kept. A password alone
 * keeps the current login; a login alone keeps the current password.
 * @returns UserUpdated (full new state) when a setting other than login/password is given, then
 *   UserCredentialsSet when login or password is; result `{ userId }`.
 * @throws CommandError 404 unknown user (field `id`), 400 bad input, an empty body, a login for a
 *   user without a password (`password: is required to set a login`) or a password for a user
 *   without a login (`login: is required to set a password`), 409 login taken by another user.
 */
export function updateUser(
  view: ControlPlaneView,
  userId: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ userId: string }> {
  const current = requireUser(view, userId, 'id');
  const { login, password, ...settings } = parseInput(updateUserInput, input);
  requireSomeField({ login, password, ...settings });
  const credentials = credentialsChange(view, current, login, password);
  const events: ControlEvent[] = [];
  if (Object.values(settings).some((v) => v !== undefined))
    events.push({ type: 'UserUpdated', event: updatedUserEvent(current, settings, ctx) });
  if (credentials) events.push(credentialsEvent(ctx, userId, credentials));
  return { events, result: { userId } };
}

/**
 * The user `userId`.
 * @throws CommandError 404 `user '<id>' not found` on `field`.
 */
export function requireUser(view: ControlPlaneView, userId: string, field: string): UserRecord {
  return view.user(userId) ?? fail(404, `user '${userId}' not found`, field);
}

type UserSettings = Omit<z.output<typeof updateUserInput>, 'login' | 'password'>;

/** The UserUpdated body: `settings` over `current`. */
function updatedUserEvent(current: UserRecord, settings: UserSettings, ctx: CommandContext) {
  const quota = settings.quotaUsd === undefined ? current.quotaNanoUsd : settings.quotaUsd;
  return {
    ...eventHeader(ctx),
    userId: current.userId,
    name: settings.name ?? current.name,
    role: settings.role ?? current.role,
    rpm: settings.rpm === undefined ? current.rpm : settings.rpm,
    tpm: settings.tpm === undefined ? current.tpm : settings.tpm,
    quotaNanoUsd: quota === null ? null : quota.toString(),
    disabled: settings.disabled ?? current.disabled,
  };
}

/** What an update sets of the credentials, completed from `current`; undefined when neither is given or the login alone is unchanged. */
function credentialsChange(
  view: ControlPlaneView,
  current: UserRecord,
  login: string | undefined,
  password: string | undefined,
): CredentialsChange | undefined {
  if (login === undefined && password === undefined) return undefined;
  const newLogin = login ?? current.login ?? fail(400, 'login: is required to set a password', 'login');
  requireLoginFree(view, newLogin, current.userId);
  if (password !== undefined) return { login: newLogin, password };
  // The console's edit form sends the login as it is: an unchanged login alone changes nothing.
  if (newLogin === current.login) return undefined;
  return {
    login: newLogin,
    passwordHash: current.passwordHash ?? fail(400, 'password: is required to set a login', 'password'),
  };
}

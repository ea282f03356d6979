/**
 * User commands: create and update. Each validates its input (zod, strict) against the current
 * ControlPlaneView and returns the events to append; nothing is written here.
 */
import { z } from 'zod';
import type { UserRecord, ControlPlaneView } from './control-plane-view.ts';
import { eventHeader, fail, limitField, nameField, newEntityId, parseInput, requireSomeField, usdField, type CommandContext, type CommandResult } from './commands-common.ts';

const roleField = z.enum(['admin', 'user'], { error: "must be 'admin' or 'user'" });

/** Body of `createUser`: `{ name, role?: 'admin'|'user' (default user), rpm?, tpm?, quotaUsd? }`. */
export const createUserInput = z
  .object({
    name: nameField,
    role: roleField.default('user'),
    rpm: limitField.default(null),
    tpm: limitField.default(null),
    quotaUsd: usdField.default(null),
  })
  .strict();

/** Body of `updateUser`: any of name, role, rpm, tpm, quotaUsd (null = unlimited), disabled. */
export const updateUserInput = z
  .object({
    name: nameField.optional(),
    role: roleField.optional(),
    rpm: limitField.optional(),
    tpm: limitField.optional(),
    quotaUsd: usdField.optional(),
    disabled: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .strict();

/**
 * Creates a user with a fresh id (`usr_…`). Limits are per minute (null = unlimited), the quota
 * is USD (≤ 9 decimals) stored as nano-USD.
 * @returns one UserCreated event; result `{ userId }`.
 * @throws CommandError 400 for bad input.
 */
export function createUser(_view: ControlPlaneView, input: unknown, ctx: CommandContext): CommandResult<{ userId: string }> {
  const body = parseInput(createUserInput, input);
  const userId = newEntityId('usr_');
  const event = { ...eventHeader(ctx), userId, name: body.name, role: body.role, rpm: body.rpm, tpm: body.tpm, quotaNanoUsd: body.quotaUsd === null ? null : body.quotaUsd.toString() };
  return { events: [{ type: 'UserCreated', event }], result: { userId } };
}

/**
 * Updates a user: the given fields replace the current ones; the rest are kept.
 * @returns one UserUpdated event carrying the full new state; result `{ userId }`.
 * @throws CommandError 404 unknown user (field `id`), 400 bad input or an empty body.
 */
export function updateUser(view: ControlPlaneView, userId: string, input: unknown, ctx: CommandContext): CommandResult<{ userId: string }> {
  const current = requireUser(view, userId, 'id');
  const body = parseInput(updateUserInput, input);
  requireSomeField(body);
  const quota = body.quotaUsd === undefined ? current.quotaNanoUsd : body.quotaUsd;
  const event = {
    ...eventHeader(ctx),
    userId,
    name: body.name ?? current.name,
    role: body.role ?? current.role,
    rpm: body.rpm === undefined ? current.rpm : body.rpm,
    tpm: body.tpm === undefined ? current.tpm : body.tpm,
    quotaNanoUsd: quota === null ? null : quota.toString(),
    disabled: body.disabled ?? current.disabled,
  };
  return { events: [{ type: 'UserUpdated', event }], result: { userId } };
}

/**
 * The user `userId`.
 * @throws CommandError 404 `user '<id>' not found` on `field`.
 */
export function requireUser(view: ControlPlaneView, userId: string, field: string): UserRecord {
  return view.user(userId) ?? fail(404, `user '${userId}' not found`, field);
}

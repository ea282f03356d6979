/**
 * API-key commands: create (the full key is returned once, only its HMAC digest is published),
 * update, revoke and rotate. Each validates its input (zod, strict) against the current
 * ControlPlaneView and returns the events to append; nothing is written here.
 */
import { z } from 'zod';
import type {
  ControlEventHeader,
  DecodedKeyCreated,
  DecodedKeyUpdated,
  KeyCreated,
  KeyUpdated,
} from '../../schemas/control-plane/control-plane-events.ts';
import type { ControlPlaneView, KeyRecord } from './control-plane-view.ts';
import { mintApiKey } from './key-material.ts';
import {
  eventHeader,
  fail,
  isoTimeField,
  limitField,
  modelsField,
  nameField,
  parseInput,
  requireFuture,
  requireSomeField,
  usdField,
  type CommandContext,
  type CommandResult,
} from './commands-common.ts';
import { requireUser } from './commands-users.ts';
import { requireTeam } from './commands-teams.ts';
import { entityRefField, modelLimitsField, tagsField } from './commands-limits-and-tags.ts';

/** Longest rotation grace period: 30 days, in seconds. */
export const MAX_GRACE_SECONDS = 30 * 24 * 3600;

/**
 * Body of `createKey`: `{ name, userId?, teamId?, rpm?, tpm?, rpd?, tpd?, quotaUsd?, expiresAt?
 * (ISO-8601, future), models?, modelLimits?, tags? }`. A key may have a user, a team, both, or
 * neither; a service key has a team alone.
 */
export const createKeyInput = z
  .object({
    name: nameField,
    userId: z
      .string({ error: 'must be a user id string or null' })
      .min(1, 'must not be empty')
      .nullable()
      .default(null),
    teamId: entityRefField.default(null),
    rpm: limitField.default(null),
    tpm: limitField.default(null),
    rpd: limitField.default(null),
    tpd: limitField.default(null),
    quotaUsd: usdField.default(null),
    expiresAt: isoTimeField.default(null),
    models: modelsField.default(null),
    modelLimits: modelLimitsField.default([]),
    tags: tagsField.default([]),
  })
  .strict();

/**
 * Body of `updateKey`: any of name, teamId, rpm, tpm, rpd, tpd, quotaUsd, expiresAt, models (null
 * clears), modelLimits, tags, enabled.
 */
export const updateKeyInput = z
  .object({
    name: nameField.optional(),
    teamId: entityRefField.optional(),
    rpm: limitField.optional(),
    tpm: limitField.optional(),
    rpd: limitField.optional(),
    tpd: limitField.optional(),
    quotaUsd: usdField.optional(),
    expiresAt: isoTimeField.optional(),
    models: modelsField.optional(),
    modelLimits: modelLimitsField.optional(),
    tags: tagsField.optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .strict();

/** Body of `revokeKey`: `{ reason?: string }`. */
export const revokeKeyInput = z
  .object({
    reason: z
      .string({ error: 'must be a string or null' })
      .max(500, 'must be at most 500 characters')
      .nullable()
      .default(null),
  })
  .strict();

/** Body of `rotateKey`: `{ graceSeconds?: integer 0…2 592 000 }` (default 0: the old key stops at once). */
export const rotateKeyInput = z
  .object({
    graceSeconds: z
      .number({ error: 'must be a whole number of seconds' })
      .int('must be a whole number of seconds')
      .min(0, 'must be ≥ 0')
      .max(MAX_GRACE_SECONDS, `must be at most ${MAX_GRACE_SECONDS} (30 days)`)
      .default(0),
  })
  .strict();

/** Result of creating or rotating a key: its id and the full key, shown only this once. */
export interface MintedKey {
  readonly keyId: string;
  /** `sk-<publicId>-<secret>`: never stored, never published. */
  readonly apiKey: string;
}

/**
 * Creates a key, owned by `userId` and/or `teamId` when given. Limits per minute and per day
 * (null = unlimited), quota in USD (≤ 9 decimals, stored as nano-USD), expiry an ISO-8601 time in
 * the future, models an allowlist (within the team's, when the team has one), per-model limits,
 * default tags.
 * @returns one KeyCreated event (digest only); result `{ keyId, apiKey }`.
 * @throws CommandError 400 bad input, past expiry, unknown team (field `teamId`) or a model
 *   outside the team's (field `models`); 404 unknown user (field `userId`).
 */
export function createKey(view: ControlPlaneView, input: unknown, ctx: CommandContext): CommandResult<MintedKey> {
  const body = parseInput(createKeyInput, input);
  if (body.userId !== null) requireUser(view, body.userId, 'userId');
  requireFuture(body.expiresAt, ctx.now, 'expiresAt');
  requireModelsWithinTeam(view, body.teamId, body.models);
  const settings: KeySettings = {
    name: body.name,
    userId: body.userId,
    teamId: body.teamId,
    rpm: body.rpm,
    tpm: body.tpm,
    rpd: body.rpd,
    tpd: body.tpd,
    quotaNanoUsd: body.quotaUsd === null ? null : body.quotaUsd.toString(),
    expiresAt: body.expiresAt,
    models: body.models,
    modelLimits: body.modelLimits,
    tags: body.tags,
  };
  const { event, apiKey } = mintKeyCreated(settings, ctx);
  return { events: [{ type: 'KeyCreated', event }], result: { keyId: event.keyId, apiKey } };
}

/**
 * Updates a key: the given fields replace the current ones; `null` clears a limit, the quota, the
 * expiry, the allowlist or the team.
 * @returns one KeyUpdated event with the full new state; result `{ keyId }`.
 * @throws CommandError 404 unknown key (field `id`), 409 revoked key, 400 bad input, past expiry,
 *   empty body, unknown team (field `teamId`) or a model outside the team's (field `models`).
 */
export function updateKey(
  view: ControlPlaneView,
  keyRef: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ keyId: string }> {
  const current = requireKey(view, keyRef);
  const body = parseInput(updateKeyInput, input);
  requireSomeField(body);
  if (isRevoked(current, ctx.now)) fail(409, `key '${current.keyId}' is revoked and cannot be changed`, 'id');
  requireFuture(body.expiresAt, ctx.now, 'expiresAt');
  const kept = keyUpdatedBody(current);
  const changed = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  const { quotaUsd, ...settings } = changed as Partial<typeof body>;
  const event: KeyUpdated = {
    ...eventHeader(ctx),
    ...kept,
    ...settings,
    ...(quotaUsd === undefined ? {} : { quotaNanoUsd: quotaUsd === null ? null : quotaUsd.toString() }),
  };
  if (body.teamId !== undefined || body.models !== undefined)
    requireModelsWithinTeam(view, event.teamId ?? null, event.models);
  return { events: [{ type: 'KeyUpdated', event }], result: { keyId: current.keyId } };
}

/**
 * Revokes a key now (a key still in a rotation grace period is cut off now).
 * @returns one KeyRevoked event (effectiveAt = now); result `{ keyId }`.
 * @throws CommandError 404 unknown key, 409 already revoked, 400 bad input.
 */
export function revokeKey(
  view: ControlPlaneView,
  keyRef: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ keyId: string }> {
  const current = requireKey(view, keyRef);
  const body = parseInput(revokeKeyInput, input);
  if (isRevoked(current, ctx.now)) fail(409, `key '${current.keyId}' is already revoked`, 'id');
  const event = { ...eventHeader(ctx), keyId: current.keyId, effectiveAt: ctx.now, reason: body.reason };
  return { events: [{ type: 'KeyRevoked', event }], result: { keyId: current.keyId } };
}

/**
 * Rotates a key: a new key with the same settings (name, owner, limits, quota, expiry, models,
 * and disabled state) and a new secret, and the old key revoked at now + graceSeconds.
 * @returns KeyCreated (+ KeyUpdated when the old key was disabled) + KeyRevoked; result
 *   `{ keyId, apiKey, replacedKeyId }`.
 * @throws CommandError 404 unknown key, 409 revoked / being revoked / expired key, 400 bad input.
 */
export function rotateKey(
  view: ControlPlaneView,
  keyRef: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<MintedKey & { replacedKeyId: string }> {
  const old = requireKey(view, keyRef);
  const body = parseInput(rotateKeyInput, input);
  if (old.revokedAt !== null)
    fail(
      409,
      `key '${old.keyId}' is already ${isRevoked(old, ctx.now) ? 'revoked' : 'being revoked'} and cannot be rotated`,
      'id',
    );
  if (old.expiresAt !== null && old.expiresAt <= ctx.now)
    fail(409, `key '${old.keyId}' has expired and cannot be rotated: create a new key`, 'id');
  const { keyId: _oldKeyId, enabled, ...settings } = keyUpdatedBody(old);
  const { event: created, apiKey } = mintKeyCreated({ ...settings, userId: old.userId }, ctx);
  const reason = `rotated to ${created.keyId}`;
  const revoked = { ...eventHeader(ctx), keyId: old.keyId, effectiveAt: ctx.now + body.graceSeconds * 1000, reason };
  const disable: KeyUpdated | undefined = enabled
    ? undefined
    : { ...eventHeader(ctx), ...settings, keyId: created.keyId, enabled: false };
  return {
    events: [
      { type: 'KeyCreated', event: created },
      ...(disable ? [{ type: 'KeyUpdated' as const, event: disable }] : []),
      { type: 'KeyRevoked', event: revoked },
    ],
    result: { keyId: created.keyId, apiKey, replacedKeyId: old.keyId },
  };
}

/**
 * The key whose id (`key_…`) or public id is `keyRef`.
 * @throws CommandError 404 `key '<ref>' not found` (field `id`).
 */
export function requireKey(view: ControlPlaneView, keyRef: string): KeyRecord {
  return (
    view.key(keyRef) ?? view.keys().find((k) => k.publicId === keyRef) ?? fail(404, `key '${keyRef}' not found`, 'id')
  );
}

/** Whether the key's revocation has taken effect at `now` (ms). */
export function isRevoked(key: KeyRecord, now: number): boolean {
  return key.revokedAt !== null && key.revokedAt <= now;
}

/** A key's settings as a KeyCreated carries them (everything but the header and the key material). */
type KeySettings = Omit<DecodedKeyCreated, keyof ControlEventHeader | 'keyId' | 'publicId' | 'digest'>;

/**
 * Every setting of `key` as a KeyUpdated body (everything kept: the full replacement that
 * changes nothing), for commands that change one setting.
 */
export function keyUpdatedBody(key: KeyRecord): Omit<DecodedKeyUpdated, keyof ControlEventHeader> {
  return {
    keyId: key.keyId,
    name: key.name,
    teamId: key.teamId,
    rpm: key.rpm,
    tpm: key.tpm,
    rpd: key.rpd,
    tpd: key.tpd,
    quotaNanoUsd: key.quotaNanoUsd === null ? null : key.quotaNanoUsd.toString(),
    expiresAt: key.expiresAt,
    models: key.models === null ? null : [...key.models],
    modelLimits: key.modelLimits,
    tags: key.tags,
    enabled: key.enabled,
  };
}

/**
 * Refuses a key whose allowlist names a model outside its team's allowlist (a key without an
 * allowlist, or in a team without one, reaches what the team allows).
 * @throws CommandError 400 on `teamId` for an unknown team, on `models` naming the first model outside.
 */
function requireModelsWithinTeam(
  view: ControlPlaneView,
  teamId: string | null,
  models: ReadonlyArray<string> | null,
): void {
  if (teamId === null) return;
  const team = requireTeam(view, teamId, 'teamId');
  if (team.models === null || models === null) return;
  const outside = models.find((model) => !team.models!.has(model));
  if (outside !== undefined) fail(400, `models: '${outside}' is not among the models of team '${teamId}'`, 'models');
}

/** Mints a new secret and builds its KeyCreated event (`keyId` = `key_<publicId>`). */
function mintKeyCreated(settings: KeySettings, ctx: CommandContext): { event: KeyCreated; apiKey: string } {
  const minted = mintApiKey(ctx.secrets.hmacSecret);
  const event: KeyCreated = {
    ...eventHeader(ctx),
    keyId: `key_${minted.publicId}`,
    publicId: minted.publicId,
    digest: minted.digest,
    ...settings,
  };
  return { event, apiKey: minted.key };
}

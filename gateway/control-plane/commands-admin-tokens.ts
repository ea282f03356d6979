/**
 * Personal admin tokens: an admin API credential that names its holder. A token looks like
 * `tga-<40 base62>` (≈238 random bits); only its HMAC-SHA-256 digest under
 * TOLLGATE_KEY_HMAC_SECRET is stored or published (AdminTokenCreated), like API keys, and the token
 * is shown once, at creation. Every change made with it is recorded with the token's `name` as
 * actor. Revocation is final.
 */
import { z } from 'zod';
import {
  eventHeader,
  fail,
  newEntityId,
  parseInput,
  type CommandContext,
  type CommandResult,
} from './commands-common.ts';
import type { AdminTokenRecord, ControlPlaneView } from './control-plane-view.ts';
import { digestApiKey, randomBase62 } from './key-material.ts';

/** Prefix of every personal admin token. */
export const ADMIN_TOKEN_PREFIX = 'tga-';

/** The actor recorded for changes made with TOLLGATE_ADMIN_TOKEN. */
export const BOOTSTRAP_TOKEN_ACTOR = 'bootstrap-token';

/** Names no token may take: they already mean another kind of actor in the audit. */
export const RESERVED_ACTOR_NAMES: ReadonlySet<string> = new Set([
  BOOTSTRAP_TOKEN_ACTOR,
  'bootstrap',
  'config-file',
  'admin',
  'cli',
]);

/** Body of createAdminToken: `name`, trimmed and lower-cased, 3–64 of `a-z 0-9 . _ @ -`. */
export const createAdminTokenInput = z
  .object({
    name: z
      .string({ error: 'use 3–64 characters: a-z 0-9 . _ @ -' })
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9._@-]{3,64}$/, 'use 3–64 characters: a-z 0-9 . _ @ -'),
  })
  .strict();

const revokeAdminTokenInput = z
  .object({ reason: z.string().max(500, 'must be at most 500 characters').nullable().default(null) })
  .strict();

/** A new token: `token` is secret (show once); `tokenId` may be shown and stored. */
export interface MintedAdminToken {
  readonly tokenId: string;
  readonly token: string;
}

/**
 * Creates a personal admin token for `name`.
 * @returns one AdminTokenCreated (digest only); result `{ tokenId, token }`.
 * @throws CommandError 400 bad or reserved name (`bootstrap-token`, `bootstrap`, `config-file`,
 *   `admin`, `cli`), unknown field; 409 an active token already has that name.
 */
export function createAdminToken(
  view: ControlPlaneView,
  input: unknown,
  ctx: CommandContext,
): CommandResult<MintedAdminToken> {
  const { name } = parseInput(createAdminTokenInput, input);
  if (RESERVED_ACTOR_NAMES.has(name)) fail(400, `name: '${name}' is reserved`, 'name');
  if (view.adminTokens().some((t) => t.name === name && t.revokedAt === null))
    fail(409, `name: an active admin token is already named '${name}' (revoke it first)`, 'name');
  const token = ADMIN_TOKEN_PREFIX + randomBase62(40);
  const tokenId = newEntityId('adm_');
  const event = { ...eventHeader(ctx), tokenId, name, digest: digestApiKey(ctx.secrets.hmacSecret, token) };
  return { events: [{ type: 'AdminTokenCreated', event }], result: { tokenId, token } };
}

/**
 * Revokes a personal admin token for good; body `{ reason? }`.
 * @returns one AdminTokenRevoked; result `{ tokenId }`.
 * @throws CommandError 404 unknown token id, 409 already revoked, 400 bad input.
 */
export function revokeAdminToken(
  view: ControlPlaneView,
  tokenId: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ tokenId: string }> {
  const current = requireAdminToken(view, tokenId);
  const { reason } = parseInput(revokeAdminTokenInput, input);
  if (current.revokedAt !== null) fail(409, `admin token '${tokenId}' is already revoked`, 'id');
  return {
    events: [{ type: 'AdminTokenRevoked', event: { ...eventHeader(ctx), tokenId, reason } }],
    result: { tokenId },
  };
}

/** The token with id `tokenId`. @throws CommandError 404. */
export function requireAdminToken(view: ControlPlaneView, tokenId: string): AdminTokenRecord {
  return view.adminTokens().find((t) => t.tokenId === tokenId) ?? fail(404, `admin token '${tokenId}' not found`, 'id');
}

/**
 * Console key routes (CONSOLE-API.md "Keys"): list, create, edit, revoke, rotate. Admins see
 * every key; a user sees the keys they own and the keys of their teams, and manages their own and,
 * as team admin, their team's (a key they cannot see answers 404, as if it did not exist; a team
 * key a member sees read-only answers 403 to a change). Rows add the owner's and team's names, the
 * spend so far (state store, the counter quota checks use) and when the key was last used
 * (consumption log).
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { AdminHttpError } from '../control-plane/admin-errors.ts';
import { keyStatus, presentKey, type KeyView } from '../control-plane/admin-presenters.ts';
import { createKey, requireKey, revokeKey, rotateKey, updateKey } from '../control-plane/commands.ts';
import { fail, nanoToUsd } from '../control-plane/commands-common.ts';
import type { KeyRecord } from '../control-plane/control-plane-view.ts';
import {
  canManageKey,
  canSeeKey,
  CONSOLE_API_PREFIX,
  identityOf,
  isAdmin,
  pageOf,
  paginate,
  queryText,
  runAsUser,
  teamAccess,
  type ConsoleDeps,
} from './console-context.ts';
import { queryLastUsed } from './usage-queries.ts';

/** A key as the console lists it. */
export interface KeyRow extends KeyView {
  readonly ownerName: string | null;
  /** The name of the key's team; null when it has none. */
  readonly teamName: string | null;
  /** Whether the signed-in user may edit, revoke and rotate it (false: they see it read-only as a team member). */
  readonly canManage: boolean;
  /** USD spent (decimal text). */
  readonly spentUsd: string;
  /** ISO-8601, or null when never used (or the analytics store is unavailable). */
  readonly lastUsedAt: string | null;
}

/** Registers `/console/api/keys…` on `app`. */
export function registerConsoleKeyRoutes(
  app: FastifyInstance,
  options: RouteShorthandOptions,
  deps: ConsoleDeps,
): void {
  const prefix = `${CONSOLE_API_PREFIX}/keys`;
  const rowOf = async (request: FastifyRequest, keyId: string) =>
    (await keyRows(deps, request, [deps.view.key(keyId) ?? fail(404, `key '${keyId}' not found`, 'id')]))[0]!;
  app.get(prefix, options, async (request) => {
    const q = queryText(request, 'q')?.toLowerCase();
    const status = queryText(request, 'status');
    const owner = queryText(request, 'userId');
    const team = queryText(request, 'teamId');
    const now = deps.now();
    const visible = deps.view
      .keys()
      .filter((key) => canSeeKey(deps, request, key))
      .filter(
        (key) =>
          (owner === undefined || key.userId === owner) &&
          (team === undefined || key.teamId === team) &&
          (status === undefined || keyStatus(key, now) === status),
      )
      .filter((key) => q === undefined || key.name.toLowerCase().includes(q) || key.publicId.toLowerCase().includes(q))
      .sort((a, b) => b.createdAt - a.createdAt || a.keyId.localeCompare(b.keyId));
    const { items, total } = paginate(visible, pageOf(request));
    return { keys: await keyRows(deps, request, items), total };
  });
  app.post(prefix, options, async (request, reply) => {
    const body = ownBody(deps, request);
    const { keyId, apiKey } = await runAsUser(deps, request, (ctx) => createKey(deps.view, body, ctx));
    return reply.code(201).send({ key: await rowOf(request, keyId), apiKey });
  });
  app.patch(`${prefix}/:id`, options, async (request) => {
    const key = visibleKey(deps, request);
    checkTeamChange(deps, request, key);
    const { keyId } = await runAsUser(deps, request, (ctx) => updateKey(deps.view, key.keyId, request.body, ctx));
    return { key: await rowOf(request, keyId) };
  });
  app.post(`${prefix}/:id/revoke`, options, async (request) => {
    const key = visibleKey(deps, request);
    const { keyId } = await runAsUser(deps, request, (ctx) => revokeKey(deps.view, key.keyId, request.body, ctx));
    return { key: await rowOf(request, keyId) };
  });
  app.post(`${prefix}/:id/rotate`, options, async (request, reply) => {
    const key = visibleKey(deps, request);
    const { keyId, apiKey, replacedKeyId } = await runAsUser(deps, request, (ctx) =>
      rotateKey(deps.view, key.keyId, request.body, ctx),
    );
    return reply
      .code(201)
      .send({ key: await rowOf(request, keyId), apiKey, replaced: await rowOf(request, replacedKeyId) });
  });
}

/**
 * The key named by `:id` (key id or public id) that the request's user may change.
 * @throws CommandError 404 when unknown or not visible to them; AdminHttpError 403 when they see
 *   it only as a member of its team.
 */
function visibleKey(deps: ConsoleDeps, request: FastifyRequest): KeyRecord {
  const ref = (request.params as { id: string }).id;
  const key = requireKey(deps.view, ref);
  if (!canSeeKey(deps, request, key)) fail(404, `key '${ref}' not found`, 'id');
  if (!canManageKey(deps, request, key))
    throw new AdminHttpError(403, `only an admin of team '${key.teamId}' may change this key`);
  return key;
}

/**
 * The create body with the owner settled. An admin's body is passed on as it is (null or absent
 * = no owner). A user's key without a team is always their own (403 for another user id). A key
 * of a team needs the user to be that team's admin (403 otherwise); its owner is the user unless
 * the body says `userId: null` (a service key, the team's alone) or names another member of the team.
 */
function ownBody(deps: ConsoleDeps, request: FastifyRequest): unknown {
  const body = request.body;
  if (isAdmin(request) || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const self = identityOf(request).user.userId;
  const { userId, teamId } = body as { userId?: unknown; teamId?: unknown };
  if (typeof teamId === 'string') {
    if (teamAccess(deps, request, teamId) !== 'team_admin')
      throw new AdminHttpError(403, `teamId: only an admin of team '${teamId}' may create its keys`);
    if (userId === undefined) return { ...body, userId: self };
    if (userId === null || userId === self) return body;
    if (typeof userId === 'string' && !deps.view.team(teamId)?.members.has(userId))
      throw new AdminHttpError(403, `userId: user '${userId}' is not a member of team '${teamId}'`);
    return body;
  }
  if (userId !== undefined && userId !== null && userId !== self)
    throw new AdminHttpError(403, 'userId: you can only create keys for yourself');
  return { ...body, userId: self };
}

/**
 * Refuses a user's change of a key's team they may not make: into a team they are not an admin
 * of, or out of its team for a key that is not their own (it would leave their reach).
 * @throws AdminHttpError 403 naming `teamId`.
 */
function checkTeamChange(deps: ConsoleDeps, request: FastifyRequest, key: KeyRecord): void {
  const body = request.body;
  if (isAdmin(request) || typeof body !== 'object' || body === null || !('teamId' in body)) return;
  const teamId = (body as { teamId?: unknown }).teamId;
  if (teamId === key.teamId || teamId === undefined) return;
  if (typeof teamId === 'string' && teamAccess(deps, request, teamId) !== 'team_admin')
    throw new AdminHttpError(403, `teamId: only an admin of team '${teamId}' may move keys into it`);
  if (teamId === null && key.userId !== identityOf(request).user.userId)
    throw new AdminHttpError(403, 'teamId: only an admin may take a key that is not yours out of its team');
}

/** Adds owner names, spend and last use to `keys`. */
async function keyRows(deps: ConsoleDeps, request: FastifyRequest, keys: ReadonlyArray<KeyRecord>): Promise<KeyRow[]> {
  const now = deps.now();
  const [spends, lastUsed] = await Promise.all([
    Promise.all(
      keys.map(async (key) => (deps.stateStore ? (await deps.stateStore.getSpend(key.keyId, null)).keyNanoUsd : 0n)),
    ),
    deps.analytics
      ? queryLastUsed(
          deps.analytics,
          keys.map((k) => k.keyId),
        ).catch((error: unknown) => {
          request.log.warn({ err: error }, 'console: last-used lookup failed');
          return new Map<string, number>();
        })
      : Promise.resolve(new Map<string, number>()),
  ]);
  return keys.map((key, index) => {
    const last = lastUsed.get(key.keyId);
    return {
      ...presentKey(key, now),
      ownerName: key.userId === null ? null : (deps.view.user(key.userId)?.name ?? null),
      teamName: key.teamId === null ? null : (deps.view.team(key.teamId)?.name ?? null),
      canManage: canManageKey(deps, request, key),
      spentUsd: nanoToUsd(spends[index] ?? 0n),
      lastUsedAt: last === undefined ? null : new Date(last).toISOString(),
    };
  });
}

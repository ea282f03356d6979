/**
 * Console key routes (CONSOLE-API.md "Keys"): list, create, edit, revoke, rotate. Admins see
 * every key; a user sees and manages only keys they own (another user's key answers 404, as if it
 * did not exist). Rows add the owner's name, the spend so far (state store, the counter quota
 * checks use) and when the key was last used (consumption log).
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { AdminHttpError } from '../control-plane/admin-errors.ts';
import { keyStatus, presentKey, type KeyView } from '../control-plane/admin-presenters.ts';
import { createKey, requireKey, revokeKey, rotateKey, updateKey } from '../control-plane/commands.ts';
import { fail, nanoToUsd } from '../control-plane/commands-common.ts';
import type { KeyRecord } from '../control-plane/control-plane-view.ts';
import {
  CONSOLE_API_PREFIX,
  identityOf,
  isAdmin,
  pageOf,
  paginate,
  queryText,
  runAsUser,
  type ConsoleDeps,
} from './console-context.ts';
import { queryLastUsed } from './usage-queries.ts';

/** A key as the console lists it. */
export interface KeyRow extends KeyView {
  readonly ownerName: string | null;
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
    const now = deps.now();
    const visible = deps.view
      .keys()
      .filter((key) => canSee(request, key))
      .filter(
        (key) =>
          (owner === undefined || key.userId === owner) && (status === undefined || keyStatus(key, now) === status),
      )
      .filter((key) => q === undefined || key.name.toLowerCase().includes(q) || key.publicId.toLowerCase().includes(q))
      .sort((a, b) => b.createdAt - a.createdAt || a.keyId.localeCompare(b.keyId));
    const { items, total } = paginate(visible, pageOf(request));
    return { keys: await keyRows(deps, request, items), total };
  });
  app.post(prefix, options, async (request, reply) => {
    const body = ownBody(request);
    const { keyId, apiKey } = await runAsUser(deps, request, (ctx) => createKey(deps.view, body, ctx));
    return reply.code(201).send({ key: await rowOf(request, keyId), apiKey });
  });
  app.patch(`${prefix}/:id`, options, async (request) => {
    const key = visibleKey(deps, request);
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

/** Whether the request's user may see `key`: admins all, users their own. */
function canSee(request: FastifyRequest, key: KeyRecord): boolean {
  return isAdmin(request) || key.userId === identityOf(request).user.userId;
}

/** The key named by `:id` (key id or public id). @throws CommandError 404 when unknown or not visible. */
function visibleKey(deps: ConsoleDeps, request: FastifyRequest): KeyRecord {
  const ref = (request.params as { id: string }).id;
  const key = requireKey(deps.view, ref);
  return canSee(request, key) ? key : fail(404, `key '${ref}' not found`, 'id');
}

/**
 * The create body with the owner settled: a user's key is always their own (403 for another
 * user id); an admin's body is passed on as it is (null or absent = no owner).
 */
function ownBody(request: FastifyRequest): unknown {
  const body = request.body;
  if (isAdmin(request) || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const self = identityOf(request).user.userId;
  const userId = (body as { userId?: unknown }).userId;
  if (userId !== undefined && userId !== null && userId !== self)
    throw new AdminHttpError(403, 'userId: you can only create keys for yourself');
  return { ...body, userId: self };
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
      spentUsd: nanoToUsd(spends[index] ?? 0n),
      lastUsedAt: last === undefined ? null : new Date(last).toISOString(),
    };
  });
}

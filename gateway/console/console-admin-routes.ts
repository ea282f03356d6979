/**
 * Console routes for admins only (CONSOLE-API.md "Users", "Channels", "Prices", "Audit"): the
 * admin API's commands run as the signed-in admin, plus what only the console shows — spend per
 * user, live channel health, the provider presets that fill the channel form, the channel test
 * and the audit history of config events. A non-admin gets 403 on every one of them.
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { presentChannel, presentPrices, presentUser } from '../control-plane/admin-presenters.ts';
import { registerAdminTokenRoutes } from '../control-plane/admin-token-routes.ts';
import { createUser, removeChannel, setPrice, updateUser, upsertChannel } from '../control-plane/commands.ts';
import { fail, nanoToUsd } from '../control-plane/commands-common.ts';
import type { ChannelRecord, UserRecord } from '../control-plane/control-plane-view.ts';
import { CLOUD_AUTH_BY_PROVIDER, CLOUD_SETTINGS_BY_PROVIDER } from '../config/cloud-settings-rules.ts';
import { listProviderPresets } from '../providers/presets.ts';
import { resolveChannel } from '../routing/channel.ts';
import {
  CONSOLE_API_PREFIX,
  pageOf,
  paginate,
  queryText,
  requireAdmin,
  runAsUser,
  type ConsoleDeps,
} from './console-context.ts';
import { testChannel } from './test-channel.ts';

/** Registers the admin-only console routes on `app`. */
export function registerConsoleAdminRoutes(
  app: FastifyInstance,
  baseOptions: RouteShorthandOptions,
  deps: ConsoleDeps,
): void {
  const options: RouteShorthandOptions = { ...baseOptions, preHandler: async (request) => requireAdmin(request) };
  registerUserRoutes(app, options, deps);
  registerChannelRoutes(app, options, deps);
  registerPriceAndAuditRoutes(app, options, deps);
  registerAdminTokenRoutes(app, CONSOLE_API_PREFIX, options, deps.view, (request, command) =>
    runAsUser(deps, request, command),
  );
}

function registerUserRoutes(app: FastifyInstance, options: RouteShorthandOptions, deps: ConsoleDeps): void {
  const prefix = `${CONSOLE_API_PREFIX}/users`;
  const show = async (userId: string) =>
    (await userRows(deps, [deps.view.user(userId) ?? fail(404, `user '${userId}' not found`, 'id')]))[0]!;
  app.get(prefix, options, async (request) => {
    const q = queryText(request, 'q')?.toLowerCase();
    const users = deps.view
      .users()
      .filter(
        (u) => q === undefined || u.name.toLowerCase().includes(q) || (u.login ?? '').includes(q) || u.userId === q,
      )
      .sort((a, b) => a.createdAt - b.createdAt || a.userId.localeCompare(b.userId));
    const { items, total } = paginate(users, pageOf(request));
    return { users: await userRows(deps, items), total };
  });
  app.post(prefix, options, async (request, reply) => {
    const { userId } = await runAsUser(deps, request, (ctx) => createUser(deps.view, request.body, ctx));
    return reply.code(201).send({ user: await show(userId) });
  });
  app.patch(`${prefix}/:id`, options, async (request) => {
    const { userId } = await runAsUser(deps, request, (ctx) =>
      updateUser(deps.view, idParam(request), request.body, ctx),
    );
    return { user: await show(userId) };
  });
}

/** What the channel form offers for a cloud: its auth methods (first = default) and the `cloud` settings it reads. */
function cloudFormOf(provider: keyof typeof CLOUD_AUTH_BY_PROVIDER): {
  authMethods: ReadonlyArray<string>;
  settings: ReadonlyArray<string>;
} {
  return { authMethods: CLOUD_AUTH_BY_PROVIDER[provider], settings: CLOUD_SETTINGS_BY_PROVIDER[provider] };
}

function registerChannelRoutes(app: FastifyInstance, options: RouteShorthandOptions, deps: ConsoleDeps): void {
  const prefix = `${CONSOLE_API_PREFIX}/channels`;
  const find = (id: string) =>
    deps.view.channels().find((c) => c.config.id === id) ?? fail(404, `channel '${id}' not found`, 'id');
  app.get(`${CONSOLE_API_PREFIX}/providers`, options, async () => ({
    providers: listProviderPresets().map((p) => ({
      id: p.id,
      displayName: p.displayName,
      defaultProtocol: p.defaultProtocol,
      // baseUrl null: the channel must give one (generic compatible kinds, Azure) unless `regionalBaseUrl`
      // is set (a host from the channel's region: Bedrock, Vertex); auth 'optional-bearer': no key needed.
      protocols: Object.entries(p.endpoints).map(([protocol, endpoint]) => ({
        protocol,
        baseUrl: endpoint?.baseUrl ?? null,
        regionalBaseUrl: endpoint?.regionalBaseUrl?.template ?? null,
        auth: endpoint?.auth ?? null,
      })),
      // A cloud's auth methods (the first is the default) and the settings its channels read.
      ...(p.id in CLOUD_AUTH_BY_PROVIDER ? { cloud: cloudFormOf(p.id as keyof typeof CLOUD_AUTH_BY_PROVIDER) } : {}),
    })),
  }));
  app.get(prefix, options, async (request) => {
    const q = queryText(request, 'q')?.toLowerCase();
    const channels = deps.view
      .channels()
      .filter(
        (c) =>
          q === undefined ||
          c.config.id.toLowerCase().includes(q) ||
          c.config.provider.includes(q) ||
          c.config.models.some((m) => m.toLowerCase().includes(q)),
      )
      .sort((a, b) => a.config.id.localeCompare(b.config.id));
    const { items, total } = paginate(channels, pageOf(request));
    return { channels: await channelRows(deps, items), total };
  });
  app.put(`${prefix}/:id`, options, async (request, reply) => {
    const { channelId, created } = await runAsUser(deps, request, (ctx) =>
      upsertChannel(deps.view, idParam(request), request.body, ctx),
    );
    return reply.code(created ? 201 : 200).send({ channel: (await channelRows(deps, [find(channelId)]))[0], created });
  });
  app.delete(`${prefix}/:id`, options, async (request) => {
    const { channelId } = await runAsUser(deps, request, (ctx) => removeChannel(deps.view, idParam(request), ctx));
    return { removed: channelId };
  });
  app.post(`${prefix}/:id/test`, options, async (request) => {
    const record = find(idParam(request));
    const body = (request.body ?? {}) as { model?: unknown };
    const model =
      body.model === undefined || body.model === null || body.model === ''
        ? undefined
        : typeof body.model === 'string'
          ? body.model
          : fail(400, 'model: must be a model name string', 'model');
    const channel = resolveChannel(record.config, deps.mockBaseUrl);
    if (model !== undefined && !channel.models.has(model))
      fail(400, `model: channel '${channel.id}' does not serve '${model}'`, 'model');
    if (channel.models.size === 0) fail(400, `channel '${channel.id}' lists no models to test`, 'id');
    return testChannel(channel, model, {
      dispatcher: deps.dispatcher,
      adapters: deps.adapters,
      ...(deps.upstreamAuth ? { upstreamAuth: deps.upstreamAuth } : {}),
      now: deps.now,
    });
  });
}

function registerPriceAndAuditRoutes(app: FastifyInstance, options: RouteShorthandOptions, deps: ConsoleDeps): void {
  app.get(`${CONSOLE_API_PREFIX}/prices`, options, async (request) => {
    const q = queryText(request, 'q')?.toLowerCase();
    const prices = presentPrices(deps.view.prices(), deps.now()).filter(
      (p) => q === undefined || p.model.toLowerCase().includes(q) || (p.channel ?? '').toLowerCase().includes(q),
    );
    const { items, total } = paginate(prices, pageOf(request));
    return { prices: items, total };
  });
  app.put(`${CONSOLE_API_PREFIX}/prices`, options, async (request, reply) => {
    const { priceId, created } = await runAsUser(deps, request, (ctx) =>
      setPrice(deps.view, undefined, request.body, ctx),
    );
    const price =
      presentPrices(deps.view.prices(), deps.now()).find((p) => p.priceId === priceId) ??
      fail(404, `price '${priceId}' not found`);
    return reply.code(created ? 201 : 200).send({ price, created });
  });
  app.get(`${CONSOLE_API_PREFIX}/audit`, options, async (request) => {
    const type = queryText(request, 'type');
    const actor = queryText(request, 'actor');
    const entityId = queryText(request, 'entityId');
    const matching = deps.view
      .history()
      .filter(
        (e) =>
          (type === undefined || e.type === type) &&
          (actor === undefined || e.actor === actor) &&
          (entityId === undefined || e.entityId === entityId),
      );
    const newestFirst = [...matching].reverse();
    const { items, total } = paginate(newestFirst, pageOf(request));
    return {
      events: items.map((e) => ({
        ...e,
        occurredAt: new Date(e.occurredAt).toISOString(),
        actorName: (deps.view.user(e.actor) ?? deps.view.userByLogin(e.actor))?.name ?? e.actor,
        changes: presentAuditChanges(e.changes),
      })),
      total,
    };
  });
}

/** Event fields holding ms since epoch, shown as ISO-8601. */
const TIME_FIELDS: ReadonlySet<string> = new Set(['expiresAt', 'effectiveAt', 'effectiveFrom']);

/** An audit entry's changes as people read them: times as ISO-8601, nano-USD quotas as USD (`quotaUsd`). */
function presentAuditChanges(changes: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(changes)) {
    if (TIME_FIELDS.has(name) && typeof value === 'number') shown[name] = new Date(value).toISOString();
    else if (name === 'quotaNanoUsd')
      shown.quotaUsd = typeof value === 'string' && /^\d+$/.test(value) ? nanoToUsd(BigInt(value)) : null;
    else shown[name] = value;
  }
  return shown;
}

/** Users with their spend across all their keys and their key count. */
async function userRows(deps: ConsoleDeps, users: ReadonlyArray<UserRecord>) {
  const keyCounts = new Map<string, number>();
  for (const key of deps.view.keys())
    if (key.userId !== null) keyCounts.set(key.userId, (keyCounts.get(key.userId) ?? 0) + 1);
  return Promise.all(
    users.map(async (user) => ({
      ...presentUser(user),
      spentUsd: nanoToUsd(deps.stateStore ? (await deps.stateStore.getSpend('', user.userId)).userNanoUsd : 0n),
      keyCount: keyCounts.get(user.userId) ?? 0,
    })),
  );
}

/** Channels (never their credential) with the shared health routing sees. */
async function channelRows(deps: ConsoleDeps, channels: ReadonlyArray<ChannelRecord>) {
  const ids = channels.map((c) => c.config.id);
  const health = deps.stateStore ? await deps.stateStore.getChannelHealth(ids, deps.now()) : [];
  const pool = deps.credentialPool;
  return channels.map((channel, index) => {
    const h = health[index];
    return {
      ...presentChannel(channel, pool && ((config) => pool.stateOf(config))),
      health: {
        errorRate: h?.errorRate ?? 0,
        windowCount: h?.windowCount ?? 0,
        latencyEwmaMs: Math.round(h?.latencyEwmaMs ?? 0),
        totalLatencyEwmaMs: Math.round(h?.totalLatencyEwmaMs ?? 0),
        consecutiveFailures: h?.consecutiveFailures ?? 0,
        coolingDownUntil: h && h.cooldownUntil > deps.now() ? new Date(h.cooldownUntil).toISOString() : null,
      },
    };
  });
}

function idParam(request: FastifyRequest): string {
  return (request.params as { id: string }).id;
}

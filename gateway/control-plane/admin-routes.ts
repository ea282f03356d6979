/**
 * The admin HTTP API under `/admin/api`: users, keys, teams, budgets, alert webhooks, channels,
 * prices and personal admin tokens over the control-plane commands (commands.ts). Every route is
 * authenticated by `Authorization: Bearer <TOLLGATE_ADMIN_TOKEN or a personal admin token>`
 * (admin-auth.ts; the token decides the actor recorded on every event, no header does), carries
 * `config: { adminApi: true }` and its own error handler, so every error — malformed JSON
 * included — answers `{"error":{"message", "field"?}}`. Writes append events through
 * `deps.append` and answer from the view once applied. Responses never contain secrets, except
 * the new key returned once by create and rotate, and a new alert webhook's signing secret.
 * A failed append (event log down, not confirmed in time) answers 503.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import { adminAuthHook, adminIdentityOf } from './admin-auth.ts';
import { registerAdminTokenRoutes, type RunCommand } from './admin-token-routes.ts';
import { registerCostControlRoutes } from './admin-cost-control-routes.ts';
import { appendCommand } from './append-command.ts';
import { ADMIN_API_PREFIX, AdminHttpError, sendAdminError } from './admin-errors.ts';
import { presentChannel, presentKey, presentPrices, presentUser, type CredentialStates } from './admin-presenters.ts';
import type { CredentialPool } from '../routing/credential-pool.ts';
import {
  createKey,
  createUser,
  removeChannel,
  requireKey,
  revokeKey,
  rotateKey,
  setPrice,
  updateKey,
  updateUser,
  upsertChannel,
  type CommandSecrets,
} from './commands.ts';
import { fail } from './commands-common.ts';
import { DEFAULT_BUDGET_TIME_ZONE } from './commands-budgets.ts';
import { requireUser } from './commands-users.ts';
import type { ChannelRecord, ControlPlaneView } from './control-plane-view.ts';

/** What the admin routes need. */
export interface AdminRouteDeps {
  /** The local projection (read after each append). */
  readonly view: ControlPlaneView;
  /** Publishes events to the config topic; resolves once they are applied to `view`. */
  append(events: ReadonlyArray<ControlEvent>): Promise<void>;
  /** Master key (32 bytes, channel credentials) and HMAC secret (key digests). */
  readonly secrets: CommandSecrets;
  /** TOLLGATE_ADMIN_TOKEN (actor `bootstrap-token`); undefined or empty: only personal admin tokens are accepted (403 everywhere while none is active). */
  readonly adminToken: string | undefined;
  /** Clock, ms since epoch (default Date.now). */
  readonly now?: () => number;
  /** Time zone of new calendar budgets that name none (IANA name; config `budgets.timeZone`, default UTC). */
  readonly budgetTimeZone?: string;
  /** The key pools' state shown with each channel's credentials (README "Key pools"); none: counts read 0. */
  readonly credentialPool?: Pick<CredentialPool, 'stateOf'>;
}

interface Runner {
  readonly deps: AdminRouteDeps;
  readonly now: () => number;
  /** Runs a command for `request`, appends its events, returns its result. */
  readonly run: RunCommand;
}

/**
 * Registers every admin route on `app` (call before `listen`/`ready`):
 * `GET /admin/api/whoami`; `GET|POST /users`, `GET|PATCH /users/:id`; `GET|POST /keys`,
 * `GET|PATCH /keys/:id`, `POST /keys/:id/revoke`, `POST /keys/:id/rotate`; `GET /channels`,
 * `GET|PUT|DELETE /channels/:id`; `GET|PUT /prices`, `PUT /prices/:priceId`; `GET|POST
 * /admin-tokens`, `POST /admin-tokens/:id/revoke` (admin-token-routes.ts); teams and their
 * members, budgets and alert webhooks (admin-cost-control-routes.ts); any other
 * `/admin/api/*` → 404. Keys may be addressed by key id or public id.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminRouteDeps): void {
  const now = deps.now ?? Date.now;
  const runner: Runner = {
    deps,
    now,
    run: (request, command) => appendCommand(deps, adminIdentityOf(request).actor, now(), command),
  };
  const options = adminApiRouteOptions(
    adminAuthHook({ view: deps.view, hmacSecret: deps.secrets.hmacSecret, adminToken: deps.adminToken }),
  );
  app.get(`${ADMIN_API_PREFIX}/whoami`, options, async (request) => {
    const { actor, auth, tokenId } = adminIdentityOf(request);
    return { actor, role: 'admin', auth, tokenId };
  });
  registerAdminTokenRoutes(app, ADMIN_API_PREFIX, options, deps.view, runner.run);
  registerUserRoutes(app, options, runner);
  registerKeyRoutes(app, options, runner);
  registerChannelRoutes(app, options, runner);
  registerPriceRoutes(app, options, runner);
  registerCostControlRoutes(app, ADMIN_API_PREFIX, options, {
    view: deps.view,
    run: runner.run,
    budgetTimeZone: deps.budgetTimeZone ?? DEFAULT_BUDGET_TIME_ZONE,
  });
  answerUnknownRoutes(app, ADMIN_API_PREFIX, options, 'admin');
}

/**
 * The options of every route of an API that answers in the admin error shape
 * (`{"error":{"message","field"?}}`, admin-errors.ts), the admin API's and the console's:
 * `config.adminApi` marks the route as such, `onRequest` authenticates the caller, and the
 * route's own error handler renders every error, malformed JSON included. Fastify's route
 * options: https://fastify.dev/docs/latest/Reference/Routes/#routes-options
 */
export function adminApiRouteOptions(onRequest: RouteShorthandOptions['onRequest']): RouteShorthandOptions {
  return {
    config: { adminApi: true },
    onRequest,
    errorHandler: (error, request, reply) => sendAdminError(error, request, reply),
  };
}

/**
 * Answers every route under `prefix` not registered before it with 404 in the admin error
 * shape, naming the method and path: `unknown <api> route: GET /admin/api/nope` (`api` e.g.
 * `admin`, `console`). Register it after the API's own routes.
 */
export function answerUnknownRoutes(
  app: FastifyInstance,
  prefix: string,
  options: RouteShorthandOptions,
  api: string,
): void {
  app.all(`${prefix}/*`, options, async (request) => {
    throw new AdminHttpError(404, `unknown ${api} route: ${request.method} ${request.url.split('?')[0]}`);
  });
}

function registerUserRoutes(app: FastifyInstance, options: RouteShorthandOptions, runner: Runner): void {
  const { view } = runner.deps;
  const show = (userId: string) => ({ user: presentUser(view.user(userId) ?? notApplied('user', userId)) });
  app.get(`${ADMIN_API_PREFIX}/users`, options, async () => ({
    users: [...view.users()].sort(byCreated).map(presentUser),
  }));
  app.get(`${ADMIN_API_PREFIX}/users/:id`, options, async (request) =>
    show(requireUser(view, idParam(request), 'id').userId),
  );
  app.post(`${ADMIN_API_PREFIX}/users`, options, async (request, reply) => {
    const { userId } = await runner.run(request, (ctx) => createUser(view, request.body, ctx));
    return reply.code(201).send(show(userId));
  });
  app.patch(`${ADMIN_API_PREFIX}/users/:id`, options, async (request) => {
    const { userId } = await runner.run(request, (ctx) => updateUser(view, idParam(request), request.body, ctx));
    return show(userId);
  });
}

function registerKeyRoutes(app: FastifyInstance, options: RouteShorthandOptions, runner: Runner): void {
  const { view } = runner.deps;
  const show = (keyId: string) => presentKey(view.key(keyId) ?? notApplied('key', keyId), runner.now());
  app.get(`${ADMIN_API_PREFIX}/keys`, options, async () => ({
    keys: [...view.keys()].sort(byCreated).map((k) => presentKey(k, runner.now())),
  }));
  app.get(`${ADMIN_API_PREFIX}/keys/:id`, options, async (request) => ({
    key: show(requireKey(view, idParam(request)).keyId),
  }));
  app.post(`${ADMIN_API_PREFIX}/keys`, options, async (request, reply) => {
    const { keyId, apiKey } = await runner.run(request, (ctx) => createKey(view, request.body, ctx));
    return reply.code(201).send({ key: show(keyId), apiKey });
  });
  app.patch(`${ADMIN_API_PREFIX}/keys/:id`, options, async (request) => {
    const { keyId } = await runner.run(request, (ctx) => updateKey(view, idParam(request), request.body, ctx));
    return { key: show(keyId) };
  });
  app.post(`${ADMIN_API_PREFIX}/keys/:id/revoke`, options, async (request) => {
    const { keyId } = await runner.run(request, (ctx) => revokeKey(view, idParam(request), request.body, ctx));
    return { key: show(keyId) };
  });
  app.post(`${ADMIN_API_PREFIX}/keys/:id/rotate`, options, async (request, reply) => {
    const { keyId, apiKey, replacedKeyId } = await runner.run(request, (ctx) =>
      rotateKey(view, idParam(request), request.body, ctx),
    );
    return reply.code(201).send({ key: show(keyId), apiKey, replaced: show(replacedKeyId) });
  });
}

function registerChannelRoutes(app: FastifyInstance, options: RouteShorthandOptions, runner: Runner): void {
  const { view, credentialPool } = runner.deps;
  const find = (id: string) => view.channels().find((c) => c.config.id === id);
  const states: CredentialStates | undefined = credentialPool && ((config) => credentialPool.stateOf(config));
  const present = (channel: ChannelRecord) => presentChannel(channel, states);
  app.get(`${ADMIN_API_PREFIX}/channels`, options, async () => ({
    channels: [...view.channels()].sort((a, b) => a.config.id.localeCompare(b.config.id)).map(present),
  }));
  app.get(`${ADMIN_API_PREFIX}/channels/:id`, options, async (request) => {
    const id = idParam(request);
    return { channel: present(find(id) ?? fail(404, `channel '${id}' not found`, 'id')) };
  });
  app.put(`${ADMIN_API_PREFIX}/channels/:id`, options, async (request, reply) => {
    const { channelId, created } = await runner.run(request, (ctx) =>
      upsertChannel(view, idParam(request), request.body, ctx),
    );
    return reply
      .code(created ? 201 : 200)
      .send({ channel: present(find(channelId) ?? notApplied('channel', channelId)), created });
  });
  app.delete(`${ADMIN_API_PREFIX}/channels/:id`, options, async (request) => {
    const { channelId } = await runner.run(request, (ctx) => removeChannel(view, idParam(request), ctx));
    return { removed: channelId };
  });
}

function registerPriceRoutes(app: FastifyInstance, options: RouteShorthandOptions, runner: Runner): void {
  const { view } = runner.deps;
  const set = async (request: FastifyRequest, reply: FastifyReply, pathId: string | undefined) => {
    const { priceId, created } = await runner.run(request, (ctx) => setPrice(view, pathId, request.body, ctx));
    const price =
      presentPrices(view.prices(), runner.now()).find((p) => p.priceId === priceId) ?? notApplied('price', priceId);
    return reply.code(created ? 201 : 200).send({ price, created });
  };
  app.get(`${ADMIN_API_PREFIX}/prices`, options, async () => ({ prices: presentPrices(view.prices(), runner.now()) }));
  app.put(`${ADMIN_API_PREFIX}/prices`, options, async (request, reply) => set(request, reply, undefined));
  app.put(`${ADMIN_API_PREFIX}/prices/:priceId`, options, async (request, reply) =>
    set(request, reply, (request.params as { priceId: string }).priceId),
  );
}

function idParam(request: FastifyRequest): string {
  return (request.params as { id: string }).id;
}

function byCreated(a: { createdAt: number }, b: { createdAt: number }): number {
  return a.createdAt - b.createdAt;
}

/** The projection did not show an entity right after its events were applied: a fault (500). */
function notApplied(kind: string, id: string): never {
  throw new Error(`${kind} '${id}' missing from the projection after append`);
}

/**
 * The web console at `/console`: the single-page app (gateway/console/web, no build step; vendor
 * files htm+preact, Chart.js and Pico CSS served from node_modules) and its JSON API under
 * `/console/api` (CONSOLE-API.md). Everything lives in one encapsulated Fastify scope, so the
 * cookie parser and the session hook never run on the client API's hot path.
 * Security: session cookie HttpOnly + SameSite=Strict, a CSRF token on every write, a strict
 * Content-Security-Policy (no inline script), frames refused.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { z } from 'zod';
import { isStateStoreUnavailable } from '../../schemas/state-store/state-store-unavailable.ts';
import { AdminHttpError } from '../control-plane/admin-errors.ts';
import { adminApiRouteOptions, answerUnknownRoutes } from '../control-plane/admin-routes.ts';
import { setUserPassword } from '../control-plane/commands-users.ts';
import { fail, parseInput } from '../control-plane/commands-common.ts';
import { verifyPassword } from '../control-plane/password-hash.ts';
import { registerConsoleAdminRoutes } from './console-admin-routes.ts';
import { registerConsoleBudgetRoutes } from './console-budget-routes.ts';
import { CONSOLE_API_PREFIX, identityOf, runAsUser, type ConsoleDeps } from './console-context.ts';
import { registerConsoleKeyRoutes } from './console-key-routes.ts';
import { clearSessionCookie, CSRF_HEADER, presentSessionUser, setSessionCookie } from './console-session.ts';
import { registerConsoleTeamRoutes } from './console-team-routes.ts';
import { registerConsoleUsageRoutes } from './console-usage-routes.ts';

/** The Content-Security-Policy of every console response. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const WEB_DIR = join(dirname(fileURLToPath(import.meta.url)), 'web');

/** Body of `POST /console/api/session` (the password's rules are checked when it is set, not here). */
const signInInput = z.object({ login: z.string(), password: z.string() });

/** Body of `POST /console/api/session/password` (setUserPassword checks the new password's length). */
const passwordChangeInput = z.object({ currentPassword: z.string(), newPassword: z.string() });

/** Vendor files: URL name → [package, path inside the package]. */
const VENDOR_FILES: Readonly<Record<string, readonly [string, string]>> = {
  'htm-preact.js': ['htm', 'preact/standalone.module.js'],
  'chart.umd.js': ['chart.js', 'dist/chart.umd.js'],
  'pico.min.css': ['@picocss/pico', 'css/pico.min.css'],
};

/** Registers the console (app and API) on `app`. Call before `ready`. */
export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(fastifyCookie);
    await scope.register(fastifyStatic, {
      root: WEB_DIR,
      prefix: '/console/assets/',
      index: false,
      wildcard: true,
      cacheControl: false,
      setHeaders: (res) => {
        res.setHeader('cache-control', 'no-cache');
      },
    });
    scope.addHook('onSend', async (_request, reply) => {
      void reply
        .header('content-security-policy', CONSOLE_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'same-origin');
    });
    registerPages(scope);
    const options = adminApiRouteOptions(authenticate(deps));
    registerSessionRoutes(scope, options, deps);
    registerConsoleKeyRoutes(scope, options, deps);
    registerConsoleUsageRoutes(scope, options, deps);
    registerConsoleTeamRoutes(scope, options, deps);
    registerConsoleBudgetRoutes(scope, options, deps);
    registerConsoleAdminRoutes(scope, options, deps);
    answerUnknownRoutes(scope, CONSOLE_API_PREFIX, options, 'console');
  });
}

/** `/console` → `/console/`; `/console/` → index.html; `/console/vendor/<file>` → node_modules. */
function registerPages(scope: FastifyInstance): void {
  const vendorPaths = new Map(
    Object.entries(VENDOR_FILES).map(([name, [pkg, path]]) => [name, join(packageDir(pkg), path)]),
  );
  scope.get('/console', async (_request, reply) => reply.redirect('/console/'));
  scope.get('/console/', async (_request, reply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html', WEB_DIR),
  );
  scope.get('/console/vendor/:file', async (request, reply) => {
    const path = vendorPaths.get((request.params as { file: string }).file);
    if (!path) return reply.code(404).type('text/plain').send('not found');
    return reply
      .header('cache-control', 'public, max-age=86400')
      .sendFile(path.slice(dirname(path).length + 1), dirname(path));
  });
}

/**
 * The 503 for a session or sign-in that the state store could not serve. It names what is down
 * (e.g. "the session store (Redis) is unreachable") when the store reported an outage, which the
 * store logs once per outage; any other failure is logged here as an error.
 */
function storeOutageHttpError(request: FastifyRequest, cause: unknown, otherwise: string): AdminHttpError {
  if (isStateStoreUnavailable(cause))
    return new AdminHttpError(503, `sign-in is unavailable: ${cause.message}; try again in a few seconds`);
  request.log.error({ err: cause }, 'console: session store failed');
  return new AdminHttpError(503, `sign-in is unavailable: ${otherwise} (see the gateway log)`);
}

/**
 * The API's onRequest hook: resolves the session cookie to the signed-in user; answers 401
 * without one (except for signing in) and 403 for a write without a valid CSRF token.
 */
function authenticate(deps: ConsoleDeps): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && isCrossOrigin(request))
      throw new AdminHttpError(403, 'cross-origin request refused');
    const identity = await deps.sessions.identify(request).catch((cause: unknown) => {
      throw storeOutageHttpError(request, cause, 'the session store did not answer');
    });
    if (identity) request.consoleIdentity = identity;
    const path = request.url.split('?')[0];
    if (path === `${CONSOLE_API_PREFIX}/session` && (request.method === 'POST' || request.method === 'GET')) return;
    if (!identity) throw new AdminHttpError(401, 'not signed in');
    if (
      request.method !== 'GET' &&
      request.method !== 'HEAD' &&
      !deps.sessions.verifyCsrf(identity, headerText(request, CSRF_HEADER))
    ) {
      throw new AdminHttpError(
        403,
        `missing or invalid CSRF token: send the ${CSRF_HEADER} header from GET ${CONSOLE_API_PREFIX}/session`,
      );
    }
  };
}

function registerSessionRoutes(scope: FastifyInstance, options: RouteShorthandOptions, deps: ConsoleDeps): void {
  const path = `${CONSOLE_API_PREFIX}/session`;
  scope.get(path, options, async (request) => {
    const identity = identityOf(request);
    return { user: presentSessionUser(identity.user), csrfToken: deps.sessions.csrfToken(identity) };
  });
  scope.post(path, options, async (request, reply) => {
    const { login, password } = parseInput(signInInput, request.body);
    const result = await deps.sessions.signIn(login, password, request.ip).catch((cause: unknown) => {
      throw storeOutageHttpError(request, cause, 'the session store or rate limiter did not answer');
    });
    if (result.kind === 'throttled') return tooManyAttempts(reply, result.retryAfterMs);
    if (result.kind === 'refused') throw new AdminHttpError(401, 'invalid login or password');
    setSessionCookie(request, reply, result.token);
    request.log.info({ userId: result.identity.user.userId }, 'console sign-in');
    return { user: presentSessionUser(result.identity.user), csrfToken: deps.sessions.csrfToken(result.identity) };
  });
  scope.delete(path, options, async (request, reply) => {
    await deps.sessions.signOut(identityOf(request));
    clearSessionCookie(reply);
    return reply.code(204).send();
  });
  scope.post(`${path}/password`, options, async (request, reply) => {
    const identity = identityOf(request);
    const { currentPassword: current, newPassword: next } = parseInput(passwordChangeInput, request.body);
    if (!(await verifyPassword(current, identity.user.passwordHash ?? '')))
      fail(400, 'currentPassword: is not your current password', 'currentPassword');
    await runAsUser(deps, request, (ctx) => setUserPassword(deps.view, identity.user.userId, next, ctx));
    await deps.sessions.renew(identity);
    return reply.code(204).send();
  });
}

function tooManyAttempts(reply: FastifyReply, retryAfterMs: number): FastifyReply {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return reply
    .code(429)
    .header('retry-after', String(seconds))
    .send({ error: { message: `too many sign-in attempts: try again in ${seconds} s` } });
}

/**
 * Whether a browser sent the request from another site: its `Origin` names a host other than the
 * one addressed. Covers sign-in too (login CSRF), where no session token exists yet.
 */
function isCrossOrigin(request: FastifyRequest): boolean {
  const origin = headerText(request, 'origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

function headerText(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The folder of an installed package (its `exports` may hide package.json, so walk up from its entry). */
function packageDir(name: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || !dir.endsWith(join('node_modules', name))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`console: cannot find the folder of package ${name}`);
    dir = parent;
  }
  return dir;
}

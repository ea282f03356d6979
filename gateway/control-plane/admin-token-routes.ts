/**
 * Routes for personal admin tokens, shared by the admin API (`/admin/api`) and the console
 * (`/console/api`, admins only): `GET <prefix>/admin-tokens` → `{ adminTokens: AdminTokenView[] }`;
 * `POST <prefix>/admin-tokens` `{ name }` → 201 `{ adminToken, token }` — `token` is shown this once;
 * `POST <prefix>/admin-tokens/:id/revoke` `{ reason? }` → `{ adminToken }`. Never a digest.
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { presentAdminToken } from './admin-presenters.ts';
import { createAdminToken, requireAdminToken, revokeAdminToken } from './commands-admin-tokens.ts';
import type { CommandContext, CommandResult } from './commands-common.ts';
import type { ControlPlaneView } from './control-plane-view.ts';

/** Runs a command as the request's identity, appends its events and returns its result. */
export type RunCommand = <T>(request: FastifyRequest, command: (ctx: CommandContext) => CommandResult<T>) => Promise<T>;

/** Registers the three admin-token routes under `prefix` with `options` (auth, role check, error handler). */
export function registerAdminTokenRoutes(
  app: FastifyInstance,
  prefix: string,
  options: RouteShorthandOptions,
  view: ControlPlaneView,
  run: RunCommand,
): void {
  app.get(`${prefix}/admin-tokens`, options, async () => ({ adminTokens: view.adminTokens().map(presentAdminToken) }));
  app.post(`${prefix}/admin-tokens`, options, async (request, reply) => {
    const { tokenId, token } = await run(request, (ctx) => createAdminToken(view, request.body, ctx));
    return reply.code(201).send({ adminToken: presentAdminToken(requireAdminToken(view, tokenId)), token });
  });
  app.post(`${prefix}/admin-tokens/:id/revoke`, options, async (request) => {
    const { tokenId } = await run(request, (ctx) =>
      revokeAdminToken(view, (request.params as { id: string }).id, request.body, ctx),
    );
    return { adminToken: presentAdminToken(requireAdminToken(view, tokenId)) };
  });
}

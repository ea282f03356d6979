/**
 * A Fastify app shaped like gateway/app.ts for admin route tests — the same catch-all JSON body
 * parser and the same global client-format error handlers — with the admin routes registered on
 * top of a control-plane stand-in (or a given view and append).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { registerAdminRoutes, type AdminRouteDeps } from '../../../gateway/control-plane/admin-routes.ts';
import { installClientErrorHandlers } from '../../../gateway/http/client-error-handler.ts';
import { RecordingControlPlane } from './recording-control-plane.ts';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
export const MASTER_KEY = Buffer.alloc(32, 9);
export const HMAC_SECRET = Buffer.from('k'.repeat(40));

/** A built (not listening) app and its stand-in control plane. */
export interface AdminTestApp {
  readonly app: FastifyInstance;
  readonly controlPlane: RecordingControlPlane;
}

/**
 * Builds the app. `overrides` replaces deps (adminToken, now); the body limit is 4 KiB so the
 * oversized-body path is cheap to exercise.
 */
export async function buildAdminTestApp(overrides: Partial<AdminRouteDeps> = {}): Promise<AdminTestApp> {
  const bodyLimit = 4096;
  const app = Fastify({ logger: false, bodyLimit });
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    void app.getDefaultJsonParser('error', 'error')(request, body as string, done);
  });
  installClientErrorHandlers(app, bodyLimit);
  const controlPlane = new RecordingControlPlane(MASTER_KEY);
  registerAdminRoutes(app, {
    view: controlPlane,
    append: controlPlane.append,
    secrets: { masterKey: MASTER_KEY, hmacSecret: HMAC_SECRET },
    adminToken: ADMIN_TOKEN,
    ...overrides,
  });
  await app.ready();
  return { app, controlPlane };
}

/** Authorization header with the test admin token. */
export const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * Errors of the admin API, rendered as `{"error":{"message","field"?}}` — command refusals,
 * authentication failures and framework errors (malformed JSON, oversized body) alike; a 500
 * only for real faults, whose details stay in the log.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { CommandError } from './commands-common.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every admin API route: errors render as AdminErrorBody, not in a client format. */
    adminApi?: boolean;
  }
}

/** The admin API's error envelope. */
export interface AdminErrorBody {
  readonly error: { readonly message: string; readonly field?: string };
}

/** An HTTP status and the body to send. */
export interface RenderedAdminError {
  readonly status: number;
  readonly body: AdminErrorBody;
}

/** The path prefix of every admin API route. */
export const ADMIN_API_PREFIX = '/admin/api';

/**
 * An admin API failure that is not a command refusal: 401/403 from the auth hook, 404 for an
 * unknown admin route, 503 when the control plane could not confirm a change.
 */
export class AdminHttpError extends Error {
  readonly status: 401 | 403 | 404 | 503;

  constructor(status: 401 | 403 | 404 | 503, message: string) {
    super(message);
    this.name = 'AdminHttpError';
    this.status = status;
  }
}

/**
 * Whether `request` belongs to the admin API: its route carries `config.adminApi`, or (unknown
 * routes) its path is under `/admin/api`.
 */
export function isAdminRoute(request: FastifyRequest): boolean {
  if (request.routeOptions.config?.adminApi === true) return true;
  const path = request.url.split('?')[0] ?? '';
  return path === ADMIN_API_PREFIX || path.startsWith(`${ADMIN_API_PREFIX}/`);
}

/**
 * Maps any error thrown on an admin route to a status and `{error:{message, field?}}`:
 * CommandError → its status/message/field; AdminHttpError → its status and message; Fastify body errors →
 * 400 (malformed or empty JSON), 413 (too large), 415 (media type); other 4xx framework errors
 * keep their status; anything else → 500 `internal error` (the caller logs the original).
 */
export function renderAdminError(error: unknown): RenderedAdminError {
  if (error instanceof CommandError)
    return {
      status: error.status,
      body: {
        error: error.field === undefined ? { message: error.message } : { message: error.message, field: error.field },
      },
    };
  if (error instanceof AdminHttpError) return { status: error.status, body: { error: { message: error.message } } };
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return message(400, `malformed JSON in request body: ${fastifyError.message}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return message(400, 'request body is empty: send a JSON object');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return message(413, 'request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return message(415, 'unsupported Content-Type: send application/json');
  }
  if (error instanceof SyntaxError) return message(400, `malformed JSON in request body: ${error.message}`);
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return message(status, fastifyError.message ?? 'bad request');
  return message(500, 'internal error');
}

/** Sends `error` rendered by renderAdminError; logs it when it is a 500. */
export function sendAdminError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const rendered = renderAdminError(error);
  if (rendered.status >= 500)
    request.log.error({ err: (error as { cause?: unknown }).cause ?? error }, 'admin API error');
  if (reply.sent || reply.raw.headersSent) return;
  if (rendered.status === 401) reply.header('www-authenticate', 'Bearer realm="tollgate-admin"');
  void reply.code(rendered.status).type('application/json; charset=utf-8').send(rendered.body);
}

function message(status: number, text: string): RenderedAdminError {
  return { status, body: { error: { message: text } } };
}

/**
 * What every console API route shares: its dependencies, the signed-in identity of the request,
 * role checks, running a control-plane command as the signed-in user, and query parsing
 * (pagination, times) into the admin API's `{"error":{"message","field"}}` errors.
 */
import type { FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import type { BudgetLedger } from '../../schemas/state-store/budget-ledger.ts';
import type { StateStore } from '../../schemas/state-store/state-store.ts';
import { AdminHttpError } from '../control-plane/admin-errors.ts';
import { appendCommand } from '../control-plane/append-command.ts';
import {
  fail,
  parseInput,
  type CommandContext,
  type CommandResult,
  type CommandSecrets,
} from '../control-plane/commands-common.ts';
import type { ControlPlaneView, KeyRecord, TeamRecord } from '../control-plane/control-plane-view.ts';
import type { UpstreamAdapters, UpstreamAuthorizer } from '../upstream/upstream-adapter.ts';
import type { CredentialPool } from '../routing/credential-pool.ts';
import type { ConsoleIdentity, ConsoleSessions } from './console-session.ts';

/** The console API's path prefix. */
export const CONSOLE_API_PREFIX = '/console/api';

/** What the console routes need (built by app.ts). */
export interface ConsoleDeps {
  readonly view: ControlPlaneView;
  /** Appends events to the config topic; resolves once applied to `view`. */
  append(events: ReadonlyArray<ControlEvent>): Promise<void>;
  readonly secrets: CommandSecrets;
  readonly sessions: ConsoleSessions;
  /** Spend counters and channel health (absent: spend reads 0, health is neutral). */
  readonly stateStore?: StateStore;
  /** The consumption log and spend (absent: usage routes answer 503). */
  readonly analytics?: AnalyticsStore;
  /** Use of budget windows, spent and held (absent: budget use reads `unknown`). */
  readonly budgetLedger?: BudgetLedger;
  /** IANA time zone of new calendar budgets that name none (default UTC). */
  readonly budgetTimeZone?: string;
  /** Clock of budget windows, ms since epoch (default `now`; admission uses the same one). */
  readonly budgetClock?: () => number;
  /** For the channel test. */
  readonly dispatcher: Dispatcher;
  readonly adapters: UpstreamAdapters;
  /** Adds cloud channels' credentials to the channel test's call. */
  readonly upstreamAuth?: UpstreamAuthorizer;
  /** The key pools' state shown on the channels page (README "Key pools"); none: counts read 0. */
  readonly credentialPool?: Pick<CredentialPool, 'stateOf'>;
  readonly mockBaseUrl?: string;
  /** ms since epoch (default Date.now). */
  readonly now: () => number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in console user, set by the console's auth hook. */
    consoleIdentity?: ConsoleIdentity;
  }
}

/** The signed-in identity. @throws AdminHttpError 401 when the request has none. */
export function identityOf(request: FastifyRequest): ConsoleIdentity {
  return request.consoleIdentity ?? unauthenticated();
}

/** Whether the request's user is an admin. */
export function isAdmin(request: FastifyRequest): boolean {
  return identityOf(request).user.role === 'admin';
}

/** @throws AdminHttpError 403 unless the request's user is an admin. */
export function requireAdmin(request: FastifyRequest): void {
  if (!isAdmin(request)) throw new AdminHttpError(403, 'this page is for admins only');
}

/**
 * How the request's user may act on a team: `admin` (a console admin: everything), `team_admin`
 * (manages the team's keys, sees its usage and budgets), `member` (sees the team read-only), or
 * undefined (not a member: the team is hidden from them).
 */
export type TeamAccess = 'admin' | 'team_admin' | 'member';

/** The request user's access to team `teamId` (undefined when the team is unknown or they are not in it). */
export function teamAccess(deps: ConsoleDeps, request: FastifyRequest, teamId: string): TeamAccess | undefined {
  const team = deps.view.team(teamId);
  if (!team) return undefined;
  if (isAdmin(request)) return 'admin';
  return team.members.get(identityOf(request).user.userId);
}

/** The teams the request's user sees: every team for an admin, else the teams they are a member of. */
export function visibleTeams(deps: ConsoleDeps, request: FastifyRequest): ReadonlyArray<TeamRecord> {
  return isAdmin(request) ? deps.view.teams() : deps.view.teamsOfUser(identityOf(request).user.userId);
}

/** Whether the request's user may see `key`: admins all; a user their own keys and every key of their teams. */
export function canSeeKey(deps: ConsoleDeps, request: FastifyRequest, key: KeyRecord): boolean {
  if (isAdmin(request) || key.userId === identityOf(request).user.userId) return true;
  return key.teamId !== null && teamAccess(deps, request, key.teamId) !== undefined;
}

/**
 * Whether the request's user may change `key` (edit, revoke, rotate): admins all; a user their own
 * keys and, as team admin, every key of that team. A member sees the team's other keys read-only.
 */
export function canManageKey(deps: ConsoleDeps, request: FastifyRequest, key: KeyRecord): boolean {
  if (isAdmin(request) || key.userId === identityOf(request).user.userId) return true;
  return key.teamId !== null && teamAccess(deps, request, key.teamId) === 'team_admin';
}

/**
 * Runs `command` as the signed-in user — their console login is the events' actor (their user id
 * if they have none) — appends its events and returns its result.
 * @throws CommandError from the command; AdminHttpError 503 when the append is not confirmed.
 */
export function runAsUser<T>(
  deps: ConsoleDeps,
  request: FastifyRequest,
  command: (ctx: CommandContext) => CommandResult<T>,
): Promise<T> {
  const { user } = identityOf(request);
  return appendCommand(deps, user.login ?? user.userId, deps.now(), command);
}

/** Pagination query: `offset` ≥ 0 (default 0), `limit` 1…200 (default 50). */
const pageQuery = z.object({
  offset: z.coerce
    .number({ error: 'must be a whole number ≥ 0' })
    .int('must be a whole number ≥ 0')
    .min(0, 'must be a whole number ≥ 0')
    .default(0),
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 200' })
    .int('must be a whole number from 1 to 200')
    .min(1, 'must be a whole number from 1 to 200')
    .max(200, 'must be a whole number from 1 to 200')
    .default(50),
});

/** Reads `offset`/`limit` from the query. @throws CommandError 400 naming the field. */
export function pageOf(request: FastifyRequest): { offset: number; limit: number } {
  const query = request.query as Record<string, unknown>;
  return parseInput(pageQuery, { offset: query.offset, limit: query.limit });
}

/** A query-string filter value: trimmed, or undefined when absent or empty. */
export function queryText(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown>)[name];
  const text: unknown = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
}

/** An ISO-8601 query time → ms, or `fallback` when absent. @throws CommandError 400 on `name`. */
export function queryTime(request: FastifyRequest, name: string, fallback: number): number {
  const text = queryText(request, name);
  if (text === undefined) return fallback;
  const ms = Date.parse(text);
  return Number.isFinite(ms)
    ? ms
    : fail(400, `${name}: must be an ISO-8601 date-time, e.g. 2030-01-01T00:00:00Z`, name);
}

/** The analytics store. @throws AdminHttpError 503 when this node has none. */
export function analyticsOf(deps: ConsoleDeps): AnalyticsStore {
  return (
    deps.analytics ?? unavailable('usage is unavailable: this gateway node has no analytics store (set CLICKHOUSE_URL)')
  );
}

/**
 * Awaits an analytics read; a failing store (down, tables not migrated yet) becomes a 503 and the
 * cause goes to the log.
 * @throws AdminHttpError 503.
 */
export async function readAnalytics<T>(request: FastifyRequest, read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (cause) {
    request.log.error({ err: cause }, 'console: analytics query failed');
    throw new AdminHttpError(503, 'usage is unavailable: the analytics store did not answer (see the gateway log)');
  }
}

/** Pages an in-memory list. */
export function paginate<T>(
  items: ReadonlyArray<T>,
  page: { offset: number; limit: number },
): { items: T[]; total: number } {
  return { items: items.slice(page.offset, page.offset + page.limit), total: items.length };
}

function unauthenticated(): never {
  throw new AdminHttpError(401, 'not signed in');
}

function unavailable(message: string): never {
  throw new AdminHttpError(503, message);
}

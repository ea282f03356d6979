/**
 * Console usage routes (CONSOLE-API.md "Usage"): the consumption log with filters and pagination,
 * one request in detail, the spend dashboard, spend by team, tag and end user, and the prompt-cache
 * economics (hit rate and savings per channel, model, key and team) — read from the
 * analytics store the consumers fill (ClickHouse, or chdb in embedded mode). A user's queries are
 * narrowed to their own user id, or, with `teamId`, to a team they are a member of; admins may
 * filter by any user or team, or none.
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { AdminHttpError } from '../control-plane/admin-errors.ts';
import { fail } from '../control-plane/commands-common.ts';
import {
  analyticsOf,
  CONSOLE_API_PREFIX,
  readAnalytics,
  identityOf,
  isAdmin,
  pageOf,
  queryText,
  queryTime,
  teamAccess,
  visibleTeams,
  type ConsoleDeps,
} from './console-context.ts';
import {
  queryAttributionSpend,
  queryCacheEconomics,
  queryUsageDetail,
  querySpendSummary,
  queryUsagePage,
  type UsageFilter,
} from './usage-queries.ts';

const DAY_MS = 24 * 3600 * 1000;
/** Widest time range one query may cover (400 days). */
const MAX_RANGE_MS = 400 * DAY_MS;
const STATUSES = new Set(['completed', 'failed', 'cancelled']);

/** Registers `/console/api/usage…` and `/console/api/spend` on `app`. */
export function registerConsoleUsageRoutes(
  app: FastifyInstance,
  options: RouteShorthandOptions,
  deps: ConsoleDeps,
): void {
  app.get(`${CONSOLE_API_PREFIX}/usage`, options, async (request) => {
    const filter = filterOf(request, deps, DAY_MS);
    const status = queryText(request, 'status');
    if (status !== undefined && !STATUSES.has(status))
      fail(400, 'status: must be completed, failed or cancelled', 'status');
    const page = pageOf(request);
    return readAnalytics(
      request,
      queryUsagePage(analyticsOf(deps), { ...filter, ...(status ? { status } : {}) }, page),
    );
  });
  app.get(`${CONSOLE_API_PREFIX}/usage/:requestId`, options, async (request) => {
    const requestId = (request.params as { requestId: string }).requestId;
    const detail = await readAnalytics(request, queryUsageDetail(analyticsOf(deps), requestId));
    const row = detail.row;
    const visible =
      row !== undefined &&
      (isAdmin(request) ||
        row.userId === identityOf(request).user.userId ||
        (row.teamId !== null && teamAccess(deps, request, row.teamId) !== undefined));
    if (!row || !visible) fail(404, `request '${requestId}' not found`, 'requestId');
    return { row, billing: detail.billing };
  });
  app.get(`${CONSOLE_API_PREFIX}/spend`, options, async (request) => {
    const filter = filterOf(request, deps, 30 * DAY_MS);
    const summary = await readAnalytics(request, querySpendSummary(analyticsOf(deps), filter));
    const names = new Map(deps.view.keys().map((k) => [k.keyId, k.name]));
    return { ...summary, topKeys: summary.topKeys.map((k) => ({ ...k, name: names.get(k.keyId) ?? k.keyId })) };
  });
  app.get(`${CONSOLE_API_PREFIX}/spend/attribution`, options, async (request) => {
    const { fromMs, toMs } = rangeOf(request, deps, 30 * DAY_MS);
    const teamId = queryText(request, 'teamId');
    if (teamId !== undefined) requireTeamAccess(deps, request, teamId);
    const teamIds =
      teamId !== undefined ? [teamId] : isAdmin(request) ? undefined : visibleTeams(deps, request).map((t) => t.teamId);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const spend = await readAnalytics(
      request,
      queryAttributionSpend(analyticsOf(deps), {
        fromDay: day(fromMs),
        toDay: day(toMs),
        ...(teamIds ? { teamIds } : {}),
      }),
    );
    const teamName = (id: string) => deps.view.team(id)?.name ?? id;
    return {
      ...spend,
      byTeam: spend.byTeam.map((row) => ({ ...row, name: teamName(row.teamId) })),
      dailyByTeam: spend.dailyByTeam.map((row) => ({ ...row, name: teamName(row.teamId) })),
    };
  });
  app.get(`${CONSOLE_API_PREFIX}/spend/cache`, options, async (request) => {
    const { fromMs, toMs } = rangeOf(request, deps, 30 * DAY_MS);
    const teamId = queryText(request, 'teamId');
    if (teamId !== undefined) requireTeamAccess(deps, request, teamId);
    const self = identityOf(request).user.userId;
    const narrowing =
      teamId !== undefined
        ? { teamIds: [teamId] }
        : isAdmin(request)
          ? {}
          : {
              teamIds: visibleTeams(deps, request).map((t) => t.teamId),
              keyIds: deps.view
                .keys()
                .filter((k) => k.userId === self)
                .map((k) => k.keyId),
            };
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const report = await readAnalytics(
      request,
      queryCacheEconomics(analyticsOf(deps), { fromDay: day(fromMs), toDay: day(toMs), ...narrowing }),
    );
    const keyNames = new Map(deps.view.keys().map((k) => [k.keyId, k.name]));
    return {
      ...report,
      byKey: report.byKey.map((row) => ({ ...row, name: keyNames.get(row.keyId) ?? row.keyId })),
      byTeam: report.byTeam.map((row) => ({
        ...row,
        name: row.teamId === '' ? '' : (deps.view.team(row.teamId)?.name ?? row.teamId),
      })),
    };
  });
}

/** `from`/`to` ISO-8601 from the query, default the last `defaultSpanMs`. @throws CommandError 400 naming the field. */
function rangeOf(request: FastifyRequest, deps: ConsoleDeps, defaultSpanMs: number): { fromMs: number; toMs: number } {
  const toMs = queryTime(request, 'to', deps.now() + 60_000);
  const fromMs = queryTime(request, 'from', toMs - defaultSpanMs);
  if (fromMs >= toMs) fail(400, 'from: must be before to', 'from');
  if (toMs - fromMs > MAX_RANGE_MS) fail(400, 'from: the range may cover at most 400 days', 'from');
  return { fromMs, toMs };
}

/**
 * @throws CommandError 404 on `teamId` for an unknown team; AdminHttpError 403 when the request's
 *   user is not a member of it.
 */
function requireTeamAccess(deps: ConsoleDeps, request: FastifyRequest, teamId: string): void {
  if (!deps.view.team(teamId)) fail(404, `teamId: team '${teamId}' not found`, 'teamId');
  if (teamAccess(deps, request, teamId) === undefined)
    throw new AdminHttpError(403, `teamId: you are not a member of team '${teamId}'`);
}

/**
 * The filter from the query string (`from`/`to` ISO-8601, default the last `defaultSpanMs`),
 * narrowed for non-admins to their own rows, or with `teamId` to the rows of a team they are in.
 */
function filterOf(request: FastifyRequest, deps: ConsoleDeps, defaultSpanMs: number): UsageFilter {
  const { fromMs, toMs } = rangeOf(request, deps, defaultSpanMs);
  const teamId = queryText(request, 'teamId');
  if (teamId !== undefined) requireTeamAccess(deps, request, teamId);
  const userId =
    isAdmin(request) || teamId !== undefined ? queryText(request, 'userId') : identityOf(request).user.userId;
  const optional = (name: string) => {
    const value = queryText(request, name);
    return value === undefined ? {} : { [name]: value };
  };
  return {
    fromMs,
    toMs,
    ...(userId === undefined ? {} : { userId }),
    ...(teamId === undefined ? {} : { teamId }),
    ...optional('keyId'),
    ...optional('model'),
    ...optional('channelId'),
  };
}

/**
 * Console usage routes (CONSOLE-API.md "Usage"): the consumption log with filters and pagination,
 * one request in detail, and the spend dashboard — read from the analytics store the consumers
 * fill (ClickHouse, or chdb in embedded mode). A user's queries are always narrowed to their own
 * user id; admins may filter by any user or none.
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
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
  type ConsoleDeps,
} from './console-context.ts';
import { queryUsageDetail, querySpendSummary, queryUsagePage, type UsageFilter } from './usage-queries.ts';

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
    if (!row || (!isAdmin(request) && row.userId !== identityOf(request).user.userId))
      fail(404, `request '${requestId}' not found`, 'requestId');
    return { row, billing: detail.billing };
  });
  app.get(`${CONSOLE_API_PREFIX}/spend`, options, async (request) => {
    const filter = filterOf(request, deps, 30 * DAY_MS);
    const summary = await readAnalytics(request, querySpendSummary(analyticsOf(deps), filter));
    const names = new Map(deps.view.keys().map((k) => [k.keyId, k.name]));
    return { ...summary, topKeys: summary.topKeys.map((k) => ({ ...k, name: names.get(k.keyId) ?? k.keyId })) };
  });
}

/** The filter from the query string (`from`/`to` ISO-8601, default the last `defaultSpanMs`), narrowed to the user's own rows for non-admins. */
function filterOf(request: FastifyRequest, deps: ConsoleDeps, defaultSpanMs: number): UsageFilter {
  const toMs = queryTime(request, 'to', deps.now() + 60_000);
  const fromMs = queryTime(request, 'from', toMs - defaultSpanMs);
  if (fromMs >= toMs) fail(400, 'from: must be before to', 'from');
  if (toMs - fromMs > MAX_RANGE_MS) fail(400, 'from: the range may cover at most 400 days', 'from');
  const userId = isAdmin(request) ? queryText(request, 'userId') : identityOf(request).user.userId;
  const optional = (name: string) => {
    const value = queryText(request, name);
    return value === undefined ? {} : { [name]: value };
  };
  return {
    fromMs,
    toMs,
    ...(userId === undefined ? {} : { userId }),
    ...optional('keyId'),
    ...optional('model'),
    ...optional('channelId'),
  };
}

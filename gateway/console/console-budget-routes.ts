/**
 * Console budget and alert-webhook routes (CONSOLE-API.md "Budgets", "Alert webhooks"). Admins
 * list, set and remove every budget and manage the webhooks through the admin API's commands (same
 * validation, same events). A user sees, read-only, the budgets on themselves, on the keys they
 * see and on their teams. Every budget comes with the use of its current window, read from the
 * budget ledger admission reserves in (spent + live holds), or `unknown` when this node has no
 * ledger or it did not answer.
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { budgetWindowAt } from '../../schemas/control-plane/budget-periods.ts';
import type { BudgetWindowUse } from '../../schemas/state-store/budget-ledger.ts';
import { presentAlertWebhook, presentBudget, type BudgetView } from '../control-plane/admin-presenters.ts';
import {
  createAlertWebhook,
  removeAlertWebhook,
  requireAlertWebhook,
  updateAlertWebhook,
} from '../control-plane/commands-alert-webhooks.ts';
import { BUDGET_SCOPES, removeBudget, requireBudget, setBudget } from '../control-plane/commands-budgets.ts';
import { fail, nanoToUsd } from '../control-plane/commands-common.ts';
import type { BudgetRecord, BudgetScope } from '../control-plane/control-plane-view.ts';
import {
  canSeeKey,
  CONSOLE_API_PREFIX,
  identityOf,
  isAdmin,
  queryText,
  requireAdmin,
  runAsUser,
  teamAccess,
  type ConsoleDeps,
} from './console-context.ts';

/**
 * The use of a budget's current window. Money in USD decimal strings, times ISO-8601.
 * `state: 'unknown'` (no ledger on this node, or it did not answer): spent, held and percent are null.
 */
export interface BudgetUse {
  readonly budgetId: string;
  readonly state: 'known' | 'unknown';
  /** Start of the current window; null for a lifetime budget. */
  readonly windowStart: string | null;
  /** When the window ends and the budget resets; null = never (lifetime). */
  readonly resetsAt: string | null;
  readonly limitUsd: string | null;
  readonly limitTokens: number | null;
  /** Billed into the window. */
  readonly spentUsd: string | null;
  readonly spentTokens: number | null;
  /** Held by requests in flight (worst case until they settle). */
  readonly heldUsd: string | null;
  readonly heldTokens: number | null;
  /** (spent + held) / limit × 100, one decimal, the larger of USD and tokens; ≥ 100 = admission refuses. */
  readonly percent: number | null;
}

/** A budget as the console lists it: the admin API's view, the name of what it is on, and its use. */
export interface BudgetRow extends BudgetView {
  /** The key's, user's or team's name; the scope id itself for end users and tags. */
  readonly scopeName: string;
  readonly use: BudgetUse;
}

/** Registers `/console/api/budgets…` and `/console/api/alert-webhooks…` on `app`. */
export function registerConsoleBudgetRoutes(
  app: FastifyInstance,
  options: RouteShorthandOptions,
  deps: ConsoleDeps,
): void {
  registerBudgetRoutes(app, options, deps);
  registerAlertWebhookRoutes(app, options, deps);
}

function registerBudgetRoutes(app: FastifyInstance, options: RouteShorthandOptions, deps: ConsoleDeps): void {
  const prefix = `${CONSOLE_API_PREFIX}/budgets`;
  const timeZone = deps.budgetTimeZone;
  const show = async (request: FastifyRequest, budgetId: string) => ({
    budget: (await budgetRows(deps, request, [requireBudget(deps.view, budgetId)]))[0]!,
  });
  app.get(prefix, options, async (request) => {
    const budgets = await budgetRows(deps, request, visibleBudgets(deps, request));
    return { budgets, total: budgets.length };
  });
  app.get(`${prefix}/use`, options, async (request) => ({
    uses: await budgetUses(deps, request, visibleBudgets(deps, request)),
  }));
  app.get(`${prefix}/:id`, options, async (request) => {
    const budgetId = param(request, 'id');
    const budget = deps.view.budget(budgetId);
    if (!budget || !canSeeBudget(deps, request, budget)) fail(404, `budget '${budgetId}' not found`, 'id');
    return show(request, budgetId);
  });
  app.post(prefix, options, async (request, reply) => {
    requireAdmin(request);
    const { budgetId } = await runAsUser(deps, request, (ctx) =>
      setBudget(deps.view, undefined, request.body, ctx, timeZone),
    );
    return reply.code(201).send(await show(request, budgetId));
  });
  app.patch(`${prefix}/:id`, options, async (request) => {
    requireAdmin(request);
    const { budgetId } = await runAsUser(deps, request, (ctx) =>
      setBudget(deps.view, param(request, 'id'), request.body, ctx, timeZone),
    );
    return show(request, budgetId);
  });
  app.delete(`${prefix}/:id`, options, async (request) => {
    requireAdmin(request);
    const { budgetId } = await runAsUser(deps, request, (ctx) => removeBudget(deps.view, param(request, 'id'), ctx));
    return { removed: budgetId };
  });
}

function registerAlertWebhookRoutes(app: FastifyInstance, options: RouteShorthandOptions, deps: ConsoleDeps): void {
  const prefix = `${CONSOLE_API_PREFIX}/alert-webhooks`;
  const adminOptions: RouteShorthandOptions = { ...options, preHandler: async (request) => requireAdmin(request) };
  const show = (webhookId: string) => ({
    alertWebhook: presentAlertWebhook(requireAlertWebhook(deps.view, webhookId)),
  });
  app.get(prefix, adminOptions, async () => ({ alertWebhooks: deps.view.alertWebhooks().map(presentAlertWebhook) }));
  app.post(prefix, adminOptions, async (request, reply) => {
    const { webhookId, secret } = await runAsUser(deps, request, (ctx) =>
      createAlertWebhook(deps.view, request.body, ctx),
    );
    return reply.code(201).send({ ...show(webhookId), secret });
  });
  app.patch(`${prefix}/:id`, adminOptions, async (request) => {
    const { webhookId } = await runAsUser(deps, request, (ctx) =>
      updateAlertWebhook(deps.view, param(request, 'id'), request.body, ctx),
    );
    return show(webhookId);
  });
  app.delete(`${prefix}/:id`, adminOptions, async (request) => {
    const { webhookId } = await runAsUser(deps, request, (ctx) =>
      removeAlertWebhook(deps.view, param(request, 'id'), ctx),
    );
    return { removed: webhookId };
  });
}

/**
 * The budgets the request's user sees, narrowed by the `scope` and `scopeId` query filters, in
 * the order first set.
 * @throws CommandError 400 on `scope` when it is not a budget scope.
 */
function visibleBudgets(deps: ConsoleDeps, request: FastifyRequest): BudgetRecord[] {
  const scope = queryText(request, 'scope');
  const scopeId = queryText(request, 'scopeId');
  if (scope !== undefined && !(BUDGET_SCOPES as ReadonlyArray<string>).includes(scope))
    fail(400, `scope: must be one of ${BUDGET_SCOPES.map((s) => `'${s}'`).join(', ')}`, 'scope');
  const candidates =
    scope !== undefined && scopeId !== undefined
      ? deps.view.budgetsFor(scope as BudgetScope, scopeId)
      : deps.view.budgets().filter((b) => (scope ?? b.scope) === b.scope && (scopeId ?? b.scopeId) === b.scopeId);
  return candidates.filter((budget) => canSeeBudget(deps, request, budget));
}

/**
 * Whether the request's user may see `budget`: admins all; a user the budgets on themselves, on
 * keys they see and on teams they are a member of (end-user and tag budgets span teams: admins only).
 */
function canSeeBudget(deps: ConsoleDeps, request: FastifyRequest, budget: BudgetRecord): boolean {
  if (isAdmin(request)) return true;
  switch (budget.scope) {
    case 'user':
      return budget.scopeId === identityOf(request).user.userId;
    case 'team':
      return teamAccess(deps, request, budget.scopeId) !== undefined;
    case 'key': {
      const key = deps.view.key(budget.scopeId);
      return key !== undefined && canSeeKey(deps, request, key);
    }
    default:
      return false;
  }
}

async function budgetRows(
  deps: ConsoleDeps,
  request: FastifyRequest,
  budgets: ReadonlyArray<BudgetRecord>,
): Promise<BudgetRow[]> {
  const uses = await budgetUses(deps, request, budgets);
  return budgets.map((budget, index) => ({
    ...presentBudget(budget),
    scopeName: scopeNameOf(deps, budget),
    use: uses[index]!,
  }));
}

function scopeNameOf(deps: ConsoleDeps, budget: BudgetRecord): string {
  switch (budget.scope) {
    case 'key':
      return deps.view.key(budget.scopeId)?.name ?? budget.scopeId;
    case 'user':
      return deps.view.user(budget.scopeId)?.name ?? budget.scopeId;
    case 'team':
      return deps.view.team(budget.scopeId)?.name ?? budget.scopeId;
    default:
      return budget.scopeId;
  }
}

/**
 * The use of each budget's window at the budget clock's now, in order: one ledger read for all.
 * A ledger that fails is logged and reads `unknown` (the page still shows limits and windows).
 */
export async function budgetUses(
  deps: ConsoleDeps,
  request: FastifyRequest,
  budgets: ReadonlyArray<BudgetRecord>,
): Promise<BudgetUse[]> {
  const nowMs = (deps.budgetClock ?? deps.now)();
  const counters = budgets.map((budget) => {
    const window = budgetWindowAt(budget, nowMs);
    return { budgetId: budget.budgetId, windowStartMs: window.startMs, windowEndMs: window.endMs };
  });
  let read: BudgetWindowUse[] | undefined;
  if (deps.budgetLedger && counters.length > 0) {
    read = await deps.budgetLedger.readBudgetUse(counters, nowMs).catch((cause: unknown) => {
      request.log.warn({ err: cause }, 'console: budget ledger read failed');
      return undefined;
    });
  }
  return budgets.map((budget, index) =>
    presentUse(budget, counters[index]!, read?.[index] ?? (read ? emptyUse(counters[index]!) : undefined)),
  );
}

function emptyUse(counter: BudgetWindowUse['counter']): BudgetWindowUse {
  return { counter, spentNanoUsd: 0n, spentTokens: 0, heldNanoUsd: 0n, heldTokens: 0, alertedPercents: [] };
}

function presentUse(
  budget: BudgetRecord,
  counter: BudgetWindowUse['counter'],
  use: BudgetWindowUse | undefined,
): BudgetUse {
  const window = {
    budgetId: budget.budgetId,
    windowStart: budget.period === 'lifetime' ? null : new Date(counter.windowStartMs).toISOString(),
    resetsAt: counter.windowEndMs === null ? null : new Date(counter.windowEndMs).toISOString(),
    limitUsd: budget.limitNanoUsd === null ? null : nanoToUsd(budget.limitNanoUsd),
    limitTokens: budget.limitTokens,
  };
  if (!use)
    return {
      ...window,
      state: 'unknown',
      spentUsd: null,
      spentTokens: null,
      heldUsd: null,
      heldTokens: null,
      percent: null,
    };
  const percents: number[] = [];
  if (budget.limitNanoUsd !== null) percents.push(percentOf(use.spentNanoUsd + use.heldNanoUsd, budget.limitNanoUsd));
  if (budget.limitTokens !== null)
    percents.push(percentOf(BigInt(use.spentTokens + use.heldTokens), BigInt(budget.limitTokens)));
  return {
    ...window,
    state: 'known',
    spentUsd: nanoToUsd(use.spentNanoUsd),
    spentTokens: use.spentTokens,
    heldUsd: nanoToUsd(use.heldNanoUsd),
    heldTokens: use.heldTokens,
    percent: percents.length === 0 ? null : Math.max(...percents),
  };
}

/** `used` as a percent of `limit`, rounded down to one decimal; a zero limit is 100 % used. */
function percentOf(used: bigint, limit: bigint): number {
  if (limit <= 0n) return 100;
  return Number((used * 1000n) / limit) / 10;
}

function param(request: FastifyRequest, name: string): string {
  return (request.params as Record<string, string>)[name] ?? '';
}

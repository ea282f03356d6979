/**
 * Routes for teams, budgets and alert webhooks, under `prefix` (the admin API's `/admin/api`;
 * another API may mount them with its own options). Every answer shows records through
 * admin-presenters.ts — never a webhook's secret, except the one returned by its creation.
 *
 * - `GET <prefix>/teams` → `{ teams: TeamView[] }`; `POST <prefix>/teams` → 201 `{ team }`;
 *   `GET|PATCH <prefix>/teams/:id` → `{ team }` (`{ "disabled": true }` disables a team: teams are
 *   never deleted); `PUT <prefix>/teams/:id/members/:userId` `{ role? }` → `{ team }`;
 *   `DELETE <prefix>/teams/:id/members/:userId` → `{ team }`.
 * - `GET <prefix>/budgets?scope=&scopeId=` → `{ budgets: BudgetView[] }`; `POST <prefix>/budgets`
 *   → 201 `{ budget }`; `GET <prefix>/budgets/:id`, `PUT|PATCH <prefix>/budgets/:id` (the given
 *   fields replace the budget's) → `{ budget }`; `DELETE <prefix>/budgets/:id` → `{ removed }`.
 * - `GET <prefix>/alert-webhooks` → `{ alertWebhooks: AlertWebhookView[] }`; `POST
 *   <prefix>/alert-webhooks` → 201 `{ alertWebhook, secret }` — `secret` is shown this once;
 *   `GET|PATCH <prefix>/alert-webhooks/:id` → `{ alertWebhook }`; `DELETE` → `{ removed }`.
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { presentAlertWebhook, presentBudget, presentTeam } from './admin-presenters.ts';
import type { RunCommand } from './admin-token-routes.ts';
import {
  createAlertWebhook,
  removeAlertWebhook,
  requireAlertWebhook,
  updateAlertWebhook,
} from './commands-alert-webhooks.ts';
import { BUDGET_SCOPES, removeBudget, requireBudget, setBudget } from './commands-budgets.ts';
import { fail } from './commands-common.ts';
import { createTeam, removeTeamMember, setTeamMember, updateTeam } from './commands-teams.ts';
import type { BudgetScope, ControlPlaneView } from './control-plane-view.ts';

/** What the team, budget and alert-webhook routes need. */
export interface CostControlRouteDeps {
  readonly view: ControlPlaneView;
  readonly run: RunCommand;
  /** Time zone of new calendar budgets that name none (IANA name). */
  readonly budgetTimeZone: string;
}

/** Registers the team, budget and alert-webhook routes (module doc) under `prefix` with `options`. */
export function registerCostControlRoutes(
  app: FastifyInstance,
  prefix: string,
  options: RouteShorthandOptions,
  deps: CostControlRouteDeps,
): void {
  registerTeamRoutes(app, prefix, options, deps);
  registerBudgetRoutes(app, prefix, options, deps);
  registerAlertWebhookRoutes(app, prefix, options, deps);
}

function registerTeamRoutes(
  app: FastifyInstance,
  prefix: string,
  options: RouteShorthandOptions,
  { view, run }: CostControlRouteDeps,
): void {
  const show = (teamId: string) => ({
    team: presentTeam(view.team(teamId) ?? fail(404, `team '${teamId}' not found`, 'id')),
  });
  app.get(`${prefix}/teams`, options, async () => ({ teams: view.teams().map(presentTeam) }));
  app.get(`${prefix}/teams/:id`, options, async (request) => show(param(request, 'id')));
  app.post(`${prefix}/teams`, options, async (request, reply) => {
    const { teamId } = await run(request, (ctx) => createTeam(view, request.body, ctx));
    return reply.code(201).send(show(teamId));
  });
  app.patch(`${prefix}/teams/:id`, options, async (request) => {
    const { teamId } = await run(request, (ctx) => updateTeam(view, param(request, 'id'), request.body, ctx));
    return show(teamId);
  });
  app.put(`${prefix}/teams/:id/members/:userId`, options, async (request) => {
    const { teamId } = await run(request, (ctx) =>
      setTeamMember(view, param(request, 'id'), param(request, 'userId'), request.body, ctx),
    );
    return show(teamId);
  });
  app.delete(`${prefix}/teams/:id/members/:userId`, options, async (request) => {
    const { teamId } = await run(request, (ctx) =>
      removeTeamMember(view, param(request, 'id'), param(request, 'userId'), ctx),
    );
    return show(teamId);
  });
}

function registerBudgetRoutes(
  app: FastifyInstance,
  prefix: string,
  options: RouteShorthandOptions,
  { view, run, budgetTimeZone }: CostControlRouteDeps,
): void {
  const show = (budgetId: string) => ({ budget: presentBudget(requireBudget(view, budgetId)) });
  app.get(`${prefix}/budgets`, options, async (request) => {
    const { scope, scopeId } = request.query as { scope?: string; scopeId?: string };
    if (scope !== undefined && !(BUDGET_SCOPES as ReadonlyArray<string>).includes(scope))
      fail(400, `scope: must be one of ${BUDGET_SCOPES.map((s) => `'${s}'`).join(', ')}`, 'scope');
    const budgets =
      scope !== undefined && scopeId !== undefined
        ? view.budgetsFor(scope as BudgetScope, scopeId)
        : view.budgets().filter((b) => (scope ?? b.scope) === b.scope && (scopeId ?? b.scopeId) === b.scopeId);
    return { budgets: budgets.map(presentBudget) };
  });
  app.get(`${prefix}/budgets/:id`, options, async (request) => show(param(request, 'id')));
  app.post(`${prefix}/budgets`, options, async (request, reply) => {
    const { budgetId } = await run(request, (ctx) => setBudget(view, undefined, request.body, ctx, budgetTimeZone));
    return reply.code(201).send(show(budgetId));
  });
  const update = async (request: FastifyRequest) => {
    const { budgetId } = await run(request, (ctx) =>
      setBudget(view, param(request, 'id'), request.body, ctx, budgetTimeZone),
    );
    return show(budgetId);
  };
  app.put(`${prefix}/budgets/:id`, options, update);
  app.patch(`${prefix}/budgets/:id`, options, update);
  app.delete(`${prefix}/budgets/:id`, options, async (request) => {
    const { budgetId } = await run(request, (ctx) => removeBudget(view, param(request, 'id'), ctx));
    return { removed: budgetId };
  });
}

function registerAlertWebhookRoutes(
  app: FastifyInstance,
  prefix: string,
  options: RouteShorthandOptions,
  { view, run }: CostControlRouteDeps,
): void {
  const show = (webhookId: string) => ({ alertWebhook: presentAlertWebhook(requireAlertWebhook(view, webhookId)) });
  app.get(`${prefix}/alert-webhooks`, options, async () => ({
    alertWebhooks: view.alertWebhooks().map(presentAlertWebhook),
  }));
  app.get(`${prefix}/alert-webhooks/:id`, options, async (request) => show(param(request, 'id')));
  app.post(`${prefix}/alert-webhooks`, options, async (request, reply) => {
    const { webhookId, secret } = await run(request, (ctx) => createAlertWebhook(view, request.body, ctx));
    return reply.code(201).send({ ...show(webhookId), secret });
  });
  app.patch(`${prefix}/alert-webhooks/:id`, options, async (request) => {
    const { webhookId } = await run(request, (ctx) =>
      updateAlertWebhook(view, param(request, 'id'), request.body, ctx),
    );
    return show(webhookId);
  });
  app.delete(`${prefix}/alert-webhooks/:id`, options, async (request) => {
    const { webhookId } = await run(request, (ctx) => removeAlertWebhook(view, param(request, 'id'), ctx));
    return { removed: webhookId };
  });
}

function param(request: FastifyRequest, name: string): string {
  return (request.params as Record<string, string>)[name] ?? '';
}

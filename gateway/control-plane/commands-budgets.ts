/**
 * Budget commands: set (create, or change the given fields of one) and remove. A budget limits
 * the spend (USD) and/or tokens of one key, user, team, end user or tag per window of its period
 * (schemas/control-plane/budget-periods.ts); each command validates its input (zod, strict) against the
 * current ControlPlaneView and returns the events to append; nothing is written here.
 */
import { z } from 'zod';
import { isKnownTimeZone, MIN_ROLLING_MS } from '../../schemas/control-plane/budget-periods.ts';
import type { BudgetSet } from '../../schemas/control-plane/control-plane-events.ts';
import type { BudgetPeriod, BudgetRecord, BudgetScope } from '../../schemas/control-plane/control-plane-records.ts';
import type { ControlPlaneView } from './control-plane-view.ts';
import {
  eventHeader,
  fail,
  nameField,
  newEntityId,
  parseInput,
  requireSomeField,
  usdField,
  type CommandContext,
  type CommandResult,
} from './commands-common.ts';
import { MAX_END_USER_ID_LENGTH, tagProblem } from './commands-limits-and-tags.ts';

/** The time zone of calendar budgets created without one, when the node configures none. */
export const DEFAULT_BUDGET_TIME_ZONE = 'UTC';

/** What a budget may apply to. */
export const BUDGET_SCOPES = ['key', 'user', 'team', 'end_user', 'tag'] as const satisfies ReadonlyArray<BudgetScope>;

/** How a budget's window resets. */
export const BUDGET_PERIODS = [
  'lifetime',
  'day',
  'week',
  'month',
  'rolling',
] as const satisfies ReadonlyArray<BudgetPeriod>;

const THRESHOLD_RANGE = 'must be a whole percent > 0 and ≤ 100';

/** The fields of a budget as the admin API takes them (amounts in USD, windows in ms). */
const budgetFields = {
  name: nameField,
  scope: z.enum(BUDGET_SCOPES, { error: `must be one of ${BUDGET_SCOPES.map((s) => `'${s}'`).join(', ')}` }),
  scopeId: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
  limitUsd: usdField,
  limitTokens: z
    .number({ error: 'must be a whole number of tokens ≥ 0, or null' })
    .int('must be a whole number of tokens ≥ 0, or null')
    .min(0, 'must be a whole number of tokens ≥ 0, or null')
    .nullable(),
  period: z.enum(BUDGET_PERIODS, { error: `must be one of ${BUDGET_PERIODS.map((p) => `'${p}'`).join(', ')}` }),
  rollingMs: z
    .number({ error: `must be a whole number of ms ≥ ${MIN_ROLLING_MS}, or null` })
    .int(`must be a whole number of ms ≥ ${MIN_ROLLING_MS}, or null`)
    .min(MIN_ROLLING_MS, `must be ≥ ${MIN_ROLLING_MS} (one minute)`)
    .nullable(),
  timeZone: z
    .string({ error: 'must be an IANA time zone name, e.g. UTC or Europe/Berlin' })
    .refine(isKnownTimeZone, 'must be an IANA time zone name this server knows, e.g. UTC or Europe/Berlin'),
  thresholds: z
    .array(z.number({ error: THRESHOLD_RANGE }).int(THRESHOLD_RANGE).gt(0, THRESHOLD_RANGE).max(100, THRESHOLD_RANGE), {
      error: 'must be an array of percents',
    })
    .superRefine((percents, ctx) => {
      const repeated = percents.findIndex((p, i) => percents.indexOf(p) !== i);
      if (repeated >= 0)
        ctx.addIssue({ code: 'custom', message: `${percents[repeated]} appears twice`, path: [repeated] });
    })
    .transform((percents) => [...percents].sort((a, b) => a - b)),
  downgradeModel: z.string({ error: 'must be a model name or null' }).min(1, 'must not be empty').nullable(),
};

/**
 * Body of creating a budget: `{ name, scope, scopeId, period, limitUsd?, limitTokens? (at least
 * one), rollingMs? (rolling only, ≥ 60 000), timeZone? (default: the node's), thresholds?
 * (percents), downgradeModel? }`.
 */
export const createBudgetInput = z
  .object({
    ...budgetFields,
    limitUsd: budgetFields.limitUsd.default(null),
    limitTokens: budgetFields.limitTokens.default(null),
    rollingMs: budgetFields.rollingMs.default(null),
    timeZone: budgetFields.timeZone.optional(),
    thresholds: budgetFields.thresholds.default([]),
    downgradeModel: budgetFields.downgradeModel.default(null),
  })
  .strict();

/** Body of updating a budget: any of createBudgetInput's fields; scope and scopeId cannot change. */
export const updateBudgetInput = z.object(budgetFields).partial().strict();

/** A budget's settings in admin API units, before its event is built. */
type BudgetSettings = Omit<z.output<typeof createBudgetInput>, 'timeZone'> & { readonly timeZone: string };

/**
 * Sets budget `budgetId`: without one, creates a budget with a fresh id (`bgt_…`) from the body;
 * with one, the given fields replace the budget's (a period changed away from `rolling` drops its
 * rollingMs). Cross-field rules: at least one of limitUsd and limitTokens; rollingMs for a
 * rolling budget and for no other; the key, user or team named by scopeId exists (a key may be
 * named by its public id); an end-user id has at most 256 characters; a tag is `name=value`.
 * @param defaultTimeZone the time zone of a new budget that names none (the node's config)
 * @returns one BudgetSet event; result `{ budgetId, created }`.
 * @throws CommandError 400 naming the field (nothing appended), 404 unknown budgetId (field `id`).
 */
export function setBudget(
  view: ControlPlaneView,
  budgetId: string | undefined,
  input: unknown,
  ctx: CommandContext,
  defaultTimeZone: string = DEFAULT_BUDGET_TIME_ZONE,
): CommandResult<{ budgetId: string; created: boolean }> {
  const current = budgetId === undefined ? undefined : requireBudget(view, budgetId);
  const settings = current ? updatedSettings(current, input) : createdSettings(input, defaultTimeZone);
  const scopeId = checkedScopeId(view, settings.scope, settings.scopeId);
  if (settings.limitUsd === null && settings.limitTokens === null)
    fail(400, 'limitUsd: set limitUsd, limitTokens or both', 'limitUsd');
  if (settings.period === 'rolling' && settings.rollingMs === null)
    fail(400, 'rollingMs: is required for a rolling budget', 'rollingMs');
  if (settings.period !== 'rolling' && settings.rollingMs !== null)
    fail(400, `rollingMs: only a rolling budget has one (this one is '${settings.period}')`, 'rollingMs');
  const { limitUsd, ...rest } = settings;
  const event: BudgetSet = {
    ...eventHeader(ctx),
    ...rest,
    budgetId: current?.budgetId ?? newEntityId('bgt_'),
    scopeId,
    limitNanoUsd: limitUsd === null ? null : limitUsd.toString(),
  };
  return {
    events: [{ type: 'BudgetSet', event }],
    result: { budgetId: event.budgetId, created: current === undefined },
  };
}

/**
 * Removes budget `budgetId` (its spend so far stays in the analytics tables).
 * @returns one BudgetRemoved event; result `{ budgetId }`.
 * @throws CommandError 404 unknown budget (field `id`).
 */
export function removeBudget(
  view: ControlPlaneView,
  budgetId: string,
  ctx: CommandContext,
): CommandResult<{ budgetId: string }> {
  requireBudget(view, budgetId);
  return { events: [{ type: 'BudgetRemoved', event: { ...eventHeader(ctx), budgetId } }], result: { budgetId } };
}

/** The budget `budgetId`. @throws CommandError 404 `budget '<id>' not found` (field `id`). */
export function requireBudget(view: ControlPlaneView, budgetId: string): BudgetRecord {
  return view.budget(budgetId) ?? fail(404, `budget '${budgetId}' not found`, 'id');
}

function createdSettings(input: unknown, defaultTimeZone: string): BudgetSettings {
  const body = parseInput(createBudgetInput, input);
  return { ...body, timeZone: body.timeZone ?? defaultTimeZone };
}

function updatedSettings(current: BudgetRecord, input: unknown): BudgetSettings {
  const body = parseInput(updateBudgetInput, input);
  requireSomeField(body);
  for (const field of ['scope', 'scopeId'] as const) {
    if (body[field] !== undefined && body[field] !== current[field])
      fail(400, `${field}: cannot change; remove the budget and create another`, field);
  }
  const period = body.period ?? current.period;
  return {
    name: body.name ?? current.name,
    scope: current.scope,
    scopeId: current.scopeId,
    limitUsd: body.limitUsd === undefined ? current.limitNanoUsd : body.limitUsd,
    limitTokens: body.limitTokens === undefined ? current.limitTokens : body.limitTokens,
    period,
    rollingMs: body.rollingMs !== undefined ? body.rollingMs : period === 'rolling' ? current.rollingMs : null,
    timeZone: body.timeZone ?? current.timeZone,
    thresholds: body.thresholds ?? [...current.thresholds],
    downgradeModel: body.downgradeModel === undefined ? current.downgradeModel : body.downgradeModel,
  };
}

/**
 * The scope id as stored: a key's id (also when named by its public id); the others as given.
 * @throws CommandError 400 on `scopeId` when the key, user or team does not exist, an end-user
 *   id is longer than 256 characters, or a tag is not a well-formed `name=value`.
 */
function checkedScopeId(view: ControlPlaneView, scope: BudgetScope, scopeId: string): string {
  const missing = (): never => fail(400, `scopeId: ${scope} '${scopeId}' does not exist`, 'scopeId');
  switch (scope) {
    case 'key':
      return (view.key(scopeId) ?? view.keys().find((k) => k.publicId === scopeId) ?? missing()).keyId;
    case 'user':
      return view.user(scopeId) ? scopeId : missing();
    case 'team':
      return view.team(scopeId) ? scopeId : missing();
    case 'end_user':
      if (scopeId.length > MAX_END_USER_ID_LENGTH)
        fail(400, `scopeId: an end-user id has at most ${MAX_END_USER_ID_LENGTH} characters`, 'scopeId');
      return scopeId;
    case 'tag': {
      const problem = tagProblem(scopeId);
      return problem === undefined ? scopeId : fail(400, `scopeId: ${problem}`, 'scopeId');
    }
  }
}

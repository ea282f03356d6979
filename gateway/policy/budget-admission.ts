/**
 * Budgets and daily caps at admission, exact across gateway nodes (the BudgetLedger port,
 * schemas/state-store/budget-ledger.ts):
 *
 * 1. Which windows a request claims: every budget on its key, its key's user, its key's team, its
 *    end user and each of its tags (budget-periods.ts gives the window of the request's arrival),
 *    and the daily caps — requests per day (RPD) and tokens per day (TPD) of the key and the team,
 *    overall and per model — as counters `rpd:<scope>` / `tpd:<scope>` over the calendar day of
 *    the caps' time zone. An `rpd:` counter counts requests: its tokens are requests.
 * 2. The hold: the request's worst case — its estimated input tokens at the highest input price of
 *    its model's channels plus its max output tokens at the highest output price
 *    (request-pricer.ts) — and its worst-case tokens; 1 request for an RPD cap.
 * 3. All claims are reserved at once or none (the ledger). A window whose use (spent + live holds)
 *    has reached its limit refuses: `budget_exceeded` for a budget (the format's 429,
 *    `retry-after` = the window's end), `daily_limit_exceeded` for a cap (429 until local
 *    midnight). A refusing budget with a `downgradeModel` routes the request to that model instead:
 *    admission runs again for it, the downgrading budget still holding and counting the request but
 *    no longer refusing it.
 * 4. Settlement (settleBudgets) replaces the holds by the real cost once the exchange ended; the
 *    billing consumer then adds the billed cost to the same counters (the UsageRecorded event
 *    carries them) and drops the holds.
 *
 * Bound: a window refuses once its use reaches the limit, so spend in it ends below the limit plus
 * the holds of the requests admitted while it was still under (at most one per concurrent
 * admission), as long as each request's real cost stays within its hold (its output within its
 * `max_tokens`, or within DEFAULT_MAX_OUTPUT_TOKENS when it sets none).
 */
import { budgetWindowAt, type BudgetWindow } from '../../schemas/control-plane/budget-periods.ts';
import type {
  BudgetRecord,
  BudgetScope,
  KeyRecord,
  ModelLimit,
  TeamRecord,
} from '../../schemas/control-plane/control-plane-records.ts';
import {
  REQUEST_COUNTER_PREFIX,
  TOKEN_COUNTER_PREFIX,
  type BudgetClaim,
  type BudgetCounter,
  type BudgetLedger,
  type BudgetWindowUse,
} from '../../schemas/state-store/budget-ledger.ts';
import { GatewayError } from '../canonical/gateway-error.ts';
import type { Usage } from '../canonical/usage.ts';
import { formatNanoUsd } from './admit-request.ts';
import type { RequestPricer } from './request-pricer.ts';

/** Budgets by what they apply to (ControlPlaneView.budgetsFor). */
export interface BudgetDirectory {
  /** The budgets on one key, user, team, end user or tag (`name=value`); [] when none. */
  budgetsFor(scope: BudgetScope, scopeId: string): ReadonlyArray<BudgetRecord>;
}

/** What budget admission reads and writes. */
export interface BudgetAdmissionDeps {
  readonly ledger: BudgetLedger;
  readonly directory: BudgetDirectory;
  readonly pricer: RequestPricer;
  /** IANA time zone of the RPD/TPD calendar day (config `budgets.timeZone`). */
  readonly capsTimeZone: string;
  /** ms since epoch (tests move it); default Date.now. */
  readonly clock?: () => number;
  /** How long a running request's hold lives at most, ms (default 15 minutes). */
  readonly holdMs?: number;
  /** How long a settled hold waits for the consumers to bill it, ms (default 1 hour). */
  readonly settledHoldMs?: number;
}

/** The request as budgets see it. */
export interface BudgetSubject {
  readonly requestId: string;
  readonly key: KeyRecord;
  readonly team: TeamRecord | undefined;
  readonly endUserId: string | null;
  /** `name=value` */
  readonly tags: ReadonlyArray<string>;
  /** The client's model (an alias or a model name). */
  readonly model: string;
  /** Estimated input tokens. */
  readonly inputTokens: number;
  /** Max output tokens (the request's, or the default reserved when it sets none). */
  readonly maxOutputTokens: number;
}

/** One claimed window and what it is: a budget, or a daily cap of requests or tokens. */
interface ClaimedWindow {
  readonly claim: BudgetClaim;
  readonly budget: BudgetRecord | undefined;
  readonly cap: { readonly label: string; readonly unit: 'requests' | 'tokens' } | undefined;
}

/** An admitted request's holds, to settle after the exchange and to name in its UsageRecorded event. */
export interface BudgetHolds {
  readonly requestId: string;
  /** Every counter held, in claim order. */
  readonly counters: ReadonlyArray<BudgetCounter>;
  /** The model the request runs on: the client's, or a budget's downgrade model. */
  readonly model: string;
  /** Set when a budget at its limit routed the request to `model`. */
  readonly downgradedFrom: string | null;
  /** When the holds were taken, ms since epoch. */
  readonly heldAt: number;
}

/** The answer of admitBudgets. */
export type BudgetAdmission =
  | { readonly ok: true; readonly holds: BudgetHolds | undefined; readonly uses: ReadonlyArray<BudgetWindowUse> }
  | { readonly ok: false; readonly error: GatewayError; readonly limit: 'budget' | 'daily_limit' };

const EMPTY: ReadonlyArray<BudgetRecord> = [];
const DEFAULT_HOLD_MS = 15 * 60_000;
const DEFAULT_SETTLED_HOLD_MS = 60 * 60_000;

/** The budgets that apply to a request, key first, then user, team, end user and tags; duplicates once. */
export function applicableBudgets(directory: BudgetDirectory, subject: BudgetSubject): BudgetRecord[] {
  const lists: Array<ReadonlyArray<BudgetRecord>> = [directory.budgetsFor('key', subject.key.keyId)];
  if (subject.key.userId !== null) lists.push(directory.budgetsFor('user', subject.key.userId));
  if (subject.key.teamId !== null) lists.push(directory.budgetsFor('team', subject.key.teamId));
  if (subject.endUserId !== null) lists.push(directory.budgetsFor('end_user', subject.endUserId));
  for (const tag of subject.tags) lists.push(directory.budgetsFor('tag', tag));
  const found = lists.filter((list) => list !== EMPTY && list.length > 0);
  if (found.length === 0) return [];
  if (found.length === 1) return [...found[0]!];
  const seen = new Set<string>();
  return found.flat().filter((budget) => !seen.has(budget.budgetId) && seen.add(budget.budgetId));
}

/** The daily caps of a scope (key or team) for `model`: its own RPD/TPD, then its per-model ones. */
function dailyCaps(
  scope: string,
  owner: { readonly rpd: number | null; readonly tpd: number | null; readonly modelLimits: ReadonlyArray<ModelLimit> },
  model: string,
): Array<{ id: string; label: string; unit: 'requests' | 'tokens'; limit: number }> {
  const caps: Array<{ id: string; label: string; unit: 'requests' | 'tokens'; limit: number }> = [];
  if (owner.rpd !== null)
    caps.push({ id: `${REQUEST_COUNTER_PREFIX}${scope}`, label: scope, unit: 'requests', limit: owner.rpd });
  if (owner.tpd !== null)
    caps.push({ id: `${TOKEN_COUNTER_PREFIX}${scope}`, label: scope, unit: 'tokens', limit: owner.tpd });
  for (const limit of owner.modelLimits) {
    if (limit.model !== model) continue;
    const label = `${scope} on model ${model}`;
    if (limit.rpd !== null)
      caps.push({ id: `${REQUEST_COUNTER_PREFIX}${scope}/${model}`, label, unit: 'requests', limit: limit.rpd });
    if (limit.tpd !== null)
      caps.push({ id: `${TOKEN_COUNTER_PREFIX}${scope}/${model}`, label, unit: 'tokens', limit: limit.tpd });
  }
  return caps;
}

/** Whether the request has anything to claim (cheap: no pricing, no windows). */
export function hasBudgetClaims(
  directory: BudgetDirectory,
  subject: Omit<BudgetSubject, 'inputTokens' | 'maxOutputTokens' | 'requestId'>,
): boolean {
  if (isCapped(subject.key, subject.model) || (subject.team !== undefined && isCapped(subject.team, subject.model)))
    return true;
  const { key } = subject;
  if (directory.budgetsFor('key', key.keyId).length > 0) return true;
  if (key.userId !== null && directory.budgetsFor('user', key.userId).length > 0) return true;
  if (key.teamId !== null && directory.budgetsFor('team', key.teamId).length > 0) return true;
  if (subject.endUserId !== null && directory.budgetsFor('end_user', subject.endUserId).length > 0) return true;
  for (const tag of subject.tags) if (directory.budgetsFor('tag', tag).length > 0) return true;
  return false;
}

/** Whether a key or team has a daily cap for `model` (its own RPD/TPD or one of the model's). */
function isCapped(
  owner: { readonly rpd: number | null; readonly tpd: number | null; readonly modelLimits: ReadonlyArray<ModelLimit> },
  model: string,
): boolean {
  if (owner.rpd !== null || owner.tpd !== null) return true;
  for (const limit of owner.modelLimits)
    if (limit.model === model && (limit.rpd !== null || limit.tpd !== null)) return true;
  return false;
}

/** Counter of a window. */
function counterOf(budgetId: string, window: BudgetWindow): BudgetCounter {
  return { budgetId, windowStartMs: window.startMs, windowEndMs: window.endMs };
}

/** The windows a request claims at `nowMs`; budgets in `exempt` hold without refusing. */
function claimWindows(
  deps: BudgetAdmissionDeps,
  subject: BudgetSubject,
  nowMs: number,
  exempt: ReadonlySet<string>,
): ClaimedWindow[] {
  const claimed: ClaimedWindow[] = [];
  const budgets = applicableBudgets(deps.directory, subject);
  const tokens = Math.max(0, Math.ceil(subject.inputTokens + subject.maxOutputTokens));
  if (budgets.length > 0) {
    const price = deps.pricer.worstCasePrice(subject.model, nowMs);
    const nanoUsd = deps.pricer.worstCaseCost(price, subject.inputTokens, subject.maxOutputTokens);
    for (const budget of budgets) {
      const free = exempt.has(budget.budgetId);
      claimed.push({
        budget,
        cap: undefined,
        claim: {
          counter: counterOf(budget.budgetId, budgetWindowAt(budget, nowMs)),
          limitNanoUsd: free ? null : budget.limitNanoUsd,
          limitTokens: free ? null : budget.limitTokens,
          reserveNanoUsd: nanoUsd,
          reserveTokens: tokens,
        },
      });
    }
  }
  const caps = [
    ...dailyCaps(`key:${subject.key.keyId}`, subject.key, subject.model),
    ...(subject.team ? dailyCaps(`team:${subject.team.teamId}`, subject.team, subject.model) : []),
  ];
  if (caps.length > 0) {
    const day = budgetWindowAt({ period: 'day', rollingMs: null, timeZone: deps.capsTimeZone, createdAt: 0 }, nowMs);
    for (const cap of caps)
      claimed.push({
        budget: undefined,
        cap,
        claim: {
          counter: counterOf(cap.id, day),
          limitNanoUsd: null,
          limitTokens: cap.limit,
          reserveNanoUsd: 0n,
          reserveTokens: cap.unit === 'requests' ? 1 : tokens,
        },
      });
  }
  return claimed;
}

/** `key:k1` → `API key k1`, `team:t1 on model m` → `team t1 on model m`. */
function capOwnerLabel(label: string): string {
  const [kind, ...rest] = label.split(':');
  return `${kind === 'key' ? 'API key' : (kind ?? 'scope')} ${rest.join(':')}`;
}

/** What a budget applies to, for messages: `team t1`, `tag feature=chat`. */
function budgetOwnerLabel(budget: BudgetRecord): string {
  const kind = { key: 'API key', user: 'user', team: 'team', end_user: 'end user', tag: 'tag' }[budget.scope];
  return `${kind} ${budget.scopeId}`;
}

/** The refusal for a window at its limit. */
function refusalOf(window: ClaimedWindow, use: BudgetWindowUse | undefined, nowMs: number): GatewayError {
  const end = window.claim.counter.windowEndMs;
  const retryAfterMs = end === null ? undefined : Math.max(1000, end - nowMs);
  const resets = end === null ? 'It does not reset' : `It resets at ${new Date(end).toISOString()}`;
  if (window.budget) {
    const budget = window.budget;
    const spent = (use?.spentNanoUsd ?? 0n) + (use?.heldNanoUsd ?? 0n);
    const spentTokens = (use?.spentTokens ?? 0) + (use?.heldTokens ?? 0);
    const amounts = [
      budget.limitNanoUsd !== null ? `${formatNanoUsd(spent)} of ${formatNanoUsd(budget.limitNanoUsd)}` : undefined,
      budget.limitTokens !== null ? `${spentTokens} of ${budget.limitTokens} tokens` : undefined,
    ]
      .filter(Boolean)
      .join(', ');
    const period =
      budget.period === 'lifetime'
        ? 'in total'
        : budget.period === 'rolling'
          ? 'in this window'
          : `this ${budget.period}`;
    return new GatewayError(
      'quota-exceeded',
      `Budget '${budget.name}' of ${budgetOwnerLabel(budget)} is used up ${period} (${amounts}, in-flight requests included). ${resets}.`,
      { code: 'budget_exceeded', retryable: false, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
    );
  }
  const cap = window.cap!;
  const used = (use?.spentTokens ?? 0) + (use?.heldTokens ?? 0);
  return new GatewayError(
    'rate-limited',
    `The ${cap.unit === 'requests' ? 'requests per day (RPD)' : 'tokens per day (TPD)'} limit of ${capOwnerLabel(cap.label)} is reached: ${used} of ${window.claim.limitTokens ?? 0}. ${resets}.`,
    { code: 'daily_limit_exceeded', retryable: false, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
  );
}

/**
 * Reserves the request's budget and daily-cap windows (see the module doc). A budget at its
 * limit with a `downgradeModel` turns the request to that model (at most once per budget).
 * @returns ok with the holds (undefined when nothing applies), or the refusal to render
 * @throws whatever the ledger rejects with (StateStoreUnavailableError during an outage)
 */
export async function admitBudgets(deps: BudgetAdmissionDeps, subject: BudgetSubject): Promise<BudgetAdmission> {
  const nowMs = (deps.clock ?? Date.now)();
  const exempt = new Set<string>();
  let current = subject;
  for (;;) {
    const windows = claimWindows(deps, current, nowMs, exempt);
    if (windows.length === 0) return { ok: true, holds: undefined, uses: [] };
    const reservation = await deps.ledger.reserve(
      subject.requestId,
      windows.map((w) => w.claim),
      nowMs + (deps.holdMs ?? DEFAULT_HOLD_MS),
      nowMs,
    );
    if (reservation.ok) {
      return {
        ok: true,
        uses: reservation.uses,
        holds: {
          requestId: subject.requestId,
          counters: windows.map((w) => w.claim.counter),
          model: current.model,
          downgradedFrom: current.model === subject.model ? null : subject.model,
          heldAt: nowMs,
        },
      };
    }
    const refusing = windows[reservation.refusedBy]!;
    const downgrade = refusing.budget?.downgradeModel ?? null;
    if (downgrade !== null && !exempt.has(refusing.budget!.budgetId)) {
      exempt.add(refusing.budget!.budgetId);
      current = { ...current, model: downgrade };
      continue;
    }
    return {
      ok: false,
      error: refusalOf(refusing, reservation.uses[reservation.refusedBy], nowMs),
      limit: refusing.budget ? 'budget' : 'daily_limit',
    };
  }
}

/** What settlement reads of the exchange: its usage and who served it. */
export interface BudgetSettlement {
  readonly usage?: Usage;
  readonly status?: 'completed' | 'failed' | 'cancelled';
  readonly upstreamModel?: string;
  readonly channelId?: string;
}

/**
 * Replaces the holds by the real cost: the served usage at the served channel's price, its tokens,
 * and 1 request for each RPD counter, kept until the consumers bill it (`settledHoldMs`). An
 * exchange no channel served with usage gets no UsageRecorded event and counts nothing: its holds
 * end at once (also how a request refused after its holds releases them: `settlement` empty).
 * @throws whatever the ledger rejects with (callers log it: the holds then expire on their own)
 */
export async function settleBudgets(
  deps: BudgetAdmissionDeps,
  holds: BudgetHolds,
  settlement: BudgetSettlement,
): Promise<void> {
  const nowMs = (deps.clock ?? Date.now)();
  const usage = settlement.usage;
  const tokens = usage ? usage.input.total + usage.output.total : 0;
  const costNanoUsd =
    usage && settlement.upstreamModel && settlement.channelId
      ? deps.pricer.costOf(
          {
            inputTokens: usage.input.total,
            cachedInputTokens: usage.input.cacheRead,
            cacheWriteTokens: usage.input.cacheWrite,
            outputTokens: usage.output.total,
            reasoningTokens: usage.output.reasoning,
          },
          settlement.upstreamModel,
          settlement.channelId,
          holds.heldAt,
        )
      : 0n;
  // Without a channel and usage no UsageRecorded follows to bill and drop the holds: they end now.
  const billed = usage !== undefined && settlement.channelId !== undefined;
  const requestCounters = holds.counters.filter((c) => c.budgetId.startsWith(REQUEST_COUNTER_PREFIX));
  const amountCounters = holds.counters.filter((c) => !c.budgetId.startsWith(REQUEST_COUNTER_PREFIX));
  const holdUntil = billed ? nowMs + (deps.settledHoldMs ?? DEFAULT_SETTLED_HOLD_MS) : nowMs;
  await Promise.all([
    amountCounters.length > 0
      ? deps.ledger.settle(holds.requestId, amountCounters, costNanoUsd, tokens, holdUntil, nowMs)
      : undefined,
    requestCounters.length > 0
      ? deps.ledger.settle(holds.requestId, requestCounters, 0n, billed ? 1 : 0, holdUntil, nowMs)
      : undefined,
  ]);
}

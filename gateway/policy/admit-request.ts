/**
 * Admission of one client request, after authentication and before routing:
 * 1. quotas — the key's spend ≥ its quota, or the user's spend (over all their keys) ≥ the
 *    user's quota → `quota-exceeded` (429, not retryable, no `retry-after`: time does not
 *    replenish a quota);
 * 2. limits — RPM/TPM of the user (`user:<id>`) and the key (`key:<id>`) in ONE atomic admission
 *    that reserves 1 request and the estimated tokens in both, or nothing → `rate-limited` (429
 *    with `retryAfterMs`).
 * After the exchange, settleRequest corrects the token reservation to the actual usage.
 * Headers: rate-limit-headers.ts (`x-ratelimit-*` of the tightest scope, `retry-after` on refusal).
 *
 * When the state store cannot answer (StateStoreUnavailableError: Redis down or slower than its
 * deadline), each kind follows `AdmissionDeps.onStoreOutage`: `open` admits without that check
 * (the admitted request lists it in `unchecked`), `closed` refuses with 503 and `retry-after`.
 * Any other rejection of the store propagates.
 */
import type { LimitScope, LimitState, RateLimiter } from '../../schemas/state-store/rate-limiter.ts';
import type { StateStore } from '../../schemas/state-store/state-store.ts';
import {
  isStateStoreUnavailable,
  type StateStoreUnavailableError,
} from '../../schemas/state-store/state-store-unavailable.ts';
import type { StoreOutagePolicy } from '../config/config-schema.ts';
import { isNeverAdmissible, MAX_LIMIT_UNITS } from '../../schemas/state-store/gcra-rate-limit.ts';
import { GatewayError } from '../canonical/gateway-error.ts';
import type { Usage } from '../canonical/usage.ts';
import type { KeyRecord, UserRecord } from '../control-plane/control-plane-view.ts';
import type { ModelLimit, TeamRecord } from '../../schemas/control-plane/control-plane-records.ts';
import { formatResetDuration, rateLimitHeaders, type RateLimitHeaders } from './rate-limit-headers.ts';

/** What admission reads and charges: the limiter and the spend counters. */
export interface AdmissionDeps {
  readonly limiter: RateLimiter;
  readonly spend: Pick<StateStore, 'getSpend'>;
  /** Per limit kind, what to do while the store cannot answer (default: both `open`). */
  readonly onStoreOutage?: StoreOutagePolicy;
}

/** A limit kind admission checks against the state store. */
export type AdmissionCheck = 'quotas' | 'limits';

const FAIL_OPEN: StoreOutagePolicy = { limits: 'open', quotas: 'open' };

/** The request to admit: its key, the key's owner and team (if any), its model and its estimated tokens (estimateAdmissionTokens). */
export interface AdmissionContext {
  readonly key: KeyRecord;
  readonly user: UserRecord | undefined;
  /** The key's team, whose RPM/TPM (overall and per model) apply to every request of its keys. */
  readonly team?: TeamRecord | undefined;
  /** The client's model: per-model RPM/TPM of the key and the team apply to it. */
  readonly model?: string;
  /** Input estimate + max output tokens (tokens). */
  readonly estimatedTokens: number;
  /** ms since epoch; default: the limiter's clock (Redis: the server's). */
  readonly now?: number;
}

/** An admitted request: what to settle afterwards and the headers to send with the answer. */
export interface AdmittedRequest {
  readonly ok: true;
  /** The limited scopes charged (empty when neither user nor key has limits). */
  readonly scopes: ReadonlyArray<LimitScope>;
  /** Tokens reserved in every scope with a TPM limit. */
  readonly reservedTokens: number;
  readonly headers: RateLimitHeaders;
  /** Checks skipped because the state store could not answer (policy `open`); empty normally. */
  readonly unchecked: ReadonlyArray<AdmissionCheck>;
}

/**
 * Which limit refused a request: the key's or its user's RPM/TPM, the key's or user's spend quota,
 * or a check that could not be made under a `closed` store-outage policy.
 */
export type AdmissionLimit =
  | 'key_rpm'
  | 'key_tpm'
  | 'user_rpm'
  | 'user_tpm'
  | 'team_rpm'
  | 'team_tpm'
  | 'key_quota'
  | 'user_quota'
  | 'budget'
  | 'daily_limit'
  | 'store_outage';

/** A refused request: the format-neutral error to render, the headers to send with it and the limit that refused it. */
export interface RefusedRequest {
  readonly ok: false;
  readonly error: GatewayError;
  readonly headers: RateLimitHeaders;
  readonly limit: AdmissionLimit;
}

/** The answer of admitRequest. */
export type AdmissionResult = AdmittedRequest | RefusedRequest;

/**
 * The limited scopes of a request — user, team, key, then the team's and the key's limits for the
 * request's model (`team:<id>/model:<model>`, `key:<id>/model:<model>`): scopes whose rpm and tpm
 * are both null are left out.
 */
export function requestLimitScopes(
  key: KeyRecord,
  user: UserRecord | undefined,
  team?: TeamRecord,
  model?: string,
): LimitScope[] {
  const scopes: LimitScope[] = [];
  if (user && (user.rpm !== null || user.tpm !== null))
    scopes.push({ scope: `user:${user.userId}`, rpm: user.rpm, tpm: user.tpm });
  if (team && (team.rpm !== null || team.tpm !== null))
    scopes.push({ scope: `team:${team.teamId}`, rpm: team.rpm, tpm: team.tpm });
  if (key.rpm !== null || key.tpm !== null) scopes.push({ scope: `key:${key.keyId}`, rpm: key.rpm, tpm: key.tpm });
  if (model !== undefined) {
    if (team) pushModelScope(scopes, `team:${team.teamId}`, team.modelLimits, model);
    pushModelScope(scopes, `key:${key.keyId}`, key.modelLimits, model);
  }
  // An array grown by `push` from empty reserves 17 slots; the scopes stay with the request until
  // it settles (a live stream's whole life), so they are kept in an array of their own length.
  return scopes.slice();
}

/** Adds the owner's per-model RPM/TPM scope for `model`, if it limits either. */
function pushModelScope(scopes: LimitScope[], owner: string, limits: ReadonlyArray<ModelLimit>, model: string): void {
  for (const limit of limits)
    if (limit.model === model && (limit.rpm !== null || limit.tpm !== null))
      scopes.push({ scope: `${owner}/model:${model}`, rpm: limit.rpm, tpm: limit.tpm });
}

/** Whether the request is under any TPM limit (only then does admission need its token estimate). */
export function needsTokenEstimate(
  key: KeyRecord,
  user: UserRecord | undefined,
  team: TeamRecord | undefined,
  model: string,
): boolean {
  const tpmOf = (limits: ReadonlyArray<ModelLimit>): boolean => limits.some((l) => l.model === model && l.tpm !== null);
  return (
    key.tpm !== null ||
    (user?.tpm ?? null) !== null ||
    (team?.tpm ?? null) !== null ||
    tpmOf(key.modelLimits) ||
    (team !== undefined && tpmOf(team.modelLimits))
  );
}

/** A token count as the limiter takes it: an integer in [0, 1e9] (anything larger is over every limit anyway). */
function limiterTokens(tokens: number): number {
  return Number.isFinite(tokens) ? Math.min(MAX_LIMIT_UNITS, Math.max(0, Math.floor(tokens))) : MAX_LIMIT_UNITS;
}

/** nano-USD as a dollar amount with at least two decimals (`12.5` → `12.50`). */
export function formatNanoUsd(nano: bigint): string {
  const whole = nano / 1_000_000_000n;
  const fraction = (nano % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  return `$${whole}.${fraction}`;
}

/** The quota error for the key or its user (with which), if either has spent its quota; reads spend only when a quota is set. */
async function checkQuotas(
  deps: AdmissionDeps,
  key: KeyRecord,
  user: UserRecord | undefined,
): Promise<{ error: GatewayError; limit: AdmissionLimit } | undefined> {
  const userQuota = user?.quotaNanoUsd ?? null;
  if (key.quotaNanoUsd === null && userQuota === null) return undefined;
  const spend = await deps.spend.getSpend(key.keyId, user?.userId ?? key.userId);
  if (key.quotaNanoUsd !== null && spend.keyNanoUsd >= key.quotaNanoUsd) {
    return {
      limit: 'key_quota',
      error: new GatewayError(
        'quota-exceeded',
        `This API key has used its spend quota (${formatNanoUsd(spend.keyNanoUsd)} of ${formatNanoUsd(key.quotaNanoUsd)}). Ask an administrator to raise it.`,
        { retryable: false },
      ),
    };
  }
  if (user && userQuota !== null && spend.userNanoUsd >= userQuota) {
    return {
      limit: 'user_quota',
      error: new GatewayError(
        'quota-exceeded',
        `User '${user.name}' has used their spend quota (${formatNanoUsd(spend.userNanoUsd)} of ${formatNanoUsd(userQuota)}) over all their keys. Ask an administrator to raise it.`,
        { retryable: false },
      ),
    };
  }
  return undefined;
}

/** `key:k1` → `API key k1`, `user:u1` → `user u1`, `team:t1/model:m` → `team t1 on model m`. */
function scopeLabel(scope: string): string {
  const modelAt = scope.indexOf('/model:');
  const owner = modelAt === -1 ? scope : scope.slice(0, modelAt);
  const [kind, ...rest] = owner.split(':');
  const id = rest.join(':');
  const label = kind === 'key' ? `API key ${id}` : `${kind ?? 'scope'} ${id}`;
  return modelAt === -1 ? label : `${label} on model ${scope.slice(modelAt + '/model:'.length)}`;
}

/** The rate-limited error for a refused admission (never admissible: not retryable, says why). */
function rateLimitedError(
  refusedBy: { scope: string; kind: LimitState['kind'] },
  state: LimitState | undefined,
  retryAfterMs: number,
  tokens: number,
  neverAdmissible: boolean,
): GatewayError {
  const label = scopeLabel(refusedBy.scope);
  const limit = state?.limit ?? 0;
  const perMinute = refusedBy.kind === 'requests' ? 'requests per minute (RPM)' : 'tokens per minute (TPM)';
  if (neverAdmissible) {
    const why =
      refusedBy.kind === 'tokens' && limit > 0
        ? `This request needs an estimated ${tokens} tokens (prompt plus max output tokens), more than the ${perMinute} limit of ${limit} of ${label}; lower max_tokens or shorten the prompt.`
        : `The ${perMinute} limit of ${label} is ${limit}: no request can be admitted.`;
    return new GatewayError('rate-limited', why, { retryAfterMs, retryable: false });
  }
  const message = `Rate limit reached for ${label} on ${perMinute}: limit ${limit}, remaining ${state?.remaining ?? 0}. Please try again in ${formatResetDuration(retryAfterMs)}.`;
  return new GatewayError('rate-limited', message, { retryAfterMs });
}

/** The 503 of a check that cannot be made while the store is down, under policy `closed`. */
function storeOutageError(check: AdmissionCheck, cause: StateStoreUnavailableError): GatewayError {
  const what = check === 'quotas' ? 'Spend quotas' : 'Rate limits';
  const retryAfterMs = Math.max(1000, cause.retryAfterMs);
  return new GatewayError(
    'internal',
    `${what} cannot be checked right now: ${cause.message}. Please try again in ${formatResetDuration(retryAfterMs)}.`,
    { status: 503, retryable: true, retryAfterMs, code: 'limits_unavailable', cause },
  );
}

/** The refusal for `check` under policy `closed`, with `retry-after` in whole seconds. */
function refuseForOutage(check: AdmissionCheck, cause: StateStoreUnavailableError): RefusedRequest {
  const error = storeOutageError(check, cause);
  return {
    ok: false,
    error,
    headers: { 'retry-after': String(Math.ceil((error.retryAfterMs ?? 1000) / 1000)) },
    limit: 'store_outage',
  };
}

/**
 * Admits one request: quotas first, then the user's and the key's limits together (one atomic
 * admission reserving 1 request + `estimatedTokens`). Refusals: `quota-exceeded` (headers empty)
 * or `rate-limited` with `retryAfterMs` and `x-ratelimit-*` + `retry-after` headers.
 * While the store cannot answer (StateStoreUnavailableError), each kind follows
 * `deps.onStoreOutage` (default open): skipped and named in `unchecked`, or refused with a 503
 * (`code: limits_unavailable`, `retry-after`). Takes at most the store's deadline per check.
 * @throws whatever else the spend store or the limiter rejects with (not an outage: a bug)
 */
export async function admitRequest(deps: AdmissionDeps, ctx: AdmissionContext): Promise<AdmissionResult> {
  const policy = deps.onStoreOutage ?? FAIL_OPEN;
  const unchecked: AdmissionCheck[] = [];
  let quotaError: { error: GatewayError; limit: AdmissionLimit } | undefined;
  try {
    quotaError = await checkQuotas(deps, ctx.key, ctx.user);
  } catch (error) {
    if (!isStateStoreUnavailable(error)) throw error;
    if (policy.quotas === 'closed') return refuseForOutage('quotas', error);
    unchecked.push('quotas');
  }
  if (quotaError) return { ok: false, ...quotaError, headers: {} };
  const scopes = requestLimitScopes(ctx.key, ctx.user, ctx.team, ctx.model);
  const tokens = limiterTokens(ctx.estimatedTokens);
  if (scopes.length === 0) return { ok: true, scopes, reservedTokens: 0, headers: {}, unchecked };
  let admission;
  try {
    admission = await deps.limiter.admit(scopes, tokens, ctx.now);
  } catch (error) {
    if (!isStateStoreUnavailable(error)) throw error;
    if (policy.limits === 'closed') return refuseForOutage('limits', error);
    return { ok: true, scopes: [], reservedTokens: 0, headers: {}, unchecked: [...unchecked, 'limits'] };
  }
  if (admission.allowed)
    return { ok: true, scopes, reservedTokens: tokens, headers: rateLimitHeaders(admission.states), unchecked };
  const refusedBy = admission.refusedBy ?? { scope: scopes[0]?.scope ?? 'key', kind: 'requests' as const };
  const state = admission.states.find((s) => s.scope === refusedBy.scope && s.kind === refusedBy.kind);
  const error = rateLimitedError(refusedBy, state, admission.retryAfterMs, tokens, isNeverAdmissible(admission));
  const owner = refusedBy.scope.startsWith('user:') ? 'user' : refusedBy.scope.startsWith('team:') ? 'team' : 'key';
  const limit: AdmissionLimit = `${owner}_${refusedBy.kind === 'tokens' ? 'tpm' : 'rpm'}`;
  return { ok: false, error, headers: rateLimitHeaders(admission.states, admission.retryAfterMs), limit };
}

/** What settlement reads of an exchange's outcome (ExchangeOutcome fits). */
export interface SettlementOutcome {
  readonly usage?: Usage;
  readonly status?: 'completed' | 'failed' | 'cancelled';
}

/**
 * Actual tokens of an exchange: input total + output total of its usage; 0 when there is no usage
 * or when it did not complete and generated nothing (failures before any output release all).
 */
export function actualTokensOf(outcome: SettlementOutcome | undefined): number {
  const usage = outcome?.usage;
  if (!usage) return 0;
  if (outcome.status !== undefined && outcome.status !== 'completed' && usage.output.total === 0) return 0;
  return limiterTokens(usage.input.total + usage.output.total);
}

/**
 * Settles an admitted request's token reservation to the exchange's actual tokens (actualTokensOf)
 * in every scope with a TPM limit. No-op when nothing was limited or the counts agree.
 * Rejects when the limiter is unreachable (log it; the reservation then simply stands).
 */
export async function settleRequest(
  deps: Pick<AdmissionDeps, 'limiter'>,
  admitted: Pick<AdmittedRequest, 'scopes' | 'reservedTokens'>,
  outcome: SettlementOutcome | undefined,
  now?: number,
): Promise<void> {
  if (!admitted.scopes.some((s) => s.tpm !== null)) return;
  const actual = actualTokensOf(outcome);
  if (actual === admitted.reservedTokens) return;
  await deps.limiter.settle(admitted.scopes, admitted.reservedTokens, actual, now);
}

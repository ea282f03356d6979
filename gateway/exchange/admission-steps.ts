/**
 * The steps between decoding and the exchange that every operation (generation, embeddings)
 * takes the same way: the key's and team's model bounds, attribution, budget and daily-cap holds,
 * quota and RPM/TPM admission, releasing holds of a refused request, and recording an exchange's
 * outcome exactly once. Each refusal is answered in the client's own format (the route's codec)
 * and is not recorded. serve-generation.ts and serve-embeddings.ts run them in the same order.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import type { InboundCodec } from '../inbound/inbound-codec.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import {
  admitRequest,
  needsTokenEstimate,
  settleRequest,
  type AdmissionLimit,
  type AdmittedRequest,
} from '../policy/admit-request.ts';
import {
  admitBudgets,
  hasBudgetClaims,
  settleBudgets,
  type BudgetAdmissionDeps,
  type BudgetHolds,
} from '../policy/budget-admission.ts';
import { attributeRequest, type AttributedRequest, type RequestAttribution } from '../policy/request-attribution.ts';
import type { ResolvedKey } from '../policy/resolve-api-key.ts';
import type { TeamRecord } from '../../schemas/control-plane/control-plane-records.ts';
import { isStateStoreUnavailable } from '../../schemas/state-store/state-store-unavailable.ts';
import type { ClientRequest, ClientRouteServices } from './client-request.ts';
import { sendErrorReply } from './client-response.ts';
import type { ExchangeOutcome, OutcomeSink } from './exchange-outcome.ts';

/** What admission weighs of a request: its model and its token reservation (tokens). */
export interface AdmissionSubject {
  /** The model the request runs on (after a budget's downgrade). */
  readonly model: string;
  /** Estimated input tokens (tokens); called only when a limit needs it, at most once per request by the caller's cache. */
  inputTokens(): number;
  /** Output tokens reserved (tokens): the request's cap or the default; 0 for embeddings. */
  readonly maxOutputTokens: number;
}

/** The parts of a ClientRequest the shared steps read. */
export type ClientExchange = Pick<ClientRequest, 'services' | 'codec' | 'key' | 'request' | 'reply'>;

/** Whether the key and its team may use `model` (their model lists, when they have one). */
export function mayUseModel(resolved: ClientExchange['key'], model: string): boolean {
  if (resolved.key.models && !resolved.key.models.has(model)) return false;
  return !resolved.team?.models || resolved.team.models.has(model);
}

/**
 * Checks `model` against the key's and its team's model allowlists; on refusal answers 403
 * `model_not_allowed` (param `model`) in the codec's format and returns false.
 */
export function modelAllowedOrReply(client: ClientExchange, model: string): boolean {
  const { key: resolved, reply, codec, request } = client;
  if (resolved.key.models && !resolved.key.models.has(model)) {
    const error = new GatewayError(
      'permission-denied',
      `The API key ${resolved.key.publicId} may not use the model '${model}'`,
      { param: 'model', code: 'model_not_allowed' },
    );
    sendErrorReply(reply, codec, error, request.id);
    return false;
  }
  const team = resolved.team;
  if (team?.models && !team.models.has(model)) {
    const error = new GatewayError(
      'permission-denied',
      `The team '${team.name}' of the API key ${resolved.key.publicId} may not use the model '${model}'`,
      { param: 'model', code: 'model_not_allowed' },
    );
    sendErrorReply(reply, codec, error, request.id);
    return false;
  }
  return true;
}

/**
 * The request's team, end user and tags (policy/request-attribution.ts); on a bad tag or end-user
 * id answers the format's 400 naming it and returns undefined.
 */
export function attributeOrReply(
  client: ClientExchange,
  attributed: AttributedRequest,
): RequestAttribution | undefined {
  try {
    return attributeRequest(client.key.key, attributed, client.request.headers, client.services.attribution);
  } catch (error) {
    sendErrorReply(client.reply, client.codec, toGatewayError(error), client.request.id);
    return undefined;
  }
}

/**
 * Admits the request against quotas and RPM/TPM limits (the user's, the team's, the key's, and the
 * team's and key's for the model); on refusal answers the format's 429
 * (with retry-after and x-ratelimit-* headers) or, under a `closed` store-outage policy, 503, and
 * returns undefined. While the state store is down, admission takes at most its deadline and a
 * check under an `open` policy is skipped (logged at debug: the store logs the outage itself, once).
 * An unexpected admission failure (a bug) admits the request without limits, logged as a warning.
 */
export async function admitOrReply(
  services: ClientRouteServices,
  codec: InboundCodec,
  resolved: ResolvedKey,
  team: TeamRecord | undefined,
  subject: AdmissionSubject,
  request: FastifyRequest,
  reply: FastifyReply,
  requestId: string,
): Promise<AdmittedRequest | 'unlimited' | undefined> {
  let result;
  try {
    // Tokenizing the prompt costs CPU on every request: only TPM limits need the estimate.
    const needsTokens = needsTokenEstimate(resolved.key, resolved.user, team, subject.model);
    result = await admitRequest(services.admission, {
      key: resolved.key,
      user: resolved.user,
      team,
      model: subject.model,
      estimatedTokens: needsTokens ? subject.inputTokens() + subject.maxOutputTokens : 0,
    });
  } catch (error) {
    request.log.warn({ reason: (error as Error).message }, 'admission failed; admitting without limits');
    return 'unlimited';
  }
  void reply.headers(result.headers);
  if (result.ok) {
    if (result.unchecked.length > 0)
      request.log.debug({ unchecked: result.unchecked }, 'state store unavailable: admitted without these checks');
    return result;
  }
  refuse(services, codec, reply, result.error, result.limit, requestId);
  return undefined;
}

/** Answers a refusal in the client's format and counts it by the limit that refused. */
export function refuse(
  services: ClientRouteServices,
  codec: InboundCodec,
  reply: FastifyReply,
  error: GatewayError,
  limit: AdmissionLimit,
  requestId: string,
): void {
  sendErrorReply(reply, codec, error, requestId);
  services.metrics?.recordRefusal(codec.format, limit);
}

/** What budget admission let through: the holds to settle (none when nothing applied or the store was down). */
export interface BudgetPass {
  readonly holds: BudgetHolds | undefined;
}

/** Header of an answer a budget at its limit routed to its downgrade model: the model the client asked for. */
export const DOWNGRADED_FROM_HEADER = 'x-tollgate-downgraded-from';

/**
 * Reserves the request's budget and daily-cap windows (policy/budget-admission.ts); on refusal
 * answers the format's 429 (`budget_exceeded`, `daily_limit_exceeded`) and returns undefined.
 * While the store cannot answer, budgets follow the `quotas` store-outage policy: `open` admits
 * without holds (the request counts in no window), `closed` refuses with 503. A downgrade sets
 * DOWNGRADED_FROM_HEADER on the reply.
 */
export async function admitBudgetsOrReply(
  client: ClientExchange,
  budgets: BudgetAdmissionDeps,
  team: TeamRecord | undefined,
  subject: AdmissionSubject,
  attribution: RequestAttribution,
): Promise<BudgetPass | undefined> {
  const { services, codec, reply, request } = client;
  const claimant = {
    key: client.key.key,
    team,
    endUserId: attribution.endUserId,
    tags: attribution.tags,
    model: subject.model,
  };
  if (!hasBudgetClaims(budgets.directory, claimant)) return { holds: undefined };
  let result;
  try {
    result = await admitBudgets(budgets, {
      ...claimant,
      requestId: request.id,
      inputTokens: subject.inputTokens(),
      maxOutputTokens: subject.maxOutputTokens,
    });
  } catch (error) {
    if (!isStateStoreUnavailable(error)) {
      request.log.warn({ reason: (error as Error).message }, 'budget admission failed; admitting without budgets');
      return { holds: undefined };
    }
    if ((services.admission.onStoreOutage?.quotas ?? 'open') === 'open') {
      request.log.debug({ reason: error.message }, 'state store unavailable: admitted without budgets');
      return { holds: undefined };
    }
    const retryAfterMs = Math.max(1000, error.retryAfterMs);
    const refusal = new GatewayError('internal', `Budgets cannot be checked right now: ${error.message}.`, {
      status: 503,
      retryable: true,
      retryAfterMs,
      code: 'limits_unavailable',
      cause: error,
    });
    refuse(services, codec, reply, refusal, 'store_outage', request.id);
    return undefined;
  }
  if (!result.ok) {
    refuse(services, codec, reply, result.error, result.limit, request.id);
    return undefined;
  }
  if (result.holds?.downgradedFrom) void reply.header(DOWNGRADED_FROM_HEADER, result.holds.downgradedFrom);
  return { holds: result.holds };
}

/** Releases holds of a request refused after them (its real cost is 0). */
export function releaseHolds(
  client: Pick<ClientRequest, 'request'>,
  budgets: BudgetAdmissionDeps,
  holds: BudgetHolds | undefined,
): void {
  if (!holds) return;
  settleBudgets(budgets, holds, {}).catch((error: unknown) =>
    client.request.log.debug({ reason: (error as Error).message }, 'releasing budget holds failed'),
  );
}

/**
 * Settles what admission reserved for a finished request against its outcome: the token
 * reservation of its RPM/TPM windows (unless it was admitted `unlimited`) and its budget holds
 * (when `budgets` and `holds` are given). A failure is logged at debug and never thrown: the
 * windows then keep the estimate.
 */
export async function settleAdmission(
  services: Pick<ClientRouteServices, 'admission'>,
  log: FastifyBaseLogger,
  admitted: AdmittedRequest | 'unlimited',
  budget: { readonly budgets: BudgetAdmissionDeps | undefined; readonly holds: BudgetHolds | undefined },
  outcome: ExchangeOutcome,
): Promise<void> {
  if (admitted !== 'unlimited') {
    try {
      await settleRequest({ limiter: services.admission.limiter }, admitted, outcome);
    } catch (error) {
      log.debug({ reason: (error as Error).message }, 'settling the token reservation failed');
    }
  }
  if (budget.budgets && budget.holds) {
    try {
      await settleBudgets(budget.budgets, budget.holds, outcome);
    } catch (error) {
      log.debug({ reason: (error as Error).message }, 'settling the budget holds failed');
    }
  }
}

/** A request whose exchange recordOnce runs: where to answer, and how to record a run that rejected. */
export interface RecordedRequest {
  readonly requestId: string;
  readonly reply: FastifyReply;
  /** Renders the answer to a run that rejected before answering. */
  readonly codec: InboundCodec;
  /** Aborted when the client left; none: treated as still there. */
  readonly clientGone?: ClientGoneSignal | undefined;
  /** The outcome of a run that rejected, with no channel tried (`status` cancelled or failed, the status sent). */
  failedOutcome(end: Pick<ExchangeOutcome, 'status' | 'httpStatus' | 'errorKind' | 'errorMessage'>): ExchangeOutcome;
}

/**
 * Runs `run` with an outcome sink that passes on the first outcome only (a second one is logged
 * as an error and dropped) to `deps.onOutcome`. Should the run reject — it is not meant to — the
 * request is still recorded once: `failed` with a 500 answer, or `cancelled` when the client has left.
 */
export function recordOnce(
  deps: { readonly log: FastifyBaseLogger; readonly onOutcome: OutcomeSink },
  target: RecordedRequest,
  run: (onOutcome: OutcomeSink) => Promise<ExchangeOutcome>,
): Promise<ExchangeOutcome> {
  let recorded: ExchangeOutcome | undefined;
  const onOutcome = (outcome: ExchangeOutcome): void => {
    if (recorded)
      return void deps.log.error(
        { requestId: target.requestId, status: outcome.status },
        'a second outcome for one request was dropped',
      );
    recorded = outcome;
    deps.onOutcome(outcome);
  };
  const rejected = (error: unknown): ExchangeOutcome => {
    deps.log.error({ requestId: target.requestId, err: error }, 'exchange failed unexpectedly');
    if (recorded) return recorded;
    const { reply } = target;
    const cancelled = target.clientGone?.aborted === true;
    const failure = toGatewayError(error);
    const httpStatus = cancelled
      ? 499
      : reply.sent
        ? reply.raw.statusCode
        : sendErrorReply(reply, target.codec, failure, target.requestId);
    const outcome = target.failedOutcome({
      status: cancelled ? 'cancelled' : 'failed',
      httpStatus,
      errorKind: failure.kind,
      errorMessage: failure.message,
    });
    onOutcome(outcome);
    return outcome;
  };
  // A `then`, not an async function: a live stream waits in this call, and a suspended async call
  // costs a generator and its registers for as long as it waits.
  try {
    return run(onOutcome).then(undefined, rejected);
  } catch (error) {
    // A synchronous throw is handled as a rejection is, and as late.
    return Promise.resolve(error).then(rejected);
  }
}

/**
 * The request pipeline of a generation: after the route's hooks refused a draining node and
 * resolved the caller's key (gateway/http/client-route-hooks.ts), resolve stored state, decode the
 * body with the format's codec, check the key's models, attribute, admit, run the exchange and
 * settle.
 * Every refusal is rendered by the same codec, so each client sees its own error shape.
 *
 * Recording: a generation request is ACCEPTED once it is authenticated, decoded, allowed its
 * model, attributed (team, end user, tags) and admitted (quotas and RPM/TPM, or let through by the
 * store-outage policy). Every accepted request produces exactly one ExchangeOutcome
 * (→ RequestCompleted), however it ends. Refusals before that (401, 400 — a bad body, tag or
 * end-user id —, 403, 429 of a limit or quota, 503 of a closed outage policy, 503 `shutting-down`
 * of a draining node) are answered in the client's format and not recorded: they reach no
 * channel and bill nothing. The client's departure is watched from the first line of the
 * handler, so a client that leaves while it is authenticated, resolved or admitted is recorded
 * once as `cancelled` (499) and never sent upstream.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { InboundCodec } from '../inbound/inbound-codec.ts';
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
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../policy/estimate-admission-tokens.ts';
import { estimateInputTokens } from '../tokenize/estimate-tokens.ts';
import type { TeamRecord } from '../../schemas/control-plane/control-plane-records.ts';
import { isStateStoreUnavailable } from '../../schemas/state-store/state-store-unavailable.ts';
import { attributeRequest, type RequestAttribution } from '../policy/request-attribution.ts';
import type { ResolvedKey } from '../policy/resolve-api-key.ts';
import { watchClientDeparture } from './client-departure.ts';
import {
  decodeOrReply,
  resolveStateOrReply,
  withHeaderFields,
  type ClientRequest,
  type ClientRouteServices,
} from './client-request.ts';
import { sendErrorReply } from './client-response.ts';
import type { ExchangeOutcome } from './exchange-outcome.ts';
import type { ExchangeDeps, ExchangeInput } from './exchange-types.ts';
import { outcomeOf, runExchange } from './run-exchange.ts';

/** The request's input-token estimate, computed at most once however many limits ask (tokens). */
class InputEstimate {
  private tokens: number | undefined;
  constructor(private readonly canonical: CanonicalRequest) {}
  get value(): number {
    return (this.tokens ??= estimateInputTokens(this.canonical));
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
async function admitOrReply(
  services: ClientRouteServices,
  codec: InboundCodec,
  resolved: ResolvedKey,
  team: TeamRecord | undefined,
  canonical: CanonicalRequest,
  input: InputEstimate,
  request: FastifyRequest,
  reply: FastifyReply,
  requestId: string,
): Promise<AdmittedRequest | 'unlimited' | undefined> {
  let result;
  try {
    // Tokenizing the prompt costs CPU on every request: only TPM limits need the estimate.
    const needsTokens = needsTokenEstimate(resolved.key, resolved.user, team, canonical.model);
    result = await admitRequest(services.admission, {
      key: resolved.key,
      user: resolved.user,
      team,
      model: canonical.model,
      estimatedTokens: needsTokens ? input.value + (canonical.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS) : 0,
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
function refuse(
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
interface BudgetPass {
  readonly holds: BudgetHolds | undefined;
}

/**
 * Reserves the request's budget and daily-cap windows (policy/budget-admission.ts); on refusal
 * answers the format's 429 (`budget_exceeded`, `daily_limit_exceeded`) and returns undefined.
 * While the store cannot answer, budgets follow the `quotas` store-outage policy: `open` admits
 * without holds (the request counts in no window), `closed` refuses with 503.
 */
async function admitBudgetsOrReply(
  client: ClientRequest,
  budgets: BudgetAdmissionDeps,
  team: TeamRecord | undefined,
  canonical: CanonicalRequest,
  attribution: RequestAttribution,
  input: InputEstimate,
): Promise<BudgetPass | undefined> {
  const { services, codec, reply, request } = client;
  const subject = {
    key: client.key.key,
    team,
    endUserId: attribution.endUserId,
    tags: attribution.tags,
    model: canonical.model,
  };
  if (!hasBudgetClaims(budgets.directory, subject)) return { holds: undefined };
  let result;
  try {
    result = await admitBudgets(budgets, {
      ...subject,
      requestId: request.id,
      inputTokens: input.value,
      maxOutputTokens: canonical.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
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

/** Header of an answer a budget at its limit routed to its downgrade model: the model the client asked for. */
export const DOWNGRADED_FROM_HEADER = 'x-tollgate-downgraded-from';

/** Releases holds of a request refused after them (its real cost is 0). */
function releaseHolds(client: ClientRequest, budgets: BudgetAdmissionDeps, holds: BudgetHolds | undefined): void {
  if (!holds) return;
  settleBudgets(budgets, holds, {}).catch((error: unknown) =>
    client.request.log.debug({ reason: (error as Error).message }, 'releasing budget holds failed'),
  );
}

/**
 * The request's team, end user and tags (policy/request-attribution.ts); on a bad tag or end-user
 * id answers the format's 400 naming it and returns undefined.
 */
function attributeOrReply(client: ClientRequest, canonical: CanonicalRequest): RequestAttribution | undefined {
  try {
    return attributeRequest(client.key.key, canonical, client.request.headers, client.services.attribution);
  } catch (error) {
    sendErrorReply(client.reply, client.codec, toGatewayError(error), client.request.id);
    return undefined;
  }
}

/**
 * Decodes and runs one generation request of the authenticated `client.key`. `fromHeaders` adds header-borne fields
 * (`anthropic-beta`); `state` resolves stored state before decoding (Responses
 * `previous_response_id` / `store`, request-state-resolver.ts); `mustTranslate` keeps a body that
 * holds what only the translated path carries from being passed through. An accepted request is recorded
 * exactly once (see the module doc).
 */
export async function serveGeneration(client: ClientRequest): Promise<void> {
  const { services, codec, key: resolved, request, reply, hints = {}, fromHeaders, state } = client;
  const requestId = request.id;
  const startedAt = Date.now();
  const drain = services.drain;
  drain?.enter();
  const departure = watchClientDeparture(request, reply);
  try {
    const stored = state
      ? await resolveStateOrReply(state, codec, request, reply, requestId, resolved.key.keyId, 'generate')
      : {};
    if (!stored) return;
    const decoded = decodeOrReply((body) => codec.decodeRequest(body, hints), codec, request, reply, requestId);
    if (!decoded) return;
    if (decoded.warnings.length > 0)
      request.log.warn({ warnings: decoded.warnings }, 'dropped request parts that are safe to lose');
    let canonical = withHeaderFields(decoded.value, fromHeaders);
    if (resolved.key.models && !resolved.key.models.has(canonical.model)) {
      const error = new GatewayError(
        'permission-denied',
        `The API key ${resolved.key.publicId} may not use the model '${canonical.model}'`,
        { param: 'model', code: 'model_not_allowed' },
      );
      return void sendErrorReply(reply, codec, error, requestId);
    }
    const team = resolved.team;
    if (team?.models && !team.models.has(canonical.model)) {
      const error = new GatewayError(
        'permission-denied',
        `The team '${team.name}' of the API key ${resolved.key.publicId} may not use the model '${canonical.model}'`,
        { param: 'model', code: 'model_not_allowed' },
      );
      return void sendErrorReply(reply, codec, error, requestId);
    }
    const attribution = attributeOrReply(client, canonical);
    if (!attribution) return;
    const input = new InputEstimate(canonical);
    const budgets = services.budgets;
    const budgetPass = budgets
      ? await admitBudgetsOrReply(client, budgets, team, canonical, attribution, input)
      : { holds: undefined };
    if (!budgetPass) return;
    const holds = budgetPass.holds;
    if (holds?.downgradedFrom) canonical = { ...canonical, model: holds.model };
    const admitted = await admitOrReply(services, codec, resolved, team, canonical, input, request, reply, requestId);
    if (!admitted) return void (budgets && releaseHolds(client, budgets, holds));
    const identity = { keyId: resolved.key.keyId, userId: resolved.key.userId };
    const rawBody = request.body as Record<string, unknown>;
    const exchangeInput: ExchangeInput = {
      requestId,
      codec,
      request: canonical,
      rawBody,
      startedAt,
      warnings: decoded.warnings,
      uncarried: decoded.uncarried,
      identity,
      attribution,
      ...(holds ? { budgetCounters: holds.counters } : {}),
      clientGone: departure.signal,
      ...(stored.answerHook ? { answerHook: stored.answerHook } : {}),
      ...(client.mustTranslate?.(rawBody) ? { mustTranslate: true } : {}),
    };
    const liveStreams = canonical.stream ? services.metrics : undefined;
    liveStreams?.streamOpened(codec.format);
    let outcome: ExchangeOutcome;
    try {
      outcome = await runExchangeRecordedOnce(services.exchange, exchangeInput, reply);
    } finally {
      liveStreams?.streamClosed(codec.format);
    }
    if (admitted !== 'unlimited') {
      await settleRequest({ limiter: services.admission.limiter }, admitted, outcome).catch((error: unknown) =>
        request.log.debug({ reason: (error as Error).message }, 'settling the token reservation failed'),
      );
    }
    if (budgets && holds) {
      await settleBudgets(budgets, holds, outcome).catch((error: unknown) =>
        request.log.debug({ reason: (error as Error).message }, 'settling the budget holds failed'),
      );
    }
  } finally {
    departure.stop();
    drain?.leave();
  }
}

/**
 * Runs the exchange with an outcome sink that passes on the first outcome only (a second one is
 * logged as an error and dropped). Should the exchange reject — it is not meant to — the request
 * is still recorded once: `failed` with a 500 answer, or `cancelled` when the client has left.
 */
async function runExchangeRecordedOnce(
  deps: ExchangeDeps,
  input: ExchangeInput,
  reply: FastifyReply,
): Promise<ExchangeOutcome> {
  let recorded: ExchangeOutcome | undefined;
  const onOutcome = (outcome: ExchangeOutcome): void => {
    if (recorded)
      return void deps.log.error(
        { requestId: input.requestId, status: outcome.status },
        'a second outcome for one request was dropped',
      );
    recorded = outcome;
    deps.onOutcome(outcome);
  };
  try {
    return await runExchange({ ...deps, onOutcome }, input, reply);
  } catch (error) {
    deps.log.error({ requestId: input.requestId, err: error }, 'exchange failed unexpectedly');
    if (recorded) return recorded;
    const cancelled = input.clientGone?.aborted === true;
    const failure = toGatewayError(error);
    const httpStatus = cancelled
      ? 499
      : reply.sent
        ? reply.raw.statusCode
        : sendErrorReply(reply, input.codec, failure, input.requestId);
    const outcome = outcomeOf(input, {
      status: cancelled ? 'cancelled' : 'failed',
      httpStatus,
      errorKind: failure.kind,
      errorMessage: failure.message,
      passThrough: false,
      attempts: 0,
      failovers: [],
    });
    onOutcome(outcome);
    return outcome;
  }
}

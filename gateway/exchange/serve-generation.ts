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
import type { FastifyReply } from 'fastify';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { AdmittedRequest } from '../policy/admit-request.ts';
import type { BudgetAdmissionDeps, BudgetHolds } from '../policy/budget-admission.ts';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../policy/estimate-admission-tokens.ts';
import { estimateAdmissionInputTokens } from '../tokenize/estimate-tokens.ts';
import { affinityKeyOf } from '../routing/prompt-cache-affinity.ts';
import {
  admitBudgetsOrReply,
  admitOrReply,
  attributeOrReply,
  modelAllowedOrReply,
  mayUseModel,
  recordOnce,
  releaseHolds,
  settleAdmission,
  type AdmissionSubject,
} from './admission-steps.ts';
import { watchClientDeparture } from './client-departure.ts';
import { decodeOrReply, resolveStateOrReply, withHeaderFields, type ClientRequest } from './client-request.ts';
import type { ExchangeOutcome } from './exchange-outcome.ts';
import type { ExchangeDeps, ExchangeInput } from './exchange-types.ts';
import { outcomeOf, runExchange } from './run-exchange.ts';

export { DOWNGRADED_FROM_HEADER } from './admission-steps.ts';

/** The request's input-token estimate, computed at most once however many limits ask (tokens). */
class InputEstimate {
  private tokens: number | undefined;
  constructor(private readonly canonical: CanonicalRequest) {}
  get value(): number {
    return (this.tokens ??= estimateAdmissionInputTokens(this.canonical));
  }
}

/** What admission weighs of a generation: its model, its input estimate and its output cap (or the default). */
function admissionSubject(canonical: CanonicalRequest, input: InputEstimate): AdmissionSubject {
  return {
    model: canonical.model,
    inputTokens: () => input.value,
    maxOutputTokens: canonical.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
  };
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
  // Once admitted, the request is run by `runAdmitted`, which leaves the drain and stops the
  // departure watch when it ends; until then this function does.
  let handedOver = false;
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
    if (!modelAllowedOrReply(client, canonical.model)) return;
    const team = resolved.team;
    const attribution = attributeOrReply(client, canonical);
    if (!attribution) return;
    const input = new InputEstimate(canonical);
    const budgets = services.budgets;
    const budgetPass = budgets
      ? await admitBudgetsOrReply(client, budgets, team, admissionSubject(canonical, input), attribution)
      : { holds: undefined };
    if (!budgetPass) return;
    const holds = budgetPass.holds;
    if (holds?.downgradedFrom) canonical = { ...canonical, model: holds.model };
    const admitted = await admitOrReply(
      services,
      codec,
      resolved,
      team,
      admissionSubject(canonical, input),
      request,
      reply,
      requestId,
    );
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
      inputTokens: () => input.value,
      mayUseModel: (model) => mayUseModel(resolved, model),
      // The conversation's affinity key, when affinity is on and the model has an account to choose.
      ...(services.exchange.routing?.affinity && services.exchange.router.hasAccountChoice(canonical.model)
        ? {
            affinityKey: affinityKeyOf({
              keyId: identity.keyId,
              request: canonical,
              rawBody,
              headers: request.headers,
            }),
          }
        : {}),
      ...(stored.answerHook ? { answerHook: stored.answerHook } : {}),
      ...(client.mustTranslate?.(rawBody) ? { mustTranslate: true } : {}),
    };
    handedOver = true;
    // Not awaited here: a live stream waits in `runAdmitted` alone, which holds only what the
    // request's end needs, and not in this function's suspended call with all it read to admit.
    return runAdmitted({ services, request, reply, admitted, budgets, holds, departure }, exchangeInput);
  } finally {
    if (!handedOver) {
      departure.stop();
      drain?.leave();
    }
  }
}

/** What the end of an admitted request needs: its admission to settle, its drain and departure watch to leave. */
interface AdmittedGeneration {
  readonly services: ClientRequest['services'];
  readonly request: ClientRequest['request'];
  readonly reply: ClientRequest['reply'];
  readonly admitted: AdmittedRequest | 'unlimited';
  readonly budgets: BudgetAdmissionDeps | undefined;
  readonly holds: BudgetHolds | undefined;
  readonly departure: ReturnType<typeof watchClientDeparture>;
}

/**
 * Runs the admitted request's exchange (recorded once), counts it as a live stream while it
 * streams, settles its admission, then stops the departure watch and leaves the drain.
 */
async function runAdmitted(generation: AdmittedGeneration, input: ExchangeInput): Promise<void> {
  const { services, request, admitted, budgets, holds } = generation;
  try {
    const liveStreams = input.request.stream ? services.metrics : undefined;
    liveStreams?.streamOpened(input.codec.format);
    let outcome: ExchangeOutcome;
    try {
      outcome = await runExchangeRecordedOnce(services.exchange, input, generation.reply);
    } finally {
      liveStreams?.streamClosed(input.codec.format);
    }
    await settleAdmission(services, request.log, admitted, { budgets, holds }, outcome);
  } finally {
    generation.departure.stop();
    services.drain?.leave();
  }
}

/**
 * Runs the exchange recorded exactly once (admission-steps.ts recordOnce): should it reject, the
 * request is still recorded, `failed` with a 500 answer or `cancelled` when the client has left.
 */
function runExchangeRecordedOnce(
  deps: ExchangeDeps,
  input: ExchangeInput,
  reply: FastifyReply,
): Promise<ExchangeOutcome> {
  const target = {
    requestId: input.requestId,
    reply,
    codec: input.codec,
    clientGone: input.clientGone,
    failedOutcome: (end: Pick<ExchangeOutcome, 'status' | 'httpStatus' | 'errorKind' | 'errorMessage'>) =>
      outcomeOf(input, { ...end, passThrough: false, attempts: 0, failovers: [] }),
  };
  return recordOnce(deps, target, (onOutcome) => runExchange({ ...deps, onOutcome }, input, reply));
}

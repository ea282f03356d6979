/**
 * One client request end to end: candidates for the model → try each channel in failover order
 * (retryable errors — connection error, timeout, 408, 429, 5xx — before the first byte reached
 * the client move on to the next channel: the rest of the tier in the strategy's order, then lower
 * tiers) → when every channel of the model failed, the model's fallback chain (config
 * `routing.models.<alias>.fallbacks`) → answer in the client's format → one ExchangeOutcome to the
 * sink. Channels at their RPM/TPM limit are skipped (ExchangeDeps.channelLimits), at most
 * ExchangeDeps.maxAttempts attempts (default 4) are made per model, with a wait of a short upstream
 * Retry-After (≤ `routing.retries.retryAfterCapMs`, 1 s by default) between attempts and retry
 * rounds over transiently failed channels when `routing.retries.maxRetries` allows
 * (routing/failover-policy.ts). The conversation's pinned channel goes first (prompt-cache
 * affinity, routing/prompt-cache-affinity.ts) and is re-pinned to the channel that served.
 */
import type { FastifyReply } from 'fastify';
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import { hasStampedReasoning, reasoningForChannel } from '../canonical/reasoning-provenance.ts';
import { describeUncarried, type UncarriedPart } from '../canonical/translation-notes.ts';
import type { EncodeContext } from '../inbound/inbound-codec.ts';
import { DEFAULT_REQUEST_DEADLINE_MS } from '../config/config-schema.ts';
import { DEFAULT_ROUTING_SETTINGS, type RoutingSettings } from '../config/routing-settings.ts';
import { NO_ATTRIBUTION } from '../policy/request-attribution.ts';
import { upstreamModelFor, type Channel } from '../routing/channel.ts';
import { attemptCap } from '../routing/failover-policy.ts';
import { fallbackTriggerOf } from '../routing/fallback-triggers.ts';
import type { AffinityLookup, AffinityResult } from '../routing/prompt-cache-affinity.ts';
import type { UpstreamHttpRequest } from '../upstream/upstream-adapter.ts';
import { adapterFor } from '../upstream/upstream-adapter.ts';
import { upstreamRequestIdOf } from '../upstream/upstream-request-id.ts';
import { finishUpstreamCall, upstreamTargetOf } from './channel-upstream-call.ts';
import { sendUpstream } from '../upstream/upstream-transport.ts';
import { AttemptDeadline, attemptLimitsFor } from './attempt-deadline.ts';
import type { AttemptResult } from './attempt-result.ts';
import {
  clientLeftError,
  deliverOutcome,
  moveToNextChannel,
  reportChannelAttempt,
  RetryRounds,
} from './attempt-records.ts';
import { allChannelsLimitedError, ChannelAdmission } from './channel-admission.ts';
import { attemptWithCredentials, credentialOutcomeOf } from './credential-rotation.ts';
import { sendErrorReply } from './client-response.ts';
import type { ExchangeOutcome, FailoverRecord } from './exchange-outcome.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import type { ExchangeDeps, ExchangeInput } from './exchange-types.ts';
import { canPassThrough, passThroughBody, suitsProviderQuirks } from './pass-through-policy.ts';
import { relayJson } from './relay-json.ts';
import { withReasoningStamps } from './reasoning-stamping-adapter.ts';
import { relayStream, type StreamRelayArgs } from './relay-stream.ts';
import type { BudgetCounter } from '../../schemas/state-store/budget-ledger.ts';

/** Response header naming the model that answered, sent when a fallback model answered. */
export const ANSWERED_MODEL_HEADER = 'x-tollgate-model';

/** Response header naming the model the client asked for, sent when a fallback model answered. */
export const FALLBACK_FROM_HEADER = 'x-tollgate-fallback-from';

/**
 * Serves `input` on `reply` and resolves with the request's outcome (also given to
 * `deps.onOutcome`). Never throws: every failure becomes a format-native answer.
 * A client that has left (`input.clientGone` aborted, or the response closed before its end) is
 * never sent upstream: the outcome is `cancelled` (499) with no channel.
 */
export async function runExchange(
  deps: ExchangeDeps,
  input: ExchangeInput,
  reply: FastifyReply,
): Promise<ExchangeOutcome> {
  if (input.clientGone?.aborted)
    return reportFailure({ deps, input, reply, error: clientLeftError(), cancelled: true });
  const affinity = await lookupAffinity(deps, input);
  // The handler's departure watch already aborts when the response closes before its end: use it as is.
  if (input.clientGone) return tryModels(deps, input, reply, input.clientGone, affinity);
  const abort = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableEnded) abort.abort();
  };
  reply.raw.on('close', onClose);
  try {
    return await tryModels(deps, input, reply, abort.signal, affinity);
  } finally {
    reply.raw.off('close', onClose);
  }
}

/** The conversation's pin (prompt-cache affinity), or `off` without an affinity key or store. */
async function lookupAffinity(deps: ExchangeDeps, input: ExchangeInput): Promise<AffinityLookup> {
  const affinity = deps.routing?.affinity;
  if (!affinity || !input.affinityKey) return { state: 'off' };
  return affinity.lookup(input.affinityKey);
}

/** The request's routing settings: the deps' or the defaults. */
function settingsOf(deps: ExchangeDeps): RoutingSettings {
  return deps.routing?.settings ?? DEFAULT_ROUTING_SETTINGS;
}

/**
 * The models tried for `model`, in order: itself, then its fallback chain (config
 * `routing.models.<alias>.fallbacks`) without models the key or its team may not use.
 */
function modelChainOf(deps: ExchangeDeps, input: ExchangeInput): string[] {
  const model = input.request.model;
  const fallbacks = settingsOf(deps).models[model]?.fallbacks ?? [];
  return [model, ...fallbacks.filter((fallback) => input.mayUseModel?.(fallback) ?? true)];
}

/** How the channels of one model ended: an outcome (served, or ended for good), or every channel failed before the first byte. */
type ModelEnd =
  | { readonly kind: 'outcome'; readonly outcome: ExchangeOutcome }
  | { readonly kind: 'exhausted'; readonly error: GatewayError; readonly last?: LastAttempt };

/**
 * The models of the chain in turn: the next model is tried only when every channel of the previous
 * one failed before the first byte with an error whose trigger (routing/fallback-triggers.ts) the
 * requested model's `fallbackOn` names. The outcome records every model tried.
 */
function tryModels(
  deps: ExchangeDeps,
  input: ExchangeInput,
  reply: FastifyReply,
  signal: ClientGoneSignal,
  affinity: AffinityLookup,
): Promise<ExchangeOutcome> {
  const chain = modelChainOf(deps, input);
  const [requested] = chain;
  // modelsTried starts as a literal of its one model: an empty array grown by `push` reserves 17
  // slots, kept for as long as the stream.
  const run: ChainRun = {
    deps,
    input,
    reply,
    signal,
    affinity,
    failovers: [],
    attempts: 0,
    modelsTried: requested === undefined ? [] : [requested],
  };
  if (requested === undefined) return tryFallbacks(run, chain, undefined);
  // The requested model is awaited with a `then`, not in an async function: a live stream waits in
  // this call, and a suspended async call keeps a generator and its registers while it waits.
  return tryModel(run, requested).then((result) =>
    result.kind === 'outcome' ? result.outcome : tryFallbacks(run, chain.slice(1), result),
  );
}

/** tryModels after `end` (the requested model's channels all failed, none when the chain is empty): the fallbacks in `chain`. */
async function tryFallbacks(
  run: ChainRun,
  chain: readonly string[],
  end: Extract<ModelEnd, { kind: 'exhausted' }> | undefined,
): Promise<ExchangeOutcome> {
  const { deps, input, reply, signal } = run;
  const fallbackOn = settingsOf(deps).models[input.request.model]?.fallbackOn ?? [];
  for (const model of chain) {
    if (signal.aborted) break;
    if (end) {
      const trigger = fallbackTriggerOf(end.error);
      if (trigger === undefined || !fallbackOn.includes(trigger)) break;
      deps.log.warn(
        { requestId: input.requestId, model: run.modelsTried.at(-1), next: model, trigger, reason: end.error.message },
        'model fallback',
      );
    }
    run.modelsTried.push(model);
    const result = await tryModel(run, model);
    if (result.kind === 'outcome') return result.outcome;
    end = result;
  }
  const final = end ?? { kind: 'exhausted' as const, error: modelNotServed(input.request.model) };
  return reportFailure({
    deps,
    input,
    reply,
    error: final.error,
    failovers: run.failovers,
    attempts: run.attempts,
    ...(final.last ? { last: final.last } : {}),
    cancelled: signal.aborted,
    chain: run,
  });
}

/** The state of one request across the models of its chain. */
interface ChainRun {
  readonly deps: ExchangeDeps;
  readonly input: ExchangeInput;
  readonly reply: FastifyReply;
  readonly signal: ClientGoneSignal;
  readonly affinity: AffinityLookup;
  /** Every failed attempt so far, across models. */
  readonly failovers: FailoverRecord[];
  /** Attempts sent upstream so far, across models. */
  attempts: number;
  /** The models tried so far, the requested one first. */
  readonly modelsTried: string[];
}

function modelNotServed(model: string): GatewayError {
  return new GatewayError('not-found', `The model '${model}' does not exist or is not served by any channel`, {
    param: 'model',
    code: 'model_not_found',
  });
}

/**
 * The failover loop over the channels of `model`: channels at their limit are skipped
 * (channel-admission.ts), at most `maxAttempts` attempts are made, a short upstream Retry-After is
 * waited for before the next attempt, and retry rounds follow when configured
 * (routing/failover-policy.ts).
 */
async function tryModel(run: ChainRun, model: string): Promise<ModelEnd> {
  const { deps, reply, signal } = run;
  const requested = run.input.request.model;
  const modelInput: ExchangeInput =
    model === requested
      ? run.input
      : { ...run.input, request: { ...run.input.request, model }, fallbackFrom: requested };
  // The pinned credential goes first in the pinned channel's key pool.
  const pin = run.affinity.state === 'found' ? run.affinity.pin : undefined;
  const input: ExchangeInput =
    pin?.credentialId !== undefined ? { ...modelInput, preferredCredentialId: pin.credentialId } : modelInput;
  const candidates = deps.router.candidatesFor(model, undefined, routeOptions(run, input));
  if (candidates.length === 0) return { kind: 'exhausted', error: modelNotServed(model) };
  const gates = new ChannelAdmission(deps, input);
  const settings = settingsOf(deps);
  const maxAttempts = attemptCap(deps.maxAttempts);
  const retries = new RetryRounds(
    settings.retries,
    input.startedAt + (deps.requestDeadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS),
  );
  const order = [...candidates];
  const first = await gates.next(order, 0);
  if (!first.admitted) return { kind: 'exhausted', error: allChannelsLimitedError(first.retryAfterMs) };
  let current = first.admitted;
  for (let attempts = 1; ; attempts++) {
    const channel = current.channel;
    // The client left while the channel was being admitted: nothing is sent upstream.
    if (signal.aborted) {
      gates.settle(current, undefined);
      return { kind: 'exhausted', error: clientLeftError() };
    }
    const attemptStartedAt = Date.now();
    const passThrough = passesThrough(input, channel);
    const endInFlight = deps.routing?.beginAttempt?.(channel.id);
    // The conversation is pinned as soon as the channel accepts it, before the client has the answer
    // (and can send its next turn, maybe to another node).
    let affinity: AffinityResult = 'off';
    const onAccepted = async (served: Channel): Promise<void> => {
      affinity = await rememberAffinity(run, served);
    };
    // Rotations are kept under the client's request (run.input), whichever model of the chain is tried.
    let result: AttemptResult;
    try {
      result = await attemptChannel(deps, input, channel, passThrough, reply, signal, onAccepted, run.input);
    } catch (error) {
      result = { kind: 'failed', error: toGatewayError(error) };
    } finally {
      endInFlight?.();
    }
    if (result.kind === 'refused') {
      // Nothing was sent: the next channel (maybe one that can pass the body through) gets its turn.
      gates.settle(current, undefined);
      const next = (await gates.next(order, current.index + 1)).admitted;
      if (!next) return { kind: 'exhausted', error: result.error };
      current = next;
      attempts--;
      continue;
    }
    run.attempts++;
    reportChannelAttempt(deps, channel, result.error);
    gates.settle(current, result);
    if (result.kind === 'served')
      return { kind: 'outcome', outcome: reportServed(run, input, channel, passThrough, result, affinity) };
    const last = { channel, model, upstreamRequestId: result.upstreamRequestId };
    /** The request ends on this channel: failed (unless another model follows), or cancelled when the client left. */
    const endOnThisChannel = (cancelled: boolean): ModelEnd =>
      reply.sent || cancelled
        ? {
            kind: 'outcome',
            outcome: reportFailure({
              deps,
              input: run.input,
              reply,
              error: result.error,
              failovers: run.failovers,
              attempts: run.attempts,
              last,
              cancelled,
              chain: run,
            }),
          }
        : { kind: 'exhausted', error: result.error, last };
    // The client went away: not the channel's failure, and nothing more to try.
    if (signal.aborted) return endOnThisChannel(true);
    retries.noteFailure(channel, result.error);
    const step = await moveToNextChannel(
      deps,
      gates,
      order,
      { requestId: input.requestId, current, error: result.error, attempts, attemptStartedAt },
      { maxAttempts, failovers: run.failovers, signal, retryAfterCapMs: settings.retries.retryAfterCapMs, retries },
    );
    if ('end' in step) return endOnThisChannel(step.end === 'client-left');
    current = step.next;
  }
}

/** The router's per-request inputs: the model's strategy, the pinned channel, the signals and prices. */
function routeOptions(run: ChainRun, input: ExchangeInput): Parameters<ExchangeDeps['router']['candidatesFor']>[2] {
  const routing = run.deps.routing;
  const settings = settingsOf(run.deps);
  const strategy = settings.models[input.request.model]?.strategy ?? settings.strategy;
  const costOf = routing?.costOf;
  return {
    strategy,
    stream: input.request.stream,
    ...(run.affinity.state === 'found' ? { preferredChannelId: run.affinity.pin.channelId } : {}),
    ...(routing?.signals ? { signals: routing.signals } : {}),
    ...(costOf ? { costOf: (channel: Channel) => costOf(channel, input) } : {}),
  };
}
/**
 * Tries one channel, the client's body unchanged when `passThrough` (passesThrough); `failed` means
 * nothing was sent to the client. `onAccepted` is called once the upstream answered 2xx, before the relay.
 */
async function attemptChannel(
  deps: ExchangeDeps,
  input: ExchangeInput,
  channel: Channel,
  passThrough: boolean,
  reply: FastifyReply,
  signal: ClientGoneSignal,
  onAccepted: (served: Channel) => Promise<void>,
  requestKey: object,
): Promise<AttemptResult> {
  // One channel attempt, rotating through its key pool on 429/401/403 (credential-rotation.ts).
  return attemptWithCredentials(
    deps,
    input,
    channel,
    (withCredential) =>
      attemptCredential(deps, input, withCredential, passThrough, reply, signal, () => onAccepted(withCredential)),
    signal,
    requestKey,
  );
}

/** attemptChannel with the one credential `channel.apiKey` holds; `onAccepted` as attemptChannel's. */
async function attemptCredential(
  deps: ExchangeDeps,
  input: ExchangeInput,
  channel: Channel,
  passThrough: boolean,
  reply: FastifyReply,
  signal: ClientGoneSignal,
  onAccepted: () => Promise<void>,
): Promise<AttemptResult> {
  const adapter = adapterFor(deps.adapters, channel.adapterKey);
  const target = upstreamTargetOf(channel, input.request.model);
  const upstreamModel = target.upstreamModel;
  // Translated: replayed reasoning goes only to the provider that minted it (reasoning-provenance.ts).
  let httpRequest: UpstreamHttpRequest;
  if (passThrough) {
    // The client's own body: nothing is translated, so nothing can be dropped or left uncarried.
    httpRequest = {
      ...adapter.passThroughTarget(input.request, target),
      body: passThroughBody(input.codec.format, input.rawBody, upstreamModel),
    };
  } else {
    const translated = reasoningForChannel(input.request, channel.provider.id, channel.protocol);
    const built = adapter.buildRequest(translated.request, target);
    const uncarried = [...input.uncarried, ...built.notes.uncarried];
    if (uncarried.length > 0) return { kind: 'refused', error: uncarriedError(uncarried, channel) };
    const dropped = [...translated.dropped, ...built.notes.dropped];
    if (dropped.length > 0)
      deps.log.warn(
        { requestId: input.requestId, channel: channel.id, warnings: dropped },
        'dropped request parts that are safe to lose',
      );
    httpRequest = built.request;
  }
  // The attempt's total deadline and minimum stream rate (README "Deadlines"); the signal also carries the client's disconnect.
  const limits = attemptLimitsFor(channel, input.startedAt + (deps.requestDeadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS));
  if (limits.totalMs <= 0)
    return {
      kind: 'failed',
      error: new GatewayError('upstream-timeout', 'Request deadline of the gateway reached before this attempt', {
        allowFailover: false,
      }),
    };
  const deadline = new AttemptDeadline(signal, limits, deps.drainDeadline);
  // Disposed when the attempt ends: here, or by the relay's `finally` once it took the answer over.
  let relaying = false;
  try {
    httpRequest = await finishUpstreamCall(channel, httpRequest, deps.upstreamAuth, deadline.signal);
    const answer = await sendUpstream(deps.dispatcher, httpRequest, {
      timeoutMs: channel.timeoutMs,
      signal: deadline.signal,
    });
    if (answer.status < 200 || answer.status >= 300) {
      const text = await answer.body.text().catch(() => '');
      return {
        kind: 'failed',
        error: adapter.classifyError(answer.status, text, answer.headers),
        upstreamRequestId: upstreamRequestIdOf(answer.headers),
      };
    }
    await onAccepted();
    if (input.fallbackFrom !== undefined && !reply.sent) {
      reply.header(ANSWERED_MODEL_HEADER, input.request.model);
      reply.header(FALLBACK_FROM_HEADER, input.fallbackFrom);
    }
    const decodeContext = { provider: channel.provider, upstreamModel, request: input.request };
    const encodeContext: EncodeContext = {
      requestId: input.requestId,
      model: input.request.model,
      request: input.request,
      rawRequest: input.rawBody,
      createdAt: Math.floor(input.startedAt / 1000),
    };
    const decoding = passThrough ? adapter : withReasoningStamps(adapter, channel.provider.id);
    // One literal for both relays: a spread copy with `deps` and `signal` added got a hidden class
    // (map and descriptor array, about 330 bytes) of its own per stream, kept for as long as it.
    const relay: StreamRelayArgs = {
      input,
      answer,
      adapter: decoding,
      decodeContext,
      encodeContext,
      passThrough,
      reply,
      deadline,
      deps,
      signal,
    };
    if (!input.request.stream) return await relayJson(relay);
    // Not awaited here: a live stream waits in the relay alone, and this function's suspended call
    // would keep a generator and its registers for as long as the stream lasts. relayStream
    // disposes the deadline when it ends.
    relaying = true;
    return relayStream(relay);
  } finally {
    if (!relaying) deadline.dispose();
  }
}

/**
 * Whether the client's body goes upstream unchanged (pass-through-policy.ts); never when it
 * replays reasoning the gateway stamped, which only the translated path can restore, nor when the
 * route marked it as holding what only that path carries (ExchangeInput.mustTranslate).
 */
function passesThrough(input: ExchangeInput, channel: Channel): boolean {
  return (
    input.mustTranslate !== true &&
    canPassThrough(input.codec.format, channel.protocol, input.rawBody, input.request.stream) &&
    suitsProviderQuirks(channel.provider, channel.protocol, input.rawBody) &&
    !hasStampedReasoning(input.request)
  );
}

const PROTOCOL_NAMES: Readonly<Record<Channel['protocol'], string>> = {
  'openai-chat': 'OpenAI Chat Completions',
  'openai-responses': 'OpenAI Responses',
  'anthropic-messages': 'Anthropic Messages',
  gemini: 'Gemini generateContent',
  'bedrock-converse': 'Amazon Bedrock Converse',
};

/** The 400 for a request whose parts the channel's protocol cannot carry (names the first part as `param`). */
function uncarriedError(parts: ReadonlyArray<UncarriedPart>, channel: Channel): GatewayError {
  const target = `the ${PROTOCOL_NAMES[channel.protocol]} API that serves this model`;
  return new GatewayError('invalid-request', describeUncarried(parts, target), {
    ...(parts[0] ? { param: parts[0].path } : {}),
    code: 'unsupported_parameter',
  });
}

/** The served outcome of `run` on `channel` (for the model of `input`), with its chain and affinity. */
function reportServed(
  run: ChainRun,
  input: ExchangeInput,
  channel: Channel,
  passThrough: boolean,
  result: Extract<AttemptResult, { kind: 'served' }>,
  affinity: AffinityResult,
): ExchangeOutcome {
  return emitOutcome(run.deps, run.input, {
    status: result.status,
    httpStatus: result.httpStatus,
    channelId: channel.id,
    provider: channel.provider.id,
    upstreamModel: upstreamModelFor(channel, input.request.model),
    passThrough,
    attempts: run.attempts,
    failovers: run.failovers,
    usage: result.usage,
    ttfbMs: result.ttfbMs,
    upstreamRequestId: result.upstreamRequestId,
    ...(result.error ? { errorKind: result.error.kind, errorMessage: result.error.message } : {}),
    ...chainDetails(run, input.request.model),
    ...(affinity === 'off' ? {} : { affinity }),
  });
}

/**
 * Pins the conversation to the channel that accepted it, and to its key-pool credential when the
 * channel has a pool (prompt-cache affinity), and tells how affinity ended.
 */
async function rememberAffinity(run: ChainRun, served: Channel): Promise<AffinityResult> {
  const affinity = run.deps.routing?.affinity;
  if (!affinity) return 'off';
  const pooled = (served.credentials?.length ?? 0) > 0 && served.credentialId !== undefined;
  return affinity.remember(run.affinity, {
    channelId: served.id,
    provider: served.provider.id,
    ...(pooled ? { credentialId: served.credentialId } : {}),
  });
}

/** The outcome's model chain: the models tried (only when more than the requested one) and the one that answered. */
function chainDetails(
  run: ChainRun,
  answeredModel: string | undefined,
): Pick<OutcomeDetails, 'modelChain' | 'answeredModel'> {
  return {
    ...(run.modelsTried.length > 1 ? { modelChain: [...run.modelsTried] } : {}),
    ...(answeredModel !== undefined && answeredModel !== run.input.request.model ? { answeredModel } : {}),
  };
}

/** The channel tried last, the model it was tried for, and the upstream's id of that call, when it answered with one. */
interface LastAttempt {
  readonly channel: Channel;
  readonly model: string;
  readonly upstreamRequestId: string | undefined;
}

/** A request that ends without a served answer, as reportFailure takes it. */
interface FailureReport {
  readonly deps: ExchangeDeps;
  readonly input: ExchangeInput;
  readonly reply: FastifyReply;
  /** Why it ended; answered to the client in its format unless it left or an answer was already sent. */
  readonly error: GatewayError;
  /** The failovers so far (none: no channel was tried). */
  readonly failovers?: FailoverRecord[];
  /** Channels sent the request (0: none). */
  readonly attempts?: number;
  /** The channel tried last (none: no channel was sent the request). */
  readonly last?: LastAttempt;
  /** The client left: recorded as `cancelled` (499) and nothing is answered. */
  readonly cancelled?: boolean;
  /** The models tried (none: only the requested one). */
  readonly chain?: ChainRun;
}

/** Answers `error` (unless the client left or an answer was sent) and emits the request's failed or cancelled outcome. */
function reportFailure(report: FailureReport): ExchangeOutcome {
  const { deps, input, reply, error, failovers = [], attempts = 0, last, cancelled = false, chain } = report;
  const httpStatus = cancelled || reply.sent ? 499 : sendErrorReply(reply, input.codec, error, input.requestId);
  return emitOutcome(deps, input, {
    status: cancelled ? 'cancelled' : 'failed',
    httpStatus,
    errorKind: error.kind,
    errorMessage: error.message,
    passThrough: false,
    attempts,
    failovers,
    ...(last
      ? {
          channelId: last.channel.id,
          provider: last.channel.provider.id,
          upstreamModel: upstreamModelFor(last.channel, last.model),
          upstreamRequestId: last.upstreamRequestId,
        }
      : {}),
    ...(chain ? chainDetails(chain, undefined) : {}),
  });
}

/** What an outcome says beyond the request's own fields (ids, format, model, stream, latency). */
export type OutcomeDetails = Omit<
  ExchangeOutcome,
  'requestId' | 'keyId' | 'userId' | 'clientFormat' | 'model' | 'stream' | 'startedAt' | 'latencyMs'
>;

/** The outcome of `input` with `details`; `startedAt` is `input.startedAt`, `latencyMs` is measured from it to now. */
export function outcomeOf(input: ExchangeInput, details: OutcomeDetails): ExchangeOutcome {
  return {
    requestId: input.requestId,
    keyId: input.identity.keyId,
    userId: input.identity.userId,
    clientFormat: input.codec.format,
    model: input.request.model,
    stream: input.request.stream,
    startedAt: input.startedAt,
    latencyMs: Date.now() - input.startedAt,
    attribution: input.attribution ?? NO_ATTRIBUTION,
    budgetCounters: input.budgetCounters ?? NO_BUDGET_COUNTERS,
    ...credentialOutcomeOf(input),
    ...details,
  };
}

/** The budget counters of a request no budget applied to (shared, frozen). */
const NO_BUDGET_COUNTERS: ReadonlyArray<BudgetCounter> = Object.freeze([]);

/** The outcome of `input` with `details`, handed to the sink (deliverOutcome). */
function emitOutcome(deps: ExchangeDeps, input: ExchangeInput, details: OutcomeDetails): ExchangeOutcome {
  return deliverOutcome(deps, outcomeOf(input, details));
}

/**
 * One client request end to end: candidates for the model → try each channel in failover order
 * (retryable errors — connection error, timeout, 408, 429, 5xx — before the first byte reached
 * the client move on to the next channel: the rest of the tier by weight, then lower tiers) →
 * answer in the client's format → one ExchangeOutcome to the sink.
 * Channels at their RPM/TPM limit are skipped (ExchangeDeps.channelLimits), at most
 * ExchangeDeps.maxAttempts channels (default 4) are tried, with a wait of a short upstream
 * Retry-After (≤ 1 s) between attempts (routing/failover-policy.ts).
 */
import type { FastifyReply } from 'fastify';
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import { hasStampedReasoning, reasoningForChannel } from '../canonical/reasoning-provenance.ts';
import { describeUncarried, type UncarriedPart } from '../canonical/translation-notes.ts';
import type { EncodeContext } from '../inbound/inbound-codec.ts';
import { DEFAULT_REQUEST_DEADLINE_MS } from '../config/config-schema.ts';
import { NO_ATTRIBUTION } from '../policy/request-attribution.ts';
import { upstreamModelFor, type Channel } from '../routing/channel.ts';
import { attemptCap } from '../routing/failover-policy.ts';
import type { UpstreamHttpRequest } from '../upstream/upstream-adapter.ts';
import { adapterFor } from '../upstream/upstream-adapter.ts';
import { upstreamRequestIdOf } from '../upstream/upstream-request-id.ts';
import { finishUpstreamCall, upstreamTargetOf } from './channel-upstream-call.ts';
import { sendUpstream } from '../upstream/upstream-transport.ts';
import { AttemptDeadline, attemptLimitsFor } from './attempt-deadline.ts';
import type { AttemptResult } from './attempt-result.ts';
import { clientLeftError, deliverOutcome, moveToNextChannel, reportChannelAttempt } from './attempt-records.ts';
import { allChannelsLimitedError, ChannelAdmission } from './channel-admission.ts';
import { attemptWithCredentials, credentialOutcomeOf } from './credential-rotation.ts';
import { sendErrorReply } from './client-response.ts';
import type { ExchangeOutcome, FailoverRecord } from './exchange-outcome.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import type { ExchangeDeps, ExchangeInput } from './exchange-types.ts';
import { canPassThrough, passThroughBody, suitsProviderQuirks } from './pass-through-policy.ts';
import { relayJson } from './relay-json.ts';
import { withReasoningStamps } from './reasoning-stamping-adapter.ts';
import { relayStream } from './relay-stream.ts';
import type { BudgetCounter } from '../../schemas/state-store/budget-ledger.ts';

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
  const candidates = deps.router.candidatesFor(input.request.model);
  if (candidates.length === 0) {
    const error = new GatewayError(
      'not-found',
      `The model '${input.request.model}' does not exist or is not served by any channel`,
      { param: 'model', code: 'model_not_found' },
    );
    return reportFailure({ deps, input, reply, error });
  }
  // The handler's departure watch already aborts when the response closes before its end: use it as is.
  if (input.clientGone) return tryCandidates(deps, input, reply, candidates, input.clientGone);
  const abort = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableEnded) abort.abort();
  };
  reply.raw.on('close', onClose);
  try {
    return await tryCandidates(deps, input, reply, candidates, abort.signal);
  } finally {
    reply.raw.off('close', onClose);
  }
}

/**
 * The failover loop: channels at their limit are skipped (channel-admission.ts), at most
 * `maxAttempts` channels are tried, and a short upstream Retry-After is waited for before the
 * next attempt (routing/failover-policy.ts).
 */
async function tryCandidates(
  deps: ExchangeDeps,
  input: ExchangeInput,
  reply: FastifyReply,
  candidates: ReadonlyArray<Channel>,
  signal: ClientGoneSignal,
): Promise<ExchangeOutcome> {
  const gates = new ChannelAdmission(deps, input);
  const maxAttempts = attemptCap(deps.maxAttempts);
  const failovers: FailoverRecord[] = [];
  const first = await gates.next(candidates, 0);
  if (!first.admitted) return reportFailure({ deps, input, reply, error: allChannelsLimitedError(first.retryAfterMs) });
  let current = first.admitted;
  for (let attempts = 1; ; attempts++) {
    const channel = current.channel;
    // The client left while the channel was being admitted: nothing is sent upstream.
    if (signal.aborted) {
      gates.settle(current, undefined);
      return reportFailure({
        deps,
        input,
        reply,
        error: clientLeftError(),
        failovers,
        attempts: attempts - 1,
        cancelled: true,
      });
    }
    const attemptStartedAt = Date.now();
    const passThrough = passesThrough(input, channel);
    const result = await attemptChannel(deps, input, channel, passThrough, reply, signal).catch(
      (error: unknown): AttemptResult => ({ kind: 'failed', error: toGatewayError(error) }),
    );
    if (result.kind === 'refused') {
      // Nothing was sent: the next channel (maybe one that can pass the body through) gets its turn.
      gates.settle(current, undefined);
      const next = (await gates.next(candidates, current.index + 1)).admitted;
      if (!next) return reportFailure({ deps, input, reply, error: result.error, failovers, attempts: attempts - 1 });
      current = next;
      attempts--;
      continue;
    }
    reportChannelAttempt(deps, channel, result.error);
    gates.settle(current, result);
    if (result.kind === 'served') return reportServed(deps, input, channel, passThrough, result, attempts, failovers);
    /** Reports the request as ended on this channel: failed, or cancelled when the client left. */
    const endOnThisChannel = (cancelled: boolean): ExchangeOutcome =>
      reportFailure({
        deps,
        input,
        reply,
        error: result.error,
        failovers,
        attempts,
        last: { channel, upstreamRequestId: result.upstreamRequestId },
        cancelled,
      });
    // The client went away: not the channel's failure, and nothing more to try.
    if (signal.aborted) return endOnThisChannel(true);
    const step = await moveToNextChannel(
      deps,
      gates,
      candidates,
      { requestId: input.requestId, current, error: result.error, attempts, attemptStartedAt },
      { maxAttempts, failovers, signal },
    );
    if ('end' in step) return endOnThisChannel(step.end === 'client-left');
    current = step.next;
  }
}

/** Tries one channel, the client's body unchanged when `passThrough` (passesThrough); `failed` means nothing was sent to the client. */
async function attemptChannel(
  deps: ExchangeDeps,
  input: ExchangeInput,
  channel: Channel,
  passThrough: boolean,
  reply: FastifyReply,
  signal: ClientGoneSignal,
): Promise<AttemptResult> {
  // One channel attempt, rotating through its key pool on 429/401/403 (credential-rotation.ts).
  return attemptWithCredentials(
    deps,
    input,
    channel,
    (withCredential) => attemptCredential(deps, input, withCredential, passThrough, reply, signal),
    signal,
  );
}

/** attemptChannel with the one credential `channel.apiKey` holds. */
async function attemptCredential(
  deps: ExchangeDeps,
  input: ExchangeInput,
  channel: Channel,
  passThrough: boolean,
  reply: FastifyReply,
  signal: ClientGoneSignal,
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
    const decodeContext = { provider: channel.provider, upstreamModel, request: input.request };
    const encodeContext: EncodeContext = {
      requestId: input.requestId,
      model: input.request.model,
      request: input.request,
      rawRequest: input.rawBody,
      createdAt: Math.floor(input.startedAt / 1000),
    };
    const decoding = passThrough ? adapter : withReasoningStamps(adapter, channel.provider.id);
    const relay = { input, answer, adapter: decoding, decodeContext, encodeContext, passThrough, reply, deadline };
    if (!input.request.stream) return await relayJson(relay);
    return await relayStream({ ...relay, deps, signal });
  } finally {
    deadline.dispose();
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

function reportServed(
  deps: ExchangeDeps,
  input: ExchangeInput,
  channel: Channel,
  passThrough: boolean,
  result: Extract<AttemptResult, { kind: 'served' }>,
  attempts: number,
  failovers: FailoverRecord[],
): ExchangeOutcome {
  return emitOutcome(deps, input, {
    status: result.status,
    httpStatus: result.httpStatus,
    channelId: channel.id,
    provider: channel.provider.id,
    upstreamModel: upstreamModelFor(channel, input.request.model),
    passThrough,
    attempts,
    failovers,
    usage: result.usage,
    ttfbMs: result.ttfbMs,
    upstreamRequestId: result.upstreamRequestId,
    ...(result.error ? { errorKind: result.error.kind, errorMessage: result.error.message } : {}),
  });
}

/** The channel tried last and the upstream's id of that call, when it answered with one. */
interface LastAttempt {
  readonly channel: Channel;
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
}

/** Answers `error` (unless the client left or an answer was sent) and emits the request's failed or cancelled outcome. */
function reportFailure(report: FailureReport): ExchangeOutcome {
  const { deps, input, reply, error, failovers = [], attempts = 0, last, cancelled = false } = report;
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
          upstreamModel: upstreamModelFor(last.channel, input.request.model),
          upstreamRequestId: last.upstreamRequestId,
        }
      : {}),
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

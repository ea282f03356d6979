/**
 * One embedding request end to end, after admission: the channels serving the model whose
 * provider serves embeddings (ProviderQuirks.embeddings, embedding-adapter.ts), in the router's
 * failover order; channels at their limits skipped (channel-admission.ts); on each channel the
 * batch split into calls within the provider's per-call limits (plan-embedding-calls.ts), sent one
 * after another, their vectors concatenated in order and their input tokens summed; a retryable
 * failure of any call moves the whole request to the next channel (nothing has reached the client
 * yet); the answer encoded in the client's format; one ExchangeOutcome (operation `embedding`) to
 * the sink however it ends.
 *
 * Input tokens: the sum of the upstream's reports, or — when a call reports none (Gemini
 * batchEmbedContents) — the gateway's count of the request's inputs (usage source `estimated`).
 *
 * Calls served before a later call of the same attempt failed were consumed — and charged — by
 * their provider although the attempt failed. Their input tokens (the upstream's report, else the
 * gateway's count of their inputs) are carried to the outcome, summed with the final attempt's,
 * whether the request then fails over and is served, fails, or is cancelled; so the one outcome of
 * the request (consumption_log, billing_lines) holds every input token an upstream served for it.
 * The client's answer reports only the usage of the vectors it gets. The outcome names one channel
 * and upstream model, so those tokens are priced at the price of the model that served the answer
 * (or of the last channel tried, when none did).
 */
import type { FastifyReply } from 'fastify';
import type { EmbeddingRequest } from '../canonical/embedding.ts';
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import { makeUsage, type Usage } from '../canonical/usage.ts';
import { DEFAULT_REQUEST_DEADLINE_MS } from '../config/config-schema.ts';
import type { EmbeddingCodec } from '../inbound/embedding-codec.ts';
import type { InboundCodec } from '../inbound/inbound-codec.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import { NO_ATTRIBUTION, type RequestAttribution } from '../policy/request-attribution.ts';
import { upstreamModelFor, type Channel } from '../routing/channel.ts';
import { attemptCap } from '../routing/failover-policy.ts';
import { embeddingStyleFor, type EmbeddingAdapter, type EmbeddingAdapters } from '../upstream/embedding-adapter.ts';
import { upstreamRequestIdOf } from '../upstream/upstream-request-id.ts';
import { classifyTransportError, sendUpstream } from '../upstream/upstream-transport.ts';
import type { BudgetCounter } from '../../schemas/state-store/budget-ledger.ts';
import { AttemptDeadline, attemptLimitsFor } from './attempt-deadline.ts';
import { clientLeftError, deliverOutcome, moveToNextChannel, reportChannelAttempt } from './attempt-records.ts';
import { allChannelsLimitedError, ChannelAdmission, type AdmittedChannel } from './channel-admission.ts';
import { finishUpstreamCall, upstreamTargetOf } from './channel-upstream-call.ts';
import { sendErrorReply, sendJsonReply } from './client-response.ts';
import type { ExchangeOutcome, FailoverRecord } from './exchange-outcome.ts';
import type { ExchangeDeps } from './exchange-types.ts';
import { planEmbeddingCalls } from './plan-embedding-calls.ts';

/** The exchange's collaborators plus the embedding adapters by style. */
export interface EmbeddingExchangeDeps extends ExchangeDeps {
  readonly embeddingAdapters: EmbeddingAdapters;
}

/** One admitted embedding request. */
export interface EmbeddingExchangeInput {
  readonly requestId: string;
  /** Renders errors in the client's format (the format's generation codec). */
  readonly errorCodec: InboundCodec;
  /** Encodes the answer in the client's embedding API. */
  readonly codec: EmbeddingCodec;
  readonly request: EmbeddingRequest;
  /** Tokens of each input (countEmbeddingInputTokens), in order. */
  readonly inputTokenCounts: ReadonlyArray<number>;
  /** Arrival time, ms since epoch. */
  readonly startedAt: number;
  readonly identity: { readonly keyId: string; readonly userId: string | null };
  readonly attribution?: RequestAttribution;
  readonly budgetCounters?: ReadonlyArray<BudgetCounter>;
  /** Aborts when the client leaves (watched from the start of the handler). */
  readonly clientGone: ClientGoneSignal;
}

/** What an outcome of an embedding request says beyond its own fields. */
type EmbeddingOutcomeDetails = Omit<
  ExchangeOutcome,
  'requestId' | 'keyId' | 'userId' | 'clientFormat' | 'operation' | 'model' | 'stream' | 'startedAt' | 'latencyMs'
>;

/** The outcome of `input` with `details` (operation `embedding`, never streamed), latency measured to now. */
export function embeddingOutcomeOf(input: EmbeddingExchangeInput, details: EmbeddingOutcomeDetails): ExchangeOutcome {
  return {
    requestId: input.requestId,
    keyId: input.identity.keyId,
    userId: input.identity.userId,
    clientFormat: input.request.clientFormat,
    operation: 'embedding',
    model: input.request.model,
    stream: false,
    startedAt: input.startedAt,
    latencyMs: Date.now() - input.startedAt,
    attribution: input.attribution ?? NO_ATTRIBUTION,
    budgetCounters: input.budgetCounters ?? [],
    ...details,
  };
}

/** Input tokens of upstream calls that were served although their attempt failed (tokens), and whether any count is the gateway's own. */
interface ConsumedTokens {
  readonly tokens: number;
  readonly estimated: boolean;
}

/**
 * A channel attempt's result: served (answer sent), failed (nothing sent to the client; `consumed`:
 * the calls of the split batch the upstream served before one failed), or refused (nothing sent
 * upstream either).
 */
type EmbeddingAttempt =
  | { readonly kind: 'served'; readonly usage: Usage; readonly ttfbMs: number; readonly upstreamRequestId?: string }
  | {
      readonly kind: 'failed';
      readonly error: GatewayError;
      readonly upstreamRequestId?: string;
      readonly consumed?: ConsumedTokens;
    }
  | { readonly kind: 'refused'; readonly error: GatewayError };

/** `usage` plus the tokens `consumed` by failed attempts (source `estimated` when either part is). */
function withConsumed(usage: Usage, consumed: ConsumedTokens): Usage {
  return makeUsage({
    inputTotal: usage.input.total + consumed.tokens,
    cacheRead: usage.input.cacheRead,
    cacheWrite: usage.input.cacheWrite,
    outputTotal: usage.output.total,
    reasoning: usage.output.reasoning,
    source: consumed.estimated && usage.source === 'reported' ? 'estimated' : usage.source,
  });
}

/** The usage of tokens consumed by failed attempts only, for an outcome without an answer; none when nothing was consumed. */
function consumedUsage(consumed: ConsumedTokens): { usage?: Usage } {
  if (consumed.tokens === 0) return {};
  return { usage: makeUsage({ inputTotal: consumed.tokens, source: consumed.estimated ? 'estimated' : 'reported' }) };
}

/** The channels of `model` that serve embeddings with an adapter this node has, in failover order. */
function embeddingCandidates(deps: EmbeddingExchangeDeps, model: string): Channel[] {
  return deps.router.candidatesFor(model).filter((channel) => {
    const style = embeddingStyleFor(channel.provider, channel.protocol);
    return style !== undefined && deps.embeddingAdapters[style] !== undefined;
  });
}

/**
 * Serves `input` on `reply` and resolves with its outcome (also given to `deps.onOutcome`).
 * Never throws for a failure of the request: every failure is answered in the client's format.
 */
export async function runEmbeddingExchange(
  deps: EmbeddingExchangeDeps,
  input: EmbeddingExchangeInput,
  reply: FastifyReply,
): Promise<ExchangeOutcome> {
  const report = (details: EmbeddingOutcomeDetails): ExchangeOutcome => emit(deps, input, details);
  const fail = (error: GatewayError, rest: Partial<EmbeddingOutcomeDetails> = {}, cancelled = false) => {
    const httpStatus = cancelled || reply.sent ? 499 : sendErrorReply(reply, input.errorCodec, error, input.requestId);
    return report({
      status: cancelled ? 'cancelled' : 'failed',
      httpStatus,
      errorKind: error.kind,
      errorMessage: error.message,
      passThrough: false,
      attempts: 0,
      failovers: [],
      ...rest,
    });
  };
  const signal = input.clientGone;
  if (signal.aborted) return fail(clientLeftError(), {}, true);
  const candidates = embeddingCandidates(deps, input.request.model);
  if (candidates.length === 0) {
    const served = deps.router.candidatesFor(input.request.model).length > 0;
    const message = served
      ? `The model '${input.request.model}' is not served by any channel whose provider serves embeddings`
      : `The model '${input.request.model}' does not exist or is not served by any channel`;
    return fail(new GatewayError('not-found', message, { param: 'model', code: 'model_not_found' }));
  }
  const inputTokens = input.inputTokenCounts.reduce((sum, n) => sum + n, 0);
  const gates = new ChannelAdmission(deps, { requestId: input.requestId, admissionTokens: () => inputTokens });
  const maxAttempts = attemptCap(deps.maxAttempts);
  const failovers: FailoverRecord[] = [];
  let consumed: ConsumedTokens = { tokens: 0, estimated: false };
  /** The channel of the last failed attempt whose upstream served calls, for an outcome that must carry their usage. */
  let consumedAt: Partial<EmbeddingOutcomeDetails> = {};
  const first = await gates.next(candidates, 0);
  if (!first.admitted) return fail(allChannelsLimitedError(first.retryAfterMs));
  let current: AdmittedChannel = first.admitted;
  for (let attempts = 1; ; attempts++) {
    const channel = current.channel;
    if (signal.aborted) {
      gates.settle(current, undefined);
      return fail(
        clientLeftError(),
        { ...consumedAt, failovers, attempts: attempts - 1, ...consumedUsage(consumed) },
        true,
      );
    }
    const attemptStartedAt = Date.now();
    const result = await attemptChannel(deps, input, channel, inputTokens, reply).catch(
      (error: unknown): EmbeddingAttempt => ({ kind: 'failed', error: toGatewayError(error) }),
    );
    if (result.kind === 'refused') {
      gates.settle(current, undefined);
      const next = (await gates.next(candidates, current.index + 1)).admitted;
      if (!next)
        return fail(result.error, { ...consumedAt, failovers, attempts: attempts - 1, ...consumedUsage(consumed) });
      current = next;
      attempts--;
      continue;
    }
    reportChannelAttempt(deps, channel, result.kind === 'failed' ? result.error : undefined);
    gates.settle(
      current,
      result.kind === 'served'
        ? { kind: 'served', status: 'completed', httpStatus: 200, usage: result.usage, ttfbMs: result.ttfbMs }
        : undefined,
    );
    const servedBy = {
      channelId: channel.id,
      provider: channel.provider.id,
      upstreamModel: upstreamModelFor(channel, input.request.model),
      upstreamRequestId: result.upstreamRequestId,
    };
    if (result.kind === 'served')
      return report({
        status: signal.aborted ? 'cancelled' : 'completed',
        httpStatus: signal.aborted ? 499 : 200,
        ...servedBy,
        passThrough: false,
        attempts,
        failovers,
        usage: consumed.tokens === 0 ? result.usage : withConsumed(result.usage, consumed),
        ttfbMs: result.ttfbMs,
      });
    if (result.consumed && result.consumed.tokens > 0) {
      consumed = {
        tokens: consumed.tokens + result.consumed.tokens,
        estimated: consumed.estimated || result.consumed.estimated,
      };
      consumedAt = servedBy;
    }
    const spent = consumedUsage(consumed);
    if (signal.aborted) return fail(result.error, { ...servedBy, failovers, attempts, ...spent }, true);
    const step = await moveToNextChannel(
      deps,
      gates,
      candidates,
      { requestId: input.requestId, current, error: result.error, attempts, attemptStartedAt },
      { maxAttempts, failovers, signal },
    );
    if ('end' in step)
      return fail(result.error, { ...servedBy, failovers, attempts, ...spent }, step.end === 'client-left');
    current = step.next;
  }
}

/** Hands the outcome to the sink (a throwing sink is logged, never the request's failure) and returns it. */
function emit(deps: ExchangeDeps, input: EmbeddingExchangeInput, details: EmbeddingOutcomeDetails): ExchangeOutcome {
  return deliverOutcome(deps, embeddingOutcomeOf(input, details));
}

/**
 * The 400 for token-id inputs to a provider whose embedding endpoint takes only text (param
 * `input`, code `unsupported_parameter`); undefined when the request has none or the provider takes them.
 */
function uncarriedTokenIds(request: EmbeddingRequest, channel: Channel): GatewayError | undefined {
  if (channel.provider.quirks.embeddings?.acceptsTokenIds === true) return undefined;
  if (!request.inputs.some((input) => input.kind === 'tokens')) return undefined;
  return new GatewayError(
    'invalid-request',
    `input: token-id inputs cannot be carried to the ${channel.provider.displayName} embedding API that serves this model, so the request was not sent; send the text instead`,
    { param: 'input', code: 'unsupported_parameter' },
  );
}

/**
 * Tries one channel: every call of the split batch in turn; `failed` means nothing was sent to the
 * client (with the input tokens of the calls served before the failing one as `consumed`),
 * `refused` that nothing was sent upstream either (token ids the provider cannot take).
 */
async function attemptChannel(
  deps: EmbeddingExchangeDeps,
  input: EmbeddingExchangeInput,
  channel: Channel,
  inputTokens: number,
  reply: FastifyReply,
): Promise<EmbeddingAttempt> {
  const style = embeddingStyleFor(channel.provider, channel.protocol);
  const adapter: EmbeddingAdapter | undefined = style === undefined ? undefined : deps.embeddingAdapters[style];
  if (!adapter)
    return { kind: 'refused', error: new GatewayError('not-found', 'No embedding adapter for this channel') };
  const refusal = uncarriedTokenIds(input.request, channel);
  if (refusal) return { kind: 'refused', error: refusal };
  const limits = attemptLimitsFor(channel, input.startedAt + (deps.requestDeadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS));
  if (limits.totalMs <= 0)
    return {
      kind: 'failed',
      error: new GatewayError('upstream-timeout', 'Request deadline of the gateway reached before this attempt', {
        allowFailover: false,
      }),
    };
  const target = upstreamTargetOf(channel, input.request.model);
  const slices = planEmbeddingCalls(input.inputTokenCounts, channel.provider.quirks.embeddings, target.upstreamModel);
  const deadline = new AttemptDeadline(input.clientGone, limits, deps.drainDeadline);
  const vectors: Array<ReadonlyArray<number>> = [];
  let reported = 0;
  let allReported = true;
  let upstreamRequestId: string | undefined;
  /** The served calls' input tokens, each the upstream's report or else the gateway's count of its inputs. */
  let servedTokens = 0;
  let servedEstimated = false;
  const failed = (error: GatewayError): EmbeddingAttempt => ({
    kind: 'failed',
    error,
    ...(upstreamRequestId === undefined ? {} : { upstreamRequestId }),
    ...(servedTokens > 0 ? { consumed: { tokens: servedTokens, estimated: servedEstimated } } : {}),
  });
  try {
    for (const slice of slices) {
      const inputs = input.request.inputs.slice(slice.start, slice.end);
      const built = adapter.buildCall(
        {
          inputs,
          ...(input.request.dimensions === undefined ? {} : { dimensions: input.request.dimensions }),
          ...(input.request.user === undefined ? {} : { user: input.request.user }),
        },
        target,
      );
      if (built.dropped.length > 0 && slice.start === 0)
        deps.log.warn(
          { requestId: input.requestId, channel: channel.id, warnings: built.dropped },
          'dropped request parts that are safe to lose',
        );
      const call = await finishUpstreamCall(channel, built.request, deps.upstreamAuth, deadline.signal);
      const answer = await sendUpstream(deps.dispatcher, call, {
        timeoutMs: channel.timeoutMs,
        signal: deadline.signal,
      });
      upstreamRequestId = upstreamRequestIdOf(answer.headers) ?? upstreamRequestId;
      let text: string;
      try {
        text = await answer.body.text();
      } catch (error) {
        return failed(deadline.expired ?? classifyTransportError(error));
      }
      if (answer.status < 200 || answer.status >= 300)
        return failed(adapter.classifyError(answer.status, text, answer.headers));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.trim());
      } catch {
        return failed(new GatewayError('upstream-malformed', 'Upstream answered with a body that is not JSON'));
      }
      const decoded = adapter.decodeAnswer(parsed, inputs.length, answer.headers);
      vectors.push(...decoded.vectors);
      if (decoded.inputTokens === undefined) allReported = false;
      else reported += decoded.inputTokens;
      const counted = input.inputTokenCounts.slice(slice.start, slice.end).reduce((sum, n) => sum + n, 0);
      servedTokens += decoded.inputTokens ?? counted;
      servedEstimated ||= decoded.inputTokens === undefined;
    }
  } catch (error) {
    return failed(deadline.expired ?? toGatewayError(error));
  } finally {
    deadline.dispose();
  }
  const usage = makeUsage({
    inputTotal: allReported ? reported : inputTokens,
    source: allReported ? 'reported' : 'estimated',
  });
  const body = input.codec.encodeAnswer(
    { vectors, inputTokens: usage.input.total, usageSource: allReported ? 'reported' : 'estimated' },
    { model: input.request.model, request: input.request },
  );
  sendJsonReply(reply, body, input.requestId);
  return {
    kind: 'served',
    usage,
    ttfbMs: Date.now() - input.startedAt,
    ...(upstreamRequestId === undefined ? {} : { upstreamRequestId }),
  };
}

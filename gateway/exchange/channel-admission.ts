/**
 * Channel limits inside the exchange (gateway/policy/channel-limits.ts): finding the next
 * candidate whose limits admit the request (channels at their limit are skipped, not failed),
 * and settling a channel's token reservation after the attempt.
 *
 * Fail-open: when the limiter is unreachable the channel is used unreserved (logged as a warning)
 * — the upstream enforces its own quota, and a state-store outage must not stop all traffic.
 */
import { MAX_LIMIT_UNITS } from '../../schemas/state-store/gcra-rate-limit.ts';
import type { LimitScope } from '../../schemas/state-store/rate-limiter.ts';
import { isStateStoreUnavailable } from '../../schemas/state-store/state-store-unavailable.ts';
import { GatewayError } from '../canonical/gateway-error.ts';
import { actualTokensOf } from '../policy/admit-request.ts';
import type { Channel } from '../routing/channel.ts';
import type { AttemptResult } from './attempt-result.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { ExchangeDeps } from './exchange-types.ts';

/** A channel cleared for an attempt, with what its limits reserved (`scope` absent: nothing reserved). */
export interface AdmittedChannel {
  readonly channel: Channel;
  /** Position in the candidate list. */
  readonly index: number;
  readonly scope?: LimitScope;
  readonly reservedTokens: number;
}

/** The next admitted channel, or — when every remaining candidate was at its limit — the shortest wait among them (ms). */
export type ChannelPick =
  { readonly admitted: AdmittedChannel } | { readonly admitted?: undefined; readonly retryAfterMs: number | undefined };

/**
 * The request a ChannelAdmission admits: a generation (its tokens estimated by the channel limits'
 * `estimatedTokens`), or any other operation with its own reservation (`admissionTokens`, tokens:
 * an embedding's input tokens).
 */
export type ChannelAdmissionInput = { readonly requestId: string } & (
  { readonly request: CanonicalRequest } | { readonly admissionTokens: () => number }
);

/** Per-request channel admission: the token estimate is computed once, on first need. */
export class ChannelAdmission {
  private tokens: number | undefined;

  constructor(
    private readonly deps: Pick<ExchangeDeps, 'channelLimits' | 'log'>,
    private readonly input: ChannelAdmissionInput,
  ) {}

  /** The first candidate from `from` on whose limits admit the request (skipped ones are logged at debug). */
  async next(candidates: ReadonlyArray<Channel>, from: number): Promise<ChannelPick> {
    let retryAfterMs: number | undefined;
    for (let index = from; index < candidates.length; index++) {
      const channel = candidates[index] as Channel;
      const scope = this.deps.channelLimits?.scopeFor(channel.id);
      if (!scope) return { admitted: { channel, index, reservedTokens: 0 } };
      const wait = await this.admit(channel, index, scope);
      if ('admitted' in wait) return wait;
      retryAfterMs = Math.min(retryAfterMs ?? Infinity, wait.retryAfterMs);
    }
    return { retryAfterMs };
  }

  private async admit(
    channel: Channel,
    index: number,
    scope: LimitScope,
  ): Promise<{ admitted: AdmittedChannel } | { retryAfterMs: number }> {
    const limits = this.deps.channelLimits;
    if (!limits) return { admitted: { channel, index, reservedTokens: 0 } };
    // Only a TPM limit needs the (tokenizer) estimate; it is computed once per request.
    const admission = await admitLimitScope(
      this.deps,
      scope,
      () => (this.tokens ??= cappedTokens(this.estimate(limits))),
      {
        requestId: this.input.requestId,
        channelId: channel.id,
        limited: 'channel',
      },
    );
    if ('retryAfterMs' in admission) return admission;
    return admission.reserved
      ? { admitted: { channel, index, scope, reservedTokens: admission.tokens } }
      : { admitted: { channel, index, reservedTokens: 0 } };
  }

  /** The request's token reservation before capping (tokens). */
  private estimate(limits: NonNullable<ExchangeDeps['channelLimits']>): number {
    return 'request' in this.input ? limits.estimatedTokens(this.input.request) : this.input.admissionTokens();
  }

  /** Settles `admitted`'s token reservation to the attempt's actual tokens (0 unless served with usage). Never throws; does not wait. */
  settle(admitted: AdmittedChannel, result: AttemptResult | undefined): void {
    if (!admitted.scope) return;
    settleLimitScope(this.deps, admitted.scope, admitted.reservedTokens, result, {
      requestId: this.input.requestId,
      channelId: admitted.channel.id,
      limited: 'channel',
    });
  }
}

/** Which limit a scope belongs to, for the log lines of admitLimitScope and settleLimitScope. */
export interface LimitScopeContext {
  readonly requestId: string;
  readonly channelId: string;
  /** `channel` (`channel:<id>`) or `credential` (a key-pool credential's `channel:<id>/credential:<cid>`). */
  readonly limited: 'channel' | 'credential';
}

/** A token estimate as a reservation: a whole number of tokens in [0, MAX_LIMIT_UNITS]. */
export function cappedTokens(estimate: number): number {
  return Math.min(MAX_LIMIT_UNITS, Math.max(0, Math.floor(estimate) || 0));
}

/**
 * Admits one attempt against `scope` (a channel's or a pool credential's RPM/TPM): `reserved`
 * with the tokens held (`tokens()` is read only when the scope has a TPM limit), or the wait when
 * it is at its limit (logged at debug, the request skips it). Fail-open: when the limiter cannot
 * answer, the attempt goes on unreserved (`reserved: false`, logged). Never throws.
 */
export async function admitLimitScope(
  deps: Pick<ExchangeDeps, 'channelLimits' | 'log'>,
  scope: LimitScope,
  tokens: () => number,
  context: LimitScopeContext,
): Promise<{ reserved: boolean; tokens: number } | { retryAfterMs: number }> {
  const limits = deps.channelLimits;
  if (!limits) return { reserved: false, tokens: 0 };
  try {
    const reservation = scope.tpm === null ? 0 : tokens();
    const admission = await limits.limiter.admit([scope], reservation);
    if (admission.allowed) return { reserved: true, tokens: reservation };
    deps.log.debug(
      {
        requestId: context.requestId,
        channel: context.channelId,
        scope: scope.scope,
        refusedBy: admission.refusedBy,
        retryAfterMs: admission.retryAfterMs,
      },
      `${context.limited} at its limit: skipped`,
    );
    return { retryAfterMs: admission.retryAfterMs };
  } catch (error) {
    // A store outage is logged once by the store itself (per transition), not per request.
    deps.log[isStateStoreUnavailable(error) ? 'debug' : 'warn'](
      { requestId: context.requestId, channel: context.channelId, scope: scope.scope, err: error },
      `${context.limited} limiter unavailable: ${context.limited} used without reservation`,
    );
    return { reserved: false, tokens: 0 };
  }
}

/**
 * Settles a reservation of `reserved` tokens on `scope` to the attempt's actual tokens (0 unless
 * served with usage). Nothing to do without a TPM limit or when they match. Never throws; does not wait.
 */
export function settleLimitScope(
  deps: Pick<ExchangeDeps, 'channelLimits' | 'log'>,
  scope: LimitScope,
  reserved: number,
  result: AttemptResult | undefined,
  context: LimitScopeContext,
): void {
  const limiter = deps.channelLimits?.limiter;
  if (!limiter || scope.tpm === null) return;
  const actual = result?.kind === 'served' ? actualTokensOf({ usage: result.usage, status: result.status }) : 0;
  if (actual === reserved) return;
  limiter.settle([scope], reserved, actual).catch((error: unknown) => {
    deps.log[isStateStoreUnavailable(error) ? 'debug' : 'warn'](
      { requestId: context.requestId, channel: context.channelId, scope: scope.scope, err: error },
      `${context.limited} limit settlement failed`,
    );
  });
}

/** The answer when every channel serving the model is at its limit (429, retry after the shortest wait). */
export function allChannelsLimitedError(retryAfterMs: number | undefined): GatewayError {
  return new GatewayError(
    'rate-limited',
    'every channel serving this model is at its limit',
    retryAfterMs === undefined ? {} : { retryAfterMs },
  );
}

/**
 * Key pools inside one channel attempt (README "Key pools"): the attempt is sent with a usable
 * credential of the channel (routing/credential-pool.ts: not cooling down, preferred one first,
 * round robin), admitted by that credential's own RPM/TPM (scope
 * `channel:<id>/credential:<credentialId>`, reserved before and settled after like the channel's
 * own in channel-admission.ts). When the upstream answers 429, 401 or 403 before anything reached
 * the client, that credential is put in a cooldown (the upstream's Retry-After, else the pool's
 * defaults) and the same channel is tried again at once with the next usable credential: a
 * rotation, which is neither a failover nor a failure of the channel (nothing is recorded against
 * its health). Only when every credential is cooling down, at its limit, or refused does the
 * attempt fail, with the last refusal, and the caller fails over as for any channel. A channel
 * with a lone `apiKey` (no `credentials`) is tried once, as any channel: its one attempt's
 * result, no cooldown.
 *
 * The credential of the last attempt and the number of rotations of a request are kept per
 * request and read into its outcome by credentialOutcomeOf.
 */
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import type { CredentialCooldownReason } from '../../schemas/state-store/credential-cooldowns.ts';
import { credentialLimitScope } from '../policy/channel-limits.ts';
import type { Channel } from '../routing/channel.ts';
import { cooldownMsFor, CredentialPool, DEFAULT_CREDENTIAL_ID } from '../routing/credential-pool.ts';
import type { AttemptResult } from './attempt-result.ts';
import { admitLimitScope, cappedTokens, settleLimitScope } from './channel-admission.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import type { ExchangeOutcome } from './exchange-outcome.ts';
import type { ExchangeDeps, ExchangeInput } from './exchange-types.ts';

/** What the rotation reads from the exchange's deps. */
export type RotationDeps = Pick<ExchangeDeps, 'credentialPool' | 'channelLimits' | 'log'>;

/** The request as the rotation reads it: its id, body (for the token estimate) and preferred credential. */
export type RotationInput = Pick<ExchangeInput, 'requestId' | 'request' | 'preferredCredentialId'>;

/** Per request: the credential of the last attempt sent and the rotations so far. */
interface CredentialUse {
  credentialId: string | undefined;
  rotations: number;
  /** The request's token estimate for credential TPM limits (tokens), once computed. */
  tokens?: number;
}

const USES = new WeakMap<object, CredentialUse>();

/**
 * Tries `channel` with its credentials in the pool's order: `send` is called with the channel
 * carrying one credential's key (`apiKey`, and `credentialId`) until an attempt is served, fails
 * for another reason than a refused credential, or none is left. Never throws: a throwing `send`
 * counts as a `failed` attempt with its error (toGatewayError). Nothing is rotated once `signal`
 * (the client's departure) has aborted. The credential used and the rotations are kept under
 * `requestKey` (default `input`: the object credentialOutcomeOf is later given for the request).
 * @returns the result of the last attempt; `failed` with `upstream-rate-limited` (failover
 *   allowed, retry after the shortest wait) when no credential could be used at all
 */
export function attemptWithCredentials(
  deps: RotationDeps,
  input: RotationInput,
  channel: Channel,
  send: (withCredential: Channel) => Promise<AttemptResult>,
  signal?: ClientGoneSignal,
  requestKey: object = input,
): Promise<AttemptResult> {
  // Without the node's pool the rotation still happens within this attempt; nothing is kept after it.
  const pool = deps.credentialPool ?? new CredentialPool();
  const use = useOf(requestKey);
  if ((channel.credentials?.length ?? 0) > 0) return attemptPooled(deps, input, channel, send, signal, pool, use);
  // A lone apiKey is the channel itself: no pool order, no per-credential limits, no cooldown. Not
  // an async function: a live stream waits in this attempt, and a suspended async call costs a
  // generator and its registers for as long as it waits.
  pool.noteRequest(channel.id, DEFAULT_CREDENTIAL_ID);
  use.credentialId = DEFAULT_CREDENTIAL_ID;
  try {
    return send(loneKeyAttempt(channel)).catch(failedAttempt);
  } catch (error) {
    // A synchronous throw is handled as a rejection is, and as late.
    return Promise.resolve(error).then(failedAttempt);
  }
}

/** A `send` that threw, as a `failed` attempt with its error. */
function failedAttempt(error: unknown): AttemptResult {
  return { kind: 'failed', error: toGatewayError(error) };
}

/** attemptWithCredentials over a channel's pooled credentials, in the pool's order. */
async function attemptPooled(
  deps: RotationDeps,
  input: RotationInput,
  channel: Channel,
  send: (withCredential: Channel) => Promise<AttemptResult>,
  signal: ClientGoneSignal | undefined,
  pool: CredentialPool,
  use: CredentialUse,
): Promise<AttemptResult> {
  const usable = pool.order(channel, input.preferredCredentialId);
  let last: AttemptResult | undefined;
  let waitMs: number | undefined;
  for (const [index, credential] of usable.entries()) {
    const scope = credentialLimitScope(channel.id, credential.id, credential.rpm, credential.tpm);
    const context = { requestId: input.requestId, channelId: channel.id, limited: 'credential' } as const;
    // The token estimate (a tokenizer pass) is made once per request, whatever the credentials tried.
    const tokens = (): number => (use.tokens ??= cappedTokens(deps.channelLimits?.estimatedTokens(input.request) ?? 0));
    const admitted = scope ? await admitLimitScope(deps, scope, tokens, context) : { reserved: false, tokens: 0 };
    if ('retryAfterMs' in admitted) {
      waitMs = Math.min(waitMs ?? Infinity, admitted.retryAfterMs);
      continue;
    }
    pool.noteRequest(channel.id, credential.id);
    use.credentialId = credential.id;
    const result = await send({ ...channel, apiKey: credential.apiKey, credentialId: credential.id }).catch(
      failedAttempt,
    );
    if (scope && admitted.reserved) settleLimitScope(deps, scope, admitted.tokens, result, context);
    if (result.kind !== 'failed' || signal?.aborted) return result;
    const reason = refusalOf(result.error);
    if (!reason) return result;
    const error = result.error;
    pool.markCooling(channel.id, credential.id, reason, cooldownMsFor(reason, error.retryAfterMs));
    last = result;
    const next = usable[index + 1];
    if (next) use.rotations++;
    deps.log.info(
      {
        requestId: input.requestId,
        channel: channel.id,
        credential: credential.id,
        next: next?.id,
        upstreamStatus: error.upstreamStatus,
        retryAfterMs: error.retryAfterMs,
      },
      next ? 'credential rotated' : 'credential refused; no other credential of the channel left',
    );
  }
  return last ?? noCredentialLeft(channel, pool, waitMs);
}

/** The attempt's view of each routed channel with a lone apiKey (its `default` credential), made once per channel. */
const LONE_KEY_ATTEMPTS = new WeakMap<Channel, Channel>();

/** `channel` as one attempt sends it: its lone apiKey as the `default` credential. */
function loneKeyAttempt(channel: Channel): Channel {
  let attempt = LONE_KEY_ATTEMPTS.get(channel);
  if (!attempt) {
    attempt = { ...channel, credentialId: DEFAULT_CREDENTIAL_ID };
    LONE_KEY_ATTEMPTS.set(channel, attempt);
  }
  return attempt;
}

/** `credentialId` (the credential of the last attempt) and `credentialRotations` of `input`'s request; empty when no attempt was sent. */
export function credentialOutcomeOf(input: object): Pick<ExchangeOutcome, 'credentialId' | 'credentialRotations'> {
  const use = USES.get(input);
  if (!use || use.credentialId === undefined) return {};
  return { credentialId: use.credentialId, credentialRotations: use.rotations };
}

function useOf(input: object): CredentialUse {
  let use = USES.get(input);
  if (!use) USES.set(input, (use = { credentialId: undefined, rotations: 0 }));
  return use;
}

/** Why an upstream refusal puts the credential in a cooldown: 429, 401 or 403; undefined for any other error. */
function refusalOf(error: GatewayError): CredentialCooldownReason | undefined {
  switch (error.upstreamStatus) {
    case 429:
      return 'rate-limited';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    default:
      return undefined;
  }
}

/** The failure of a channel none of whose credentials could be used (all cooling down or at their limits). */
function noCredentialLeft(channel: Channel, pool: CredentialPool, limitWaitMs: number | undefined): AttemptResult {
  const now = Date.now();
  const coolingWaits = pool
    .stateOf(channel)
    .filter((state) => state.coolingUntil > now)
    .map((state) => state.coolingUntil - now);
  const retryAfterMs = Math.min(limitWaitMs ?? Infinity, ...coolingWaits);
  return {
    kind: 'failed',
    error: new GatewayError(
      'upstream-rate-limited',
      `every credential of channel ${channel.id} is cooling down or at its limit`,
      { allowFailover: true, retryable: true, ...(Number.isFinite(retryAfterMs) ? { retryAfterMs } : {}) },
    ),
  };
}

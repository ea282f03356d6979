/**
 * The rotation inside one channel attempt (exchange/credential-rotation.ts): a 429, 401 or 403
 * moves to the next credential of the same channel and cools the refused one; any other result
 * ends the attempt; with every credential refused the last refusal is returned (the caller fails
 * over); with none usable the attempt fails as rate-limited with failover allowed; a credential's
 * own RPM is admitted through the limiter; the outcome fields name the last credential and count
 * the rotations.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../gateway/canonical/gateway-error.ts';
import { makeUsage } from '../../../gateway/canonical/usage.ts';
import type { AttemptResult } from '../../../gateway/exchange/attempt-result.ts';
import { attemptWithCredentials, credentialOutcomeOf } from '../../../gateway/exchange/credential-rotation.ts';
import { createChannelLimits } from '../../../gateway/policy/channel-limits.ts';
import { resolveChannel, type Channel } from '../../../gateway/routing/channel.ts';
import { CredentialPool } from '../../../gateway/routing/credential-pool.ts';
import { parseConfigFile } from '../../../gateway/config/load-config.ts';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';

const log = pino({ level: 'silent' });

function pooledChannel(credentials: object[]): Channel {
  const config = parseConfigFile({
    channels: [{ id: 'ch', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['m'], credentials }],
  });
  return resolveChannel(config.channels[0]!);
}

const served: AttemptResult = {
  kind: 'served',
  status: 'completed',
  httpStatus: 200,
  usage: makeUsage({ inputTotal: 3, outputTotal: 4 }),
  ttfbMs: 1,
};
const upstreamFailure = (upstreamStatus: number, retryAfterMs?: number): AttemptResult => ({
  kind: 'failed',
  error: new GatewayError(
    upstreamStatus === 429 ? 'upstream-rate-limited' : 'upstream-rejected',
    `upstream ${upstreamStatus}`,
    {
      upstreamStatus,
      status: upstreamStatus,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    },
  ),
});

/** A request for the rotation (a fresh object: the outcome fields are kept per request). */
const input = (preferredCredentialId?: string) => ({
  requestId: 'req_1',
  request: { model: 'm', stream: false, messages: [] } as unknown as CanonicalRequest,
  ...(preferredCredentialId ? { preferredCredentialId } : {}),
});

/** `send` answering by the key it is given; records the keys. */
function sender(answers: Record<string, AttemptResult>) {
  const keys: string[] = [];
  const send = async (channel: Channel): Promise<AttemptResult> => {
    keys.push(`${channel.credentialId}:${channel.apiKey}`);
    return answers[channel.apiKey] ?? served;
  };
  return { keys, send };
}

const three = pooledChannel([
  { id: 'a', apiKey: 'sk-a' },
  { id: 'b', apiKey: 'sk-b' },
  { id: 'c', apiKey: 'sk-c' },
]);

describe('credential rotation', () => {
  it('rotates past 429, 401 and 403 within the channel and cools each refused credential', async () => {
    let now = 1_000_000;
    const pool = new CredentialPool({ clock: () => now });
    const { keys, send } = sender({ 'sk-a': upstreamFailure(429, 2_000), 'sk-b': upstreamFailure(401) });
    const request = input();
    expect(await attemptWithCredentials({ credentialPool: pool, log }, request, three, send)).toBe(served);
    expect(keys).toEqual(['a:sk-a', 'b:sk-b', 'c:sk-c']);
    expect(credentialOutcomeOf(request)).toEqual({ credentialId: 'c', credentialRotations: 2 });
    expect(pool.stateOf(three).map((s) => [s.id, s.coolingUntil, s.lastErrorKind, s.requests])).toEqual([
      ['a', 1_002_000, 'rate-limited', 1],
      ['b', 1_600_000, 'unauthorized', 1],
      ['c', 0, null, 1],
    ]);
    now += 2_000;
    expect(pool.order(three).map((c) => c.id)).toEqual(['c', 'a']);
  });

  it('ends the attempt on any other failure, without cooling the credential', async () => {
    const pool = new CredentialPool();
    const failure = upstreamFailure(500);
    const { keys, send } = sender({ 'sk-a': failure });
    const request = input();
    expect(await attemptWithCredentials({ credentialPool: pool, log }, request, three, send)).toBe(failure);
    expect(keys).toEqual(['a:sk-a']);
    expect(credentialOutcomeOf(request)).toEqual({ credentialId: 'a', credentialRotations: 0 });
    expect(pool.order(three).map((c) => c.id)).toEqual(['b', 'c', 'a']);
  });

  it('returns the last refusal when every credential is refused, then fails over at once while all cool', async () => {
    const pool = new CredentialPool();
    const last = upstreamFailure(429, 30_000);
    const { keys, send } = sender({ 'sk-a': upstreamFailure(429), 'sk-b': upstreamFailure(403), 'sk-c': last });
    expect(await attemptWithCredentials({ credentialPool: pool, log }, input(), three, send)).toBe(last);
    expect(keys).toHaveLength(3);
    const next = await attemptWithCredentials({ credentialPool: pool, log }, input(), three, send);
    expect(keys).toHaveLength(3);
    expect(next.kind).toBe('failed');
    const error = (next as Extract<AttemptResult, { kind: 'failed' }>).error;
    expect(error).toMatchObject({ kind: 'upstream-rate-limited', allowFailover: true });
    expect(error.retryAfterMs).toBeGreaterThan(25_000);
  });

  it('takes the preferred credential first when it is usable', async () => {
    const { keys, send } = sender({});
    await attemptWithCredentials({ credentialPool: new CredentialPool(), log }, input('b'), three, send);
    expect(keys).toEqual(['b:sk-b']);
  });

  it('does not rotate for a client that has left', async () => {
    const { keys, send } = sender({ 'sk-a': upstreamFailure(429) });
    const result = await attemptWithCredentials(
      { credentialPool: new CredentialPool(), log },
      input(),
      three,
      send,
      AbortSignal.abort(),
    );
    expect(result.kind).toBe('failed');
    expect(keys).toEqual(['a:sk-a']);
  });

  it('admits each credential against its own RPM (scope channel:<id>/credential:<id>)', async () => {
    const limited = pooledChannel([
      { id: 'a', apiKey: 'sk-a', rpm: 1 },
      { id: 'b', apiKey: 'sk-b', rpm: 1 },
    ]);
    const limiter = createMemoryRateLimiter();
    const channelLimits = createChannelLimits({ limiter, limitsOf: () => undefined });
    const deps = { credentialPool: new CredentialPool(), channelLimits, log };
    const { keys, send } = sender({});
    expect(await attemptWithCredentials(deps, input(), limited, send)).toBe(served);
    expect(await attemptWithCredentials(deps, input(), limited, send)).toBe(served);
    const third = await attemptWithCredentials(deps, input(), limited, send);
    expect(keys).toEqual(['a:sk-a', 'b:sk-b']);
    expect(third).toMatchObject({ kind: 'failed', error: { kind: 'upstream-rate-limited', allowFailover: true } });
    const state = await limiter.admit([{ scope: 'channel:ch/credential:a', rpm: 1, tpm: null }], 0);
    expect(state.allowed).toBe(false);
  });

  it("gives a channel with a lone apiKey no cooldown: a 429 is the channel's failover", async () => {
    const config = parseConfigFile({
      channels: [{ id: 'single', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['m'], apiKey: 'sk-1' }],
    });
    const single = resolveChannel(config.channels[0]!);
    const pool = new CredentialPool();
    const refused = upstreamFailure(429, 30_000);
    const { keys, send } = sender({ 'sk-1': refused });
    const request = input();
    expect(await attemptWithCredentials({ credentialPool: pool, log }, request, single, send)).toBe(refused);
    expect(await attemptWithCredentials({ credentialPool: pool, log }, input(), single, send)).toBe(refused);
    expect(keys).toEqual(['default:sk-1', 'default:sk-1']);
    expect(credentialOutcomeOf(request)).toEqual({ credentialId: 'default', credentialRotations: 0 });
  });

  it('counts a throwing send as a failed attempt', async () => {
    const result = await attemptWithCredentials({ log }, input(), three, async () => {
      throw new GatewayError('upstream-unavailable', 'connection refused');
    });
    expect(result).toMatchObject({ kind: 'failed', error: { kind: 'upstream-unavailable' } });
  });

  it('counts a send that throws before returning a promise, or rejects, as a failed attempt with a lone key too', async () => {
    const refused = (): Promise<AttemptResult> => {
      throw new GatewayError('upstream-unavailable', 'connection refused');
    };
    const config = parseConfigFile({
      channels: [{ id: 'single', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['m'], apiKey: 'sk-1' }],
    });
    const single = resolveChannel(config.channels[0]!);
    for (const send of [refused, () => Promise.reject(new GatewayError('upstream-timeout', 'slow'))]) {
      const result = attemptWithCredentials({ log }, input(), single, send);
      expect(result).toBeInstanceOf(Promise);
      expect(await result).toMatchObject({ kind: 'failed', error: { kind: expect.stringMatching(/^upstream-/) } });
    }
  });
});

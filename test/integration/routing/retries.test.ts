/**
 * Retries of a channel already tried (config `routing.retries`, README "Retries") through a real
 * gateway: transient failures retried after a back-off with full jitter, an upstream Retry-After
 * honoured up to `retryAfterCapMs` and a longer one not waited for, the attempts of a request
 * bounded (AppDeps.maxAttempts) and its deadline kept (TOLLGATE_REQUEST_DEADLINE_MS), every attempt
 * in the failovers table (FailoverOccurred as published, projected to `failovers` rows). Without
 * `routing.retries` each channel is tried once. The only times asserted are lower bounds of waits
 * the gateway must make.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectFailoverRow } from '../../../consumers/failovers/project-failover-row.ts';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import { captureTraffic, eventsOfType, type CapturedTraffic } from '../../support/captured-traffic.ts';
import {
  startScriptedUpstream,
  type ScriptedAnswer,
  type ScriptedCall,
  type ScriptedUpstream,
} from '../../support/scripted-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

const HELLO = 'Hello! How can I help you today?';
const OVERLOADED = JSON.stringify({
  error: { message: 'The server is overloaded or not ready yet.', type: 'server_error', param: null, code: null },
});
const unavailable = (headers: Record<string, string> = {}): ScriptedAnswer => ({
  kind: 'error',
  status: 503,
  body: OVERLOADED,
  headers,
});

/**
 * What the fake answers, by upstream model and the call's number among that model's calls:
 * `flaky` fails twice then serves (and again); `after-300ms` fails with a Retry-After of 300 ms
 * then serves; `after-30s` fails with a Retry-After of 30 s; `after-5s` with one of 5 s;
 * `down` always fails.
 */
function answerOf(call: ScriptedCall): ScriptedAnswer {
  const n = call.nthOfModel;
  switch (call.model) {
    case 'flaky':
      return n % 3 === 0 ? { kind: 'success' } : unavailable();
    case 'after-300ms':
      return n % 2 === 0 ? { kind: 'success' } : unavailable({ 'retry-after-ms': '300' });
    case 'after-30s':
      return unavailable({ 'retry-after': '30' });
    case 'after-5s':
      return unavailable({ 'retry-after': '5' });
    case 'down':
      return unavailable();
    default:
      return { kind: 'success' };
  }
}

const scriptedUpstream = (): Promise<ScriptedUpstream> => startScriptedUpstream('openai-chat', answerOf);

const channel = (id: string, upstream: ScriptedUpstream, models: string[]) => ({
  id,
  provider: 'openai',
  protocol: 'openai-chat',
  baseUrl: upstream.baseUrl,
  apiKey: `sk-upstream-${id}`,
  models,
});

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function started<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const value = await thing;
  closers.push(() => value.close());
  return value;
}

const openai = (gateway: TestGateway): OpenAI =>
  new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });

/** Sends one Chat request; resolves with the answer's text (or the SDK's error) and the outcome. */
async function send(
  gateway: TestGateway,
  model: string,
  stream = false,
): Promise<{ text?: string; error?: InstanceType<typeof OpenAI.APIError>; outcome: ExchangeOutcome }> {
  const before = gateway.outcomes.length;
  const messages = [{ role: 'user' as const, content: 'Say hello.' }];
  let text: string | undefined;
  let error: InstanceType<typeof OpenAI.APIError> | undefined;
  try {
    text = stream
      ? ((await openai(gateway).chat.completions.stream({ model, messages }).finalChatCompletion()).choices[0]?.message
          .content ?? undefined)
      : ((await openai(gateway).chat.completions.create({ model, messages })).choices[0]?.message.content ?? undefined);
  } catch (caught) {
    if (!(caught instanceof OpenAI.APIError)) throw caught;
    error = caught;
  }
  await waitFor(() => gateway.outcomes.length > before);
  const outcome = gateway.outcomes[before] as ExchangeOutcome;
  expect(outcome.model).toBe(model);
  return { ...(text === undefined ? {} : { text }), ...(error ? { error } : {}), outcome };
}

const callsFor = (upstream: ScriptedUpstream, model: string): ScriptedCall[] =>
  upstream.calls.filter((c) => c.model === model);

describe('routing.retries: maxRetries 4, retryAfterCapMs 1000, at most 3 attempts', () => {
  let upstream: ScriptedUpstream;
  let traffic: CapturedTraffic;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await started(scriptedUpstream());
    traffic = captureTraffic();
    gateway = await started(
      startTestGateway(
        {
          channels: [channel('solo', upstream, ['flaky', 'after-300ms', 'after-30s', 'down'])],
          routing: { retries: { maxRetries: 4, backoffBaseMs: 5, backoffMaxMs: 20, retryAfterCapMs: 1000 } },
        },
        { eventLog: traffic.eventLog, maxAttempts: 3 },
      ),
    );
  });

  it.each([false, true])(
    'two 503s then an answer (stream %s): served on the 3rd attempt, 2 failovers back to the same channel',
    async (stream) => {
      const before = callsFor(upstream, 'flaky').length;
      const { text, outcome } = await send(gateway, 'flaky', stream);
      expect(text).toBe(HELLO);
      expect(callsFor(upstream, 'flaky').length - before).toBe(3);
      expect(outcome).toMatchObject({ status: 'completed', channelId: 'solo', attempts: 3 });
      const failover = {
        channelId: 'solo',
        errorKind: 'upstream-unavailable',
        upstreamStatus: 503,
        nextChannelId: 'solo',
        latencyMs: expect.any(Number),
      };
      expect(outcome.failovers).toEqual([failover, failover]);
      // Every attempt that failed is a row of the failovers table.
      const rows = eventsOfType(traffic.events, 'FailoverOccurred')
        .filter((e) => e.requestId === outcome.requestId)
        .map(projectFailoverRow);
      expect(rows).toMatchObject([
        {
          channel_id: 'solo',
          model: 'flaky',
          error_kind: 'upstream-unavailable',
          upstream_status: 503,
          next_channel_id: 'solo',
        },
        {
          channel_id: 'solo',
          model: 'flaky',
          error_kind: 'upstream-unavailable',
          upstream_status: 503,
          next_channel_id: 'solo',
        },
      ]);
      const completed = eventsOfType(traffic.events, 'RequestCompleted').find((e) => e.requestId === outcome.requestId);
      expect(completed).toMatchObject({ status: 'completed', attempts: 3, channelId: 'solo' });
    },
  );

  it('waits an upstream Retry-After of 300 ms (within the cap) before retrying', async () => {
    const before = callsFor(upstream, 'after-300ms').length;
    const { text, outcome } = await send(gateway, 'after-300ms');
    expect(text).toBe(HELLO);
    const [failed, retried] = callsFor(upstream, 'after-300ms').slice(before);
    // The back-off is at most 5 ms here: only the Retry-After can make the gap (Date.now() is whole ms: 1 ms of rounding).
    expect(retried!.receivedAt - failed!.receivedAt).toBeGreaterThanOrEqual(300 - 1);
    expect(outcome).toMatchObject({ status: 'completed', attempts: 2 });
    expect(outcome.failovers).toEqual([
      expect.objectContaining({ channelId: 'solo', retryAfterMs: 300, nextChannelId: 'solo' }),
    ]);
  });

  it('does not retry a channel whose Retry-After (30 s) is above the cap: the request fails at once', async () => {
    const before = callsFor(upstream, 'after-30s').length;
    const { error, outcome } = await send(gateway, 'after-30s');
    expect(error?.status).toBe(503);
    expect(callsFor(upstream, 'after-30s').length - before).toBe(1);
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, errorKind: 'upstream-unavailable' });
    expect(outcome.failovers).toEqual([
      {
        channelId: 'solo',
        errorKind: 'upstream-unavailable',
        upstreamStatus: 503,
        retryAfterMs: 30_000,
        latencyMs: expect.any(Number),
      },
    ]);
  });

  it('bounds the attempts of a request (maxAttempts 3 under maxRetries 4)', async () => {
    const before = callsFor(upstream, 'down').length;
    const { error, outcome } = await send(gateway, 'down');
    expect(error?.status).toBe(503);
    expect(callsFor(upstream, 'down').length - before).toBe(3);
    expect(outcome).toMatchObject({ status: 'failed', attempts: 3 });
    expect(outcome.failovers.map((f) => f.nextChannelId)).toEqual(['solo', 'solo', undefined]);
    const rows = eventsOfType(traffic.events, 'FailoverOccurred').filter((e) => e.requestId === outcome.requestId);
    expect(rows).toHaveLength(3);
  });
});

describe('routing.retries within the request deadline', () => {
  let upstream: ScriptedUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await started(scriptedUpstream());
    gateway = await started(
      startTestGateway(
        {
          channels: [channel('solo', upstream, ['after-5s', 'flaky'])],
          routing: { retries: { maxRetries: 3, backoffBaseMs: 5, backoffMaxMs: 20, retryAfterCapMs: 10_000 } },
        },
        {},
        { TOLLGATE_REQUEST_DEADLINE_MS: '3000' },
      ),
    );
  });

  it('does not start a retry whose wait (Retry-After 5 s, within the cap) would pass the deadline (3 s)', async () => {
    const { error, outcome } = await send(gateway, 'after-5s');
    expect(error?.status).toBe(503);
    expect(callsFor(upstream, 'after-5s')).toHaveLength(1);
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('retries with short back-offs inside the deadline', async () => {
    const { text, outcome } = await send(gateway, 'flaky');
    expect(text).toBe(HELLO);
    expect(outcome).toMatchObject({ status: 'completed', attempts: 3 });
  });
});

describe('without routing.retries (maxRetries 0)', () => {
  let first: ScriptedUpstream;
  let second: ScriptedUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    first = await started(scriptedUpstream());
    second = await started(scriptedUpstream());
    gateway = await started(
      startTestGateway({ channels: [channel('first', first, ['flaky', 'down']), channel('second', second, ['down'])] }),
    );
  });

  it('tries a single channel once', async () => {
    const { error, outcome } = await send(gateway, 'flaky');
    expect(error?.status).toBe(503);
    expect(callsFor(first, 'flaky')).toHaveLength(1);
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('tries each channel of the model once', async () => {
    const { error, outcome } = await send(gateway, 'down');
    expect(error?.status).toBe(503);
    expect(callsFor(first, 'down')).toHaveLength(1);
    expect(callsFor(second, 'down')).toHaveLength(1);
    expect(outcome).toMatchObject({ status: 'failed', attempts: 2 });
    expect(new Set(outcome.failovers.map((f) => f.channelId))).toEqual(new Set(['first', 'second']));
  });
});

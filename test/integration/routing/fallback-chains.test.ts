/**
 * Fallback chains across protocols through a real gateway (README "Fallback chains"): model
 * aliases served by an OpenAI Chat channel whose fake fails — 503 before the first byte, a 400
 * `context_length_exceeded`, a 400 `content_filter` — fall back to an alias served by an Anthropic
 * Messages channel (and once the other way round), streamed and not, with the official SDKs as
 * clients. Checked: the answer's `model`, the `x-tollgate-model` / `x-tollgate-fallback-from`
 * headers, the outcome's model chain, the RequestCompleted event as published (decoded from the
 * event-log port) and the consumption_log row projected from it; a trigger the alias does not
 * name in `fallbackOn` and a key not allowed the fallback model get no fallback.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectConsumptionRow } from '../../../consumers/ledger/project-consumption-row.ts';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import { captureTraffic, eventsOfType, type CapturedTraffic } from '../../support/captured-traffic.ts';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

const ADMIN_TOKEN = 'fallback-chains-admin-token-0001';
const HELLO = 'Hello! How can I help you today?';

/** OpenAI's answer to a prompt over the context window (https://platform.openai.com/docs/guides/error-codes). */
const CONTEXT_LENGTH_EXCEEDED = JSON.stringify({
  error: {
    message:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  },
});

/** A content-filter refusal in the OpenAI envelope (Azure OpenAI's words and codes, https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter#scenario-details). */
const CONTENT_FILTER = JSON.stringify({
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
    type: null,
    param: 'prompt',
    code: 'content_filter',
    status: 400,
    innererror: { code: 'ResponsibleAIPolicyViolation' },
  },
});

const OVERLOADED_OPENAI = JSON.stringify({
  error: { message: 'The server is overloaded or not ready yet.', type: 'server_error', param: null, code: null },
});

const OVERLOADED_ANTHROPIC = JSON.stringify({
  type: 'error',
  error: { type: 'overloaded_error', message: 'Overloaded' },
});

let openaiUpstream: ScriptedUpstream;
let anthropicUpstream: ScriptedUpstream;
let traffic: CapturedTraffic;
let gateway: TestGateway;

beforeAll(async () => {
  openaiUpstream = await startScriptedUpstream('openai-chat', (call) => {
    if (call.model === 'gpt-down-upstream') return { kind: 'error', status: 503, body: OVERLOADED_OPENAI };
    if (call.model === 'gpt-long-upstream') return { kind: 'error', status: 400, body: CONTEXT_LENGTH_EXCEEDED };
    if (call.model === 'gpt-filtered-upstream') return { kind: 'error', status: 400, body: CONTENT_FILTER };
    return { kind: 'success' };
  });
  anthropicUpstream = await startScriptedUpstream('anthropic-messages', (call) =>
    call.model === 'claude-down-upstream'
      ? { kind: 'error', status: 529, body: OVERLOADED_ANTHROPIC }
      : { kind: 'success' },
  );
  traffic = captureTraffic();
  gateway = await startTestGateway(
    {
      channels: [
        {
          id: 'openai-main',
          provider: 'openai',
          protocol: 'openai-chat',
          baseUrl: openaiUpstream.baseUrl,
          apiKey: 'sk-upstream-openai',
          modelMap: {
            'gpt-down': 'gpt-down-upstream',
            'gpt-down-ctx-only': 'gpt-down-upstream',
            'gpt-long': 'gpt-long-upstream',
            'gpt-long-default': 'gpt-long-upstream',
            'gpt-filtered': 'gpt-filtered-upstream',
            'gpt-fallback': 'gpt-4o-mini',
          },
        },
        {
          id: 'anthropic-main',
          provider: 'anthropic',
          protocol: 'anthropic-messages',
          baseUrl: anthropicUpstream.baseUrl,
          apiKey: 'sk-ant-upstream',
          modelMap: { 'claude-fallback': 'claude-sonnet-4-5', 'claude-down': 'claude-down-upstream' },
        },
      ],
      routing: {
        models: {
          'gpt-down': { fallbacks: ['claude-fallback'] },
          'gpt-down-ctx-only': { fallbacks: ['claude-fallback'], fallbackOn: ['context-window'] },
          'gpt-long': { fallbacks: ['claude-fallback'], fallbackOn: ['context-window'] },
          'gpt-long-default': { fallbacks: ['claude-fallback'] },
          'gpt-filtered': { fallbacks: ['claude-fallback'], fallbackOn: ['content-policy'] },
          'claude-down': { fallbacks: ['gpt-fallback'] },
        },
      },
    },
    { eventLog: traffic.eventLog },
    { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
  );
});

afterAll(async () => {
  await gateway?.close();
  await openaiUpstream?.close();
  await anthropicUpstream?.close();
});

const openai = (apiKey = TEST_KEY): OpenAI => new OpenAI({ apiKey, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });

/** The outcome of the request `requestId` (the answer's x-request-id), once emitted. */
async function outcomeOf(requestId: string | null): Promise<ExchangeOutcome> {
  await waitFor(() => gateway.outcomes.some((o) => o.requestId === requestId));
  return gateway.outcomes.find((o) => o.requestId === requestId) as ExchangeOutcome;
}

/** Anthropic calls the fake received for the upstream model `model`. */
const anthropicCalls = (model: string): number => anthropicUpstream.calls.filter((c) => c.model === model).length;

describe.each([
  ['unavailable (503 before the first byte)', 'gpt-down', 'upstream-unavailable', 503],
  ['context-window (400 context_length_exceeded)', 'gpt-long', 'upstream-rejected', 400],
  ['content-policy (400 content_filter)', 'gpt-filtered', 'upstream-rejected', 400],
])('OpenAI alias falls back to an Anthropic alias on %s', (_, model, errorKind, upstreamStatus) => {
  const expectFallbackOutcome = (outcome: ExchangeOutcome, stream: boolean): void => {
    expect(outcome).toMatchObject({
      status: 'completed',
      model,
      stream,
      channelId: 'anthropic-main',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      modelChain: [model, 'claude-fallback'],
      answeredModel: 'claude-fallback',
      attempts: 2,
    });
    expect(outcome.failovers).toEqual([
      { channelId: 'openai-main', errorKind, upstreamStatus, latencyMs: expect.any(Number) },
    ]);
  };

  it('not streamed', async () => {
    const before = anthropicCalls('claude-sonnet-4-5');
    const { data, response } = await openai()
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello.' }] })
      .withResponse();
    expect(data.model).toBe('claude-fallback');
    expect(data.choices[0]?.message.content).toBe(HELLO);
    expect(response.headers.get('x-tollgate-model')).toBe('claude-fallback');
    expect(response.headers.get('x-tollgate-fallback-from')).toBe(model);
    expect(anthropicCalls('claude-sonnet-4-5')).toBe(before + 1);
    expectFallbackOutcome(await outcomeOf(response.headers.get('x-request-id')), false);
  });

  it('streamed', async () => {
    const { data: stream, response } = await openai()
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello.' }], stream: true })
      .withResponse();
    expect(response.headers.get('x-tollgate-model')).toBe('claude-fallback');
    expect(response.headers.get('x-tollgate-fallback-from')).toBe(model);
    let text = '';
    const models = new Set<string>();
    for await (const chunk of stream) {
      models.add(chunk.model);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe(HELLO);
    expect(models).toEqual(new Set(['claude-fallback']));
    expectFallbackOutcome(await outcomeOf(response.headers.get('x-request-id')), true);
  });
});

describe('the published events', () => {
  it('RequestCompleted carries the chain, and the consumption_log row projected from it', async () => {
    const { response } = await openai()
      .chat.completions.create({ model: 'gpt-down', messages: [{ role: 'user', content: 'Say hello.' }] })
      .withResponse();
    const requestId = response.headers.get('x-request-id');
    await outcomeOf(requestId);
    // Recorded exactly once, however many models and channels were tried.
    const ofRequest = eventsOfType(traffic.events, 'RequestCompleted').filter((e) => e.requestId === requestId);
    expect(ofRequest).toHaveLength(1);
    const completed = ofRequest[0];
    expect(completed).toMatchObject({
      model: 'gpt-down',
      channelId: 'anthropic-main',
      status: 'completed',
      attempts: 2,
      modelChain: ['gpt-down', 'claude-fallback'],
      answeredModel: 'claude-fallback',
    });
    const failovers = eventsOfType(traffic.events, 'FailoverOccurred').filter((e) => e.requestId === requestId);
    expect(failovers).toMatchObject([{ channelId: 'openai-main', upstreamStatus: 503, nextChannelId: null }]);
    const { row } = projectConsumptionRow(completed!, [], Date.now());
    expect(row).toMatchObject({ model_chain: ['gpt-down', 'claude-fallback'], answered_model: 'claude-fallback' });
  });

  it('a request served by its own model carries an empty chain', async () => {
    const { response } = await openai()
      .chat.completions.create({ model: 'gpt-fallback', messages: [{ role: 'user', content: 'Say hello.' }] })
      .withResponse();
    const requestId = response.headers.get('x-request-id');
    expect(response.headers.get('x-tollgate-model')).toBeNull();
    await outcomeOf(requestId);
    const completed = eventsOfType(traffic.events, 'RequestCompleted').find((e) => e.requestId === requestId);
    expect(completed).toMatchObject({ modelChain: [], answeredModel: null });
  });
});

describe('Anthropic alias falls back to an OpenAI alias', () => {
  it('answers the Anthropic SDK in its own format, with the fallback model', async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const { data, response } = await client.messages
      .create({ model: 'claude-down', max_tokens: 100, messages: [{ role: 'user', content: 'Say hello.' }] })
      .withResponse();
    expect(data.model).toBe('gpt-fallback');
    expect(data.content).toEqual([expect.objectContaining({ type: 'text', text: HELLO })]);
    expect(response.headers.get('x-tollgate-model')).toBe('gpt-fallback');
    expect(response.headers.get('x-tollgate-fallback-from')).toBe('claude-down');
    expect(await outcomeOf(response.headers.get('x-request-id'))).toMatchObject({
      status: 'completed',
      channelId: 'openai-main',
      upstreamModel: 'gpt-4o-mini',
      modelChain: ['claude-down', 'gpt-fallback'],
      answeredModel: 'gpt-fallback',
      failovers: [expect.objectContaining({ channelId: 'anthropic-main', upstreamStatus: 529 })],
    });
  });
});

describe('no fallback', () => {
  it.each([
    ['context window, fallbackOn left at its default (unavailable)', 'gpt-long-default', 400, 'upstream-rejected'],
    ['unavailable, fallbackOn only context-window', 'gpt-down-ctx-only', 503, 'upstream-unavailable'],
  ])('%s: the client gets the upstream error', async (_, model, status, errorKind) => {
    const before = anthropicCalls('claude-sonnet-4-5');
    const error = await openai()
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello.' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(status);
    expect(apiError.headers?.get('x-tollgate-model')).toBeNull();
    expect(anthropicCalls('claude-sonnet-4-5')).toBe(before);
    const outcome = await outcomeOf(apiError.headers?.get('x-request-id') ?? null);
    expect(outcome).toMatchObject({ status: 'failed', model, channelId: 'openai-main', errorKind, attempts: 1 });
    expect(outcome.modelChain).toBeUndefined();
    expect(outcome.answeredModel).toBeUndefined();
  });

  it('a key not allowed the fallback model does not get it', async () => {
    const created = await request(`${gateway.origin}/admin/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'gpt-down only', models: ['gpt-down'] }),
    });
    const { apiKey } = (await created.body.json()) as { apiKey: string };
    expect(created.statusCode).toBeLessThan(300);
    const before = anthropicCalls('claude-sonnet-4-5');
    const error = await openai(apiKey)
      .chat.completions.create({ model: 'gpt-down', messages: [{ role: 'user', content: 'Say hello.' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(503);
    expect(anthropicCalls('claude-sonnet-4-5')).toBe(before);
    const outcome = await outcomeOf(apiError.headers?.get('x-request-id') ?? null);
    expect(outcome).toMatchObject({ status: 'failed', model: 'gpt-down', channelId: 'openai-main', attempts: 1 });
    expect(outcome.modelChain).toBeUndefined();
    // The same key is refused the fallback model when it asks for it directly.
    const direct = await openai(apiKey)
      .chat.completions.create({ model: 'claude-fallback', messages: [{ role: 'user', content: 'Say hello.' }] })
      .catch((e: unknown) => e);
    expect((direct as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
  });
});

/**
 * Stateful Responses on every upstream protocol: a first turn is stored (translated to Chat
 * Completions, Anthropic Messages and Gemini, or passed through to a Responses channel; streamed
 * and not), `GET /v1/responses/{id}` returns exactly what the client received, and a second turn
 * naming it as `previous_response_id` reaches the upstream with the first turn's input and output
 * prepended, without the id and without the first turn's instructions. Each create is billed once.
 * The fake upstream replays recorded fixtures (test/fixtures/upstream/<protocol>/).
 */
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFormat } from '../../../gateway/canonical/formats.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

let upstream: FixtureUpstream;
let gateway: TestGateway;
let client: OpenAI;

/** Per protocol: the model of turn one and of turn two (a Responses channel answers turn two from another fixture, so the ids differ). */
const PROTOCOLS: ReadonlyArray<{ protocol: WireFormat; first: string; second: string; passThrough: boolean }> = [
  { protocol: 'openai-chat', first: 'chain-chat', second: 'chain-chat', passThrough: false },
  { protocol: 'openai-responses', first: 'chain-responses', second: 'chain-responses-next', passThrough: true },
  { protocol: 'anthropic-messages', first: 'chain-claude', second: 'chain-claude', passThrough: false },
  { protocol: 'gemini', first: 'chain-gemini', second: 'chain-gemini', passThrough: false },
];
const FIRST_ANSWER = 'Hello! How can I help you today?';

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  gateway = await startTestGateway({
    channels: [
      {
        id: 'chat',
        provider: 'deepseek',
        protocol: 'openai-chat',
        baseUrl: upstream.baseUrl('openai-chat'),
        apiKey: 'k',
        modelMap: { 'chain-chat': 'text' },
      },
      {
        id: 'responses',
        provider: 'openai',
        protocol: 'openai-responses',
        baseUrl: upstream.baseUrl('openai-responses'),
        apiKey: 'k',
        modelMap: { 'chain-responses': 'text', 'chain-responses-next': 'reasoning' },
      },
      {
        id: 'anthropic',
        provider: 'anthropic',
        protocol: 'anthropic-messages',
        baseUrl: upstream.baseUrl('anthropic-messages'),
        apiKey: 'k',
        modelMap: { 'chain-claude': 'text', 'chain-claude-tool': 'tool-call' },
      },
      {
        id: 'gemini',
        provider: 'gemini',
        protocol: 'gemini',
        baseUrl: upstream.baseUrl('gemini'),
        apiKey: 'k',
        modelMap: { 'chain-gemini': 'text' },
      },
    ],
  });
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** The stored object as raw JSON (not through the SDK, which adds `output_text`). */
async function rawRetrieve(id: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await request(`${gateway.origin}/v1/responses/${id}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

/** Creates a response and returns the Response object as the client received it. */
async function create(body: Record<string, unknown>, stream: boolean): Promise<Record<string, unknown>> {
  const response = await request(`${gateway.origin}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream }),
  });
  const text = await response.body.text();
  expect(response.statusCode, text).toBe(200);
  if (!stream) return JSON.parse(text) as Record<string, unknown>;
  const terminal = text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as { type: string; response?: Record<string, unknown> })
    .find((event) => event.type === 'response.completed' || event.type === 'response.incomplete');
  expect(terminal?.response).toBeDefined();
  return terminal!.response!;
}

function upstreamBodiesFor(protocol: WireFormat): string[] {
  return upstream.requests.filter((r) => r.protocol === protocol).map((r) => r.body);
}

describe.each(PROTOCOLS)('a two-turn chain on $protocol', ({ protocol, first, second, passThrough }) => {
  for (const stream of [false, true]) {
    it(`${stream ? 'streamed' : 'non-streamed'}: stores turn one as the client saw it and continues from it`, async () => {
      const outcomesBefore = gateway.outcomes.length;
      const turnOne = await create(
        { model: first, instructions: 'Instructions of turn one only.', input: 'First question of the chain' },
        stream,
      );
      if (!passThrough) expect(turnOne.store).toBe(true); // a pass-through answer shows what the upstream echoed
      expect(turnOne.previous_response_id).toBeNull();
      const stored = await rawRetrieve(turnOne.id as string);
      expect(stored.status).toBe(200);
      expect(stored.body).toEqual(turnOne);

      const sentBefore = upstreamBodiesFor(protocol).length;
      const turnTwo = await create(
        { model: second, previous_response_id: turnOne.id, input: 'Second question of the chain' },
        stream,
      );
      expect(turnTwo.previous_response_id).toBe(turnOne.id);
      expect(turnTwo.instructions).toBeNull();
      const sent = upstreamBodiesFor(protocol).slice(sentBefore);
      expect(sent).toHaveLength(1);
      const upstreamBody = sent[0]!;
      expect(upstreamBody).toContain('First question of the chain');
      expect(upstreamBody).toContain(FIRST_ANSWER);
      expect(upstreamBody).toContain('Second question of the chain');
      expect(upstreamBody.indexOf('First question of the chain')).toBeLessThan(upstreamBody.indexOf(FIRST_ANSWER));
      expect(upstreamBody.indexOf(FIRST_ANSWER)).toBeLessThan(upstreamBody.indexOf('Second question of the chain'));
      expect(upstreamBody).not.toContain('previous_response_id');
      expect(upstreamBody).not.toContain('Instructions of turn one only.');
      expect((await rawRetrieve(turnTwo.id as string)).body).toEqual(turnTwo);

      await waitFor(() => gateway.outcomes.length >= outcomesBefore + 2);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const outcomes = gateway.outcomes.slice(outcomesBefore);
      expect(outcomes).toHaveLength(2); // two creates; the retrievals are not billed
      expect(outcomes.every((o) => o.status === 'completed' && o.passThrough === passThrough)).toBe(true);
    });
  }
});

describe('a tool round trip across two turns', () => {
  it('sends the stored function call before the new function_call_output (Anthropic: tool_use then tool_result)', async () => {
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: false,
      },
    ];
    const first = await client.responses.create({ model: 'chain-claude-tool', input: 'Weather in Oslo?', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
    const callId = (call as { call_id: string }).call_id;
    const second = await client.responses.create({
      model: 'chain-claude',
      previous_response_id: first.id,
      tools,
      input: [{ type: 'function_call_output', call_id: callId, output: '{"temperature":21}' }],
    });
    expect(second.previous_response_id).toBe(first.id);
    const sent = JSON.parse(upstreamBodiesFor('anthropic-messages').at(-1)!) as {
      messages: Array<{ role: string; content: Array<{ type: string; id?: string; tool_use_id?: string }> }>;
    };
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent.messages[1]!.content.find((part) => part.type === 'tool_use')?.id).toBe(callId);
    expect(sent.messages[2]!.content.find((part) => part.type === 'tool_result')?.tool_use_id).toBe(callId);
  });
});

describe('the official SDK', () => {
  it('chains with previous_response_id and retrieves what create returned', async () => {
    const first = await client.responses.create({ model: 'chain-claude', input: 'Hi from the SDK' });
    const again = await client.responses.retrieve(first.id);
    expect(again).toEqual(first);
    const second = await client.responses.create({
      model: 'chain-chat',
      previous_response_id: first.id,
      input: 'Follow-up from the SDK',
    });
    expect(second.previous_response_id).toBe(first.id);
    const body = upstreamBodiesFor('openai-chat').at(-1)!;
    expect(body).toContain('Hi from the SDK');
    expect(body).toContain(FIRST_ANSWER);
  });

  it('streams a continuation with responses.stream', async () => {
    const first = await client.responses.create({ model: 'chain-gemini', input: 'Streamed chain start' });
    const stream = client.responses.stream({
      model: 'chain-responses',
      previous_response_id: first.id,
      input: 'Streamed chain follow-up',
    });
    const final = await stream.finalResponse();
    expect(final.previous_response_id).toBe(first.id);
    const body = JSON.parse(upstreamBodiesFor('openai-responses').at(-1)!) as Record<string, unknown>;
    expect(body.previous_response_id).toBeUndefined();
    expect(JSON.stringify(body.input)).toContain('Streamed chain start');
    const stored = await client.responses.retrieve(final.id);
    expect(stored.previous_response_id).toBe(first.id);
    expect(stored.output.map((item) => item.id)).toEqual(final.output.map((item) => item.id)); // the stream helper adds `parsed` to text parts
    expect(stored.output_text).toBe(final.output_text);
  });
});

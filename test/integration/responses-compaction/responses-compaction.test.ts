/**
 * `POST /v1/responses/compact` on every upstream protocol, through the official openai SDK
 * (`client.responses.compact`): passed through to an OpenAI Responses channel's
 * `/responses/compact`; on Chat Completions, Anthropic and Gemini channels compacted by the
 * channel's own model into a gateway-sealed compaction item whose summary reaches the upstream
 * when the item is sent back in `POST /v1/responses` (also to an OpenAI Responses channel, never
 * raw). The gateway's compacted response validates against the `CompactResource` schema of
 * OpenAI's OpenAPI document (kept user messages are `Message` items with `id` and `status`), and
 * goes back as `input` unchanged. Refusals: tampered item, missing model, an OpenAI-minted item on
 * a translated channel.
 */
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';
import {
  fakeSummary,
  startCompactionUpstream,
  UPSTREAM_COMPACTED,
  type CompactionUpstream,
} from './compaction-upstream.ts';

let upstream: CompactionUpstream;
let gateway: TestGateway;
let client: OpenAI;
let validateCompactResource: ValidateFunction;

/**
 * The `CompactResource` schema of OpenAI's published OpenAPI document (https://github.com/openai/openai-openapi,
 * `openapi.yaml`, MIT) with every schema it references, extracted unchanged into a fixture.
 */
const COMPACT_SCHEMA_PATH = new URL('./openai-compact-resource-schema.json', import.meta.url);

/** The schema errors of a compacted response (at most 5, `path message`), [] when it validates. */
function compactResourceErrors(body: unknown): string[] {
  if (validateCompactResource(body)) return [];
  return (validateCompactResource.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message}`);
}

/** Client model → [upstream protocol, upstream model, path the upstream sees]. */
const CHANNELS = {
  'gpt-compact': ['openai-responses', 'up-gpt'],
  'chat-compact': ['openai-chat', 'up-chat'],
  'claude-compact': ['anthropic-messages', 'up-claude'],
  'gemini-compact': ['gemini', 'up-gemini'],
} as const;

const CONVERSATION: OpenAI.Responses.ResponseInputItem[] = [
  { role: 'user', content: 'Plan a trip to Kyoto' },
  { role: 'assistant', content: 'Sure. When would you like to travel?' },
  { role: 'user', content: [{ type: 'input_text', text: 'In April, for cherry blossoms' }] },
];

beforeAll(async () => {
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; `x-*` and `discriminator` annotations are ignored.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false, allErrors: true });
  ajv.addSchema(JSON.parse(readFileSync(COMPACT_SCHEMA_PATH, 'utf8')) as object, 'openai-openapi');
  const compiled = ajv.getSchema('openai-openapi#/components/schemas/CompactResource');
  if (!compiled) throw new Error('schema CompactResource not found');
  validateCompactResource = compiled;
  upstream = await startCompactionUpstream();
  const base = (protocol: string): string =>
    protocol.startsWith('openai') ? `${upstream.origin}/v1` : upstream.origin;
  const provider = {
    'openai-responses': 'openai',
    'openai-chat': 'openai',
    'anthropic-messages': 'anthropic',
    gemini: 'gemini',
  } as const;
  gateway = await startTestGateway({
    channels: Object.entries(CHANNELS).map(([model, [protocol, upstreamModel]]) => ({
      id: `cmp-${protocol}`,
      provider: provider[protocol],
      protocol,
      baseUrl: base(protocol),
      apiKey: 'k',
      modelMap: { [model]: upstreamModel },
    })),
  });
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Runs `call` and returns the upstream requests and gateway outcomes it caused. */
async function observe<T>(
  call: () => Promise<T>,
): Promise<{ result: T; sent: CompactionUpstream['requests']; outcomes: ExchangeOutcome[] }> {
  const requestsBefore = upstream.requests.length;
  const outcomesBefore = gateway.outcomes.length;
  const result = await call();
  await waitFor(() => gateway.outcomes.length > outcomesBefore);
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { result, sent: upstream.requests.slice(requestsBefore), outcomes: gateway.outcomes.slice(outcomesBefore) };
}

async function postJson(
  path: string,
  body: unknown,
): Promise<{
  status: number;
  body: { error?: { message: string; param: string | null; type: string } } & Record<string, unknown>;
}> {
  const answer = await request(`${gateway.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: answer.statusCode, body: (await answer.body.json()) as never };
}

describe('OpenAI Responses channel: pass-through', () => {
  it('forwards the body to /responses/compact with the mapped model and relays the answer unchanged, once billed', async () => {
    const { result, sent, outcomes } = await observe(() =>
      client.responses.compact({ model: 'gpt-compact', input: CONVERSATION, instructions: 'Be brief.' }),
    );
    expect(result).toEqual(UPSTREAM_COMPACTED);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/v1/responses/compact');
    expect(sent[0]!.body).toEqual({ model: 'up-gpt', input: CONVERSATION, instructions: 'Be brief.' });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({
      status: 'completed',
      httpStatus: 200,
      model: 'gpt-compact',
      upstreamModel: 'up-gpt',
      passThrough: true,
      clientFormat: 'openai-responses',
    });
    expect(outcomes[0]!.usage).toMatchObject({ input: { total: 42 }, output: { total: 12 }, source: 'reported' });
  });

  it('an OpenAI-minted compaction item goes through raw to an OpenAI Responses channel', async () => {
    const input = [
      ...UPSTREAM_COMPACTED.output,
      { role: 'user', content: 'And hotels?' },
    ] as OpenAI.Responses.ResponseInputItem[];
    const { sent } = await observe(() => client.responses.create({ model: 'gpt-compact', input }));
    expect(sent[0]!.path).toBe('/v1/responses');
    expect(sent[0]!.body.input).toEqual(input);
  });
});

describe.each([
  ['chat-compact', 'openai-chat', '/v1/chat/completions'],
  ['claude-compact', 'anthropic-messages', '/v1/messages'],
  ['gemini-compact', 'gemini', '/v1beta/models/up-gemini:generateContent'],
] as const)('%s (%s upstream): the gateway compacts', (model, protocol, upstreamPath) => {
  let compacted: OpenAI.Responses.CompactedResponse;

  it('sends the conversation and a summarisation instruction upstream, answers the documented shape, billed once', async () => {
    const { result, sent, outcomes } = await observe(() => client.responses.compact({ model, input: CONVERSATION }));
    compacted = result;
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe(upstreamPath);
    for (const text of [
      'Plan a trip to Kyoto',
      'Sure. When would you like to travel?',
      'In April, for cherry blossoms',
      'Context checkpoint',
    ])
      expect(sent[0]!.text).toContain(text);
    expect(result).toMatchObject({
      object: 'response.compaction',
      id: expect.stringMatching(/^resp_/),
      created_at: expect.any(Number),
    });
    expect(result.output).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'Plan a trip to Kyoto' }],
      },
      {
        type: 'message',
        id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'In April, for cherry blossoms' }],
      },
      { type: 'compaction', id: expect.stringMatching(/^cmp_/), encrypted_content: expect.stringMatching(/^tgc1\./) },
    ]);
    const encrypted = (result.output[2] as { encrypted_content: string }).encrypted_content;
    expect(encrypted).not.toContain('Kyoto');
    expect(Buffer.from(encrypted.slice(5), 'base64url').toString('latin1')).not.toContain('SUMMARY');
    expect(result.usage).toMatchObject({ input_tokens: 50, output_tokens: 20, total_tokens: 70 });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({
      status: 'completed',
      httpStatus: 200,
      model,
      passThrough: false,
      clientFormat: 'openai-responses',
    });
    expect(outcomes[0]!.usage).toMatchObject({ input: { total: 50 }, output: { total: 20 } });
  });

  it('the compacted response validates against the CompactResource schema: kept user messages are Message items with an id and a status', async () => {
    const answer = await postJson('/v1/responses/compact', {
      model,
      input: [...CONVERSATION, { type: 'message', id: 'msg_client_own_id', role: 'user', content: 'Keep my id' }],
    });
    expect(answer.status).toBe(200);
    expect(compactResourceErrors(answer.body)).toEqual([]);
    const messages = (answer.body.output as Array<Record<string, unknown>>).filter((item) => item.type === 'message');
    expect(messages.map((item) => [item.role, item.status])).toEqual([
      ['user', 'completed'],
      ['user', 'completed'],
      ['user', 'completed'],
    ]);
    expect(messages.map((item) => item.id)).toEqual([
      expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      'msg_client_own_id',
    ]);
    expect(new Set(messages.map((item) => item.id)).size).toBe(3);
    // A string input is one user message, with an id too.
    const single = await postJson('/v1/responses/compact', { model, input: 'Only this' });
    expect(compactResourceErrors(single.body)).toEqual([]);
    expect(single.body.output).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_/),
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'Only this' }],
      },
      expect.objectContaining({ type: 'compaction' }),
    ]);
  });

  it('the compacted output sent back as input, ids and statuses included, is accepted on every channel; the ids stay at the gateway', async () => {
    const keptIds = compacted.output.flatMap((item) => (item.type === 'message' && 'id' in item ? [item.id] : []));
    expect(keptIds).toHaveLength(2);
    for (const target of [model, 'gpt-compact']) {
      const answer = await postJson('/v1/responses', {
        model: target,
        input: [...compacted.output, { role: 'user', content: 'Which hotels?' }],
      });
      expect(answer.status, JSON.stringify(answer.body.error)).toBe(200);
      const sent = upstream.requests.at(-1)!;
      expect(sent.text).toContain('Plan a trip to Kyoto');
      for (const id of keptIds) expect(sent.text).not.toContain(id);
    }
  });

  it('the returned compaction item, sent back, carries the summary to the upstream', async () => {
    const input = [
      ...compacted.output,
      { role: 'user', content: 'Which hotels?' },
    ] as OpenAI.Responses.ResponseInputItem[];
    const { sent } = await observe(() => client.responses.create({ model, input }));
    expect(sent[0]!.path).toBe(upstreamPath);
    expect(sent[0]!.text).toContain(fakeSummary(protocol));
    expect(sent[0]!.text).toContain('Which hotels?');
    expect(sent[0]!.text).not.toContain('tgc1.');
  });

  it('an OpenAI Responses channel gets the summary as a message, never the sealed item', async () => {
    const input = [
      ...compacted.output,
      { role: 'user', content: 'Which hotels?' },
    ] as OpenAI.Responses.ResponseInputItem[];
    const { sent, outcomes } = await observe(() => client.responses.create({ model: 'gpt-compact', input }));
    expect(sent[0]!.path).toBe('/v1/responses');
    expect(sent[0]!.text).toContain(fakeSummary(protocol));
    expect(sent[0]!.text).not.toContain('tgc1.');
    expect(JSON.stringify(sent[0]!.body.input)).not.toContain('"compaction"');
    expect(outcomes[0]!.passThrough).toBe(false);
  });

  it('compacting again on an OpenAI Responses channel summarises there (the sealed item is not sent to /compact)', async () => {
    const input = [
      ...compacted.output,
      { role: 'user', content: 'Which hotels?' },
    ] as OpenAI.Responses.ResponseInputItem[];
    const { result, sent } = await observe(() => client.responses.compact({ model: 'gpt-compact', input }));
    expect(sent[0]!.path).toBe('/v1/responses');
    expect(sent[0]!.text).toContain(fakeSummary(protocol));
    expect(sent[0]!.text).not.toContain('tgc1.');
    expect(result.output.at(-1)).toMatchObject({
      type: 'compaction',
      encrypted_content: expect.stringMatching(/^tgc1\./),
    });
    expect(result.output.filter((item) => item.type === 'message')).toHaveLength(3);
    expect(compactResourceErrors(result)).toEqual([]);
    // The kept messages keep the ids they had in the first compacted window.
    const ids = (output: ReadonlyArray<{ type: string }>): unknown[] =>
      output.filter((item) => item.type === 'message').map((item) => (item as { id?: unknown }).id);
    expect(ids(result.output).slice(0, 2)).toEqual(ids(compacted.output));
  });
});

describe('previous_response_id (stored responses)', () => {
  it('the stored turns are compacted with the new input; only a previous response is enough', async () => {
    const first = await client.responses.create({ model: 'chat-compact', input: 'Plan a trip to Kyoto' });
    const { result, sent, outcomes } = await observe(() =>
      client.responses.compact({
        model: 'chat-compact',
        previous_response_id: first.id,
        input: [{ role: 'user', content: 'In April' }],
      }),
    );
    expect(sent[0]!.text).toContain('Plan a trip to Kyoto');
    expect(sent[0]!.text).toContain('In April');
    expect(result.output.filter((item) => item.type === 'message')).toHaveLength(2);
    expect(outcomes).toHaveLength(1);
    await expect(client.responses.retrieve(result.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError); // a compaction is not a stored response
    const only = await client.responses.compact({ model: 'chat-compact', previous_response_id: first.id });
    expect(only.output[0]).toEqual({
      type: 'message',
      id: expect.stringMatching(/^msg_/),
      status: 'completed',
      role: 'user',
      content: [{ type: 'input_text', text: 'Plan a trip to Kyoto' }],
    });
    expect(only.output.at(-1)).toMatchObject({ type: 'compaction' });
  });

  it('passed through, the upstream gets the resolved turns and no gateway response id', async () => {
    const first = await client.responses.create({ model: 'gpt-compact', input: 'Plan a trip to Kyoto' });
    const { sent } = await observe(() =>
      client.responses.compact({ model: 'gpt-compact', previous_response_id: first.id, input: 'In April' }),
    );
    expect(sent[0]!.path).toBe('/v1/responses/compact');
    expect(sent[0]!.body.previous_response_id).toBeUndefined();
    expect(sent[0]!.text).toContain('Plan a trip to Kyoto');
    expect(sent[0]!.text).toContain('In April');
  });

  it('an unknown previous response is a 400 naming previous_response_id', async () => {
    const answer = await postJson('/v1/responses/compact', {
      model: 'chat-compact',
      previous_response_id: 'resp_0123456789abcdef01234567',
      input: 'hi',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ param: 'previous_response_id' });
  });
});

describe('refusals', () => {
  async function gatewayItem(): Promise<OpenAI.Responses.ResponseInputItem[]> {
    const compacted = await client.responses.compact({ model: 'chat-compact', input: CONVERSATION });
    return compacted.output as OpenAI.Responses.ResponseInputItem[];
  }

  it('a tampered gateway compaction item is a 400 naming the item, on any channel', async () => {
    const output = await gatewayItem();
    const item = output[2] as { type: 'compaction'; encrypted_content: string };
    const last = item.encrypted_content.at(-5) === 'A' ? 'B' : 'A';
    const tampered = {
      ...item,
      encrypted_content: item.encrypted_content.slice(0, -5) + last + item.encrypted_content.slice(-4),
    };
    const before = upstream.requests.length;
    for (const model of ['chat-compact', 'gpt-compact', 'claude-compact']) {
      const answer = await postJson('/v1/responses', {
        model,
        input: [output[0], tampered, { role: 'user', content: 'go on' }],
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param: 'input.1' });
      expect(answer.body.error!.message).toContain('input.1');
    }
    const compact = await postJson('/v1/responses/compact', { model: 'chat-compact', input: [tampered] });
    expect(compact.status).toBe(400);
    expect(compact.body.error!.param).toBe('input.0');
    expect(upstream.requests.length).toBe(before);
  });

  it('a missing or empty model is a 400 naming model', async () => {
    for (const body of [{ input: CONVERSATION }, { model: '', input: CONVERSATION }, { model: null, input: 'hi' }]) {
      const answer = await postJson('/v1/responses/compact', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
      expect(answer.body.error!.message).toContain('model');
    }
    await expect(
      client.responses.compact({ model: undefined as unknown as string, input: 'hi' }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('bad input is a 400, never a 500', async () => {
    for (const body of [
      { model: 'chat-compact', input: 42 },
      { model: 'chat-compact', input: [{ type: 'compaction' }] },
      { model: 'chat-compact', input: [null] },
      ['not', 'an', 'object'],
    ]) {
      const answer = await postJson('/v1/responses/compact', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.type).toBe('invalid_request_error');
    }
    const unknownModel = await postJson('/v1/responses/compact', { model: 'nope', input: 'hi' });
    expect(unknownModel.status).toBe(404);
  });

  it('an OpenAI-minted compaction item sent to a Chat Completions channel is a 400 naming it', async () => {
    const before = upstream.requests.length;
    for (const path of ['/v1/responses', '/v1/responses/compact']) {
      const answer = await postJson(path, {
        model: 'chat-compact',
        input: [...UPSTREAM_COMPACTED.output, { role: 'user', content: 'And hotels?' }],
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error!.message).toContain('input.1: compaction item minted by the upstream');
    }
    expect(upstream.requests.length).toBe(before);
  });

  it('compaction needs a valid API key', async () => {
    const answer = await request(`${gateway.origin}/v1/responses/compact`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-wrong', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chat-compact', input: 'hi' }),
    });
    expect(answer.statusCode).toBe(401);
    expect(((await answer.body.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });
});

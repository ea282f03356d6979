/**
 * Every Response object the gateway builds for a translated `/v1/responses` call (the
 * non-streamed body and each streamed snapshot: `response.created`, `response.in_progress`,
 * `response.completed | incomplete | failed`) validates against the `Response` schema of OpenAI's
 * published OpenAPI document and carries every key the API returns
 * (https://platform.openai.com/docs/api-reference/responses/object), echoing the request's
 * settings or the API's defaults.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { openaiResponsesCodec } from '../../../../gateway/inbound/openai-responses/openai-responses-codec.ts';
import { lengthResponse, makeContext, sseFrames, textResponse, toolResponse } from './openai-test-fixtures.ts';

/**
 * The `Response` schema of OpenAI's published OpenAPI document (https://github.com/openai/openai-openapi,
 * `openapi.yaml`, MIT) with every schema it references, extracted unchanged into a fixture.
 */
const SPEC_PATH = new URL('../../../fixtures/openapi/openai-response-schema.json', import.meta.url);

/** Keys the API returns beyond the schema's `required` list (the API reference's response object). */
const RETURNED_KEYS = [
  'status',
  'completed_at',
  'background',
  'frequency_penalty',
  'max_output_tokens',
  'max_tool_calls',
  'presence_penalty',
  'previous_response_id',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'text',
  'top_logprobs',
  'truncation',
  'usage',
];

/** The lifecycle events that carry a full `response` snapshot. */
const SNAPSHOT_EVENTS = new Set([
  'response.created',
  'response.in_progress',
  'response.completed',
  'response.incomplete',
  'response.failed',
]);

let validateResponse: ValidateFunction;
let expectedKeys: string[];

beforeAll(() => {
  const spec = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as {
    components: {
      schemas: Record<string, { allOf?: Array<{ required?: string[]; properties?: Record<string, unknown> }> }>;
    };
  };
  // The API sends `"usage": null` until a response ends (the streamed `response.created` /
  // `in_progress` snapshots, https://platform.openai.com/docs/api-reference/responses-streaming),
  // while the schema types `usage` as a non-null object: allow null there, nothing else.
  const own = spec.components.schemas.Response?.allOf?.find((part) => part.properties?.usage !== undefined);
  if (!own?.properties) throw new Error('schema Response has no usage property');
  own.properties.usage = { anyOf: [own.properties.usage, { type: 'null' }] };
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; `x-*` and `discriminator` annotations are ignored.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false, allErrors: true });
  ajv.addSchema(spec, 'openai-openapi');
  const compiled = ajv.getSchema('openai-openapi#/components/schemas/Response');
  if (!compiled) throw new Error('schema Response not found');
  validateResponse = compiled;
  const required = (spec.components.schemas.Response?.allOf ?? []).flatMap((part) => part.required ?? []);
  expect(required).toContain('tools');
  expectedKeys = [...new Set([...required, ...RETURNED_KEYS])];
}, 30_000);

/** Asserts one Response object: schema-valid, every expected key present, function tools with a boolean `strict`. */
function checkResponse(response: unknown, where: string): Record<string, unknown> {
  const valid = validateResponse(response);
  expect(
    valid ? [] : (validateResponse.errors ?? []).slice(0, 5).map((e) => `${where}${e.instancePath} ${e.message}`),
  ).toEqual([]);
  const object = response as Record<string, unknown>;
  expect(expectedKeys.filter((key) => !(key in object)).map((key) => `${where}: missing ${key}`)).toEqual([]);
  for (const tool of object.tools as Array<Record<string, unknown>>)
    expect(typeof tool.strict, `${where}: tools[].strict`).toBe('boolean');
  return object;
}

/** The `response` snapshots of an SSE stream, by event type (in order). */
function snapshotsOf(sse: string): Array<{ type: string; response: unknown }> {
  return sseFrames(sse)
    .map(
      (frame) =>
        frame
          .split('\n')
          .find((line) => line.startsWith('data: '))
          ?.slice(6) ?? '',
    )
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as { type: string; response?: unknown })
    .filter((event) => SNAPSHOT_EVENTS.has(event.type))
    .map((event) => ({ type: event.type, response: event.response }));
}

/** Encodes `response` both ways; checks the body and every streamed snapshot; returns them. */
function encodeBoth(response: CanonicalResponse, raw: Record<string, unknown>, events?: StreamEvent[]) {
  const body = checkResponse(openaiResponsesCodec.encodeResponse(response, makeContext(raw)), 'body');
  const encoder = openaiResponsesCodec.createStreamEncoder(makeContext({ ...raw, stream: true }));
  const sse = (events ?? responseToStreamEvents(response, 4)).map((event) => encoder.encode(event)).join('');
  const snapshots = snapshotsOf(sse).map(({ type, response: snap }) => ({ type, response: checkResponse(snap, type) }));
  return { body, snapshots, types: snapshots.map((s) => s.type) };
}

describe('Responses Response object completeness (translated paths)', () => {
  it('plain text: body and created/in_progress/completed snapshots carry the API defaults', () => {
    const { body, snapshots, types } = encodeBoth(textResponse, { model: 'gw-model', input: 'hi' });
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    for (const object of [body, ...snapshots.map((s) => s.response)]) {
      expect(object).toMatchObject({
        presence_penalty: 0,
        frequency_penalty: 0,
        safety_identifier: null,
        prompt_cache_key: null,
        prompt_cache_retention: null,
        background: false,
        service_tier: 'default',
        store: true,
        top_logprobs: 0,
        truncation: 'disabled',
        temperature: 1,
        top_p: 1,
        tool_choice: 'auto',
        tools: [],
        metadata: {},
      });
      expect(object).not.toHaveProperty('user');
    }
    expect(body.usage).toEqual({
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 11,
    });
  });

  it('function tool call: tools echoed with strict, request settings echoed', () => {
    const city = {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    };
    const loose = {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string' } },
      required: ['city'],
    };
    const raw = {
      model: 'gw-model',
      input: 'Weather in Oslo?',
      tools: [
        { type: 'function', name: 'get_weather', description: 'Current weather', parameters: city, strict: true },
        { type: 'function', name: 'get_forecast', parameters: city },
        { type: 'function', name: 'get_alerts', parameters: loose },
        { type: 'function', name: 'get_time', strict: false },
        { type: 'web_search' },
      ],
      tool_choice: 'required',
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      safety_identifier: 'user-hash-1',
      prompt_cache_key: 'weather-bot',
      prompt_cache_retention: '24h',
      user: 'u-1',
      temperature: 0.2,
      parallel_tool_calls: false,
      store: false,
      metadata: { team: 'a' },
    };
    const { body, snapshots, types } = encodeBoth(toolResponse, raw);
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    for (const object of [body, ...snapshots.map((s) => s.response)]) {
      expect(object.tools).toEqual([
        { type: 'function', description: 'Current weather', name: 'get_weather', parameters: city, strict: true },
        { type: 'function', description: null, name: 'get_forecast', parameters: city, strict: true },
        { type: 'function', description: null, name: 'get_alerts', parameters: loose, strict: false },
        { type: 'function', description: null, name: 'get_time', parameters: null, strict: false },
      ]);
      expect(object).toMatchObject({
        tool_choice: 'required',
        presence_penalty: 0.5,
        frequency_penalty: 0.25,
        safety_identifier: 'user-hash-1',
        prompt_cache_key: 'weather-bot',
        prompt_cache_retention: '24h',
        user: 'u-1',
        temperature: 0.2,
        parallel_tool_calls: false,
        store: false,
        metadata: { team: 'a' },
      });
    }
    expect((body.output as Array<{ type: string }>).map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
  });

  it('reasoning: the reasoning settings and reasoning token usage are echoed', () => {
    const response: CanonicalResponse = {
      id: 'up_r',
      model: 'upstream-model',
      content: [
        { type: 'reasoning', text: 'Two plus two.', signature: 'sig-r' },
        { type: 'text', text: '4' },
      ],
      finishReason: finishReason('stop', 'stop'),
      usage: makeUsage({ inputTotal: 12, outputTotal: 30, reasoning: 25 }),
    };
    const { body, snapshots } = encodeBoth(response, {
      model: 'gw-model',
      input: '2+2?',
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    for (const object of [body, ...snapshots.map((s) => s.response)])
      expect(object.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect((body.usage as { output_tokens_details: unknown }).output_tokens_details).toEqual({ reasoning_tokens: 25 });
    expect((snapshots.at(-1)?.response.output as Array<{ type: string }>).map((item) => item.type)).toEqual([
      'reasoning',
      'message',
    ]);
  });

  it('incomplete (max output tokens): body and the response.incomplete snapshot', () => {
    const { body, snapshots, types } = encodeBoth(lengthResponse, {
      model: 'gw-model',
      input: 'Tell a story',
      max_output_tokens: 16,
    });
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.incomplete']);
    for (const object of [body, snapshots[2]?.response]) {
      expect(object).toMatchObject({
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        max_output_tokens: 16,
        completed_at: null,
        error: null,
      });
    }
  });

  it('failed: body for an upstream error finish and the response.failed snapshot of a broken stream', () => {
    const failed: CanonicalResponse = { ...textResponse, finishReason: finishReason('error', 'error') };
    const broken: StreamEvent[] = [
      ...responseToStreamEvents(textResponse, 2).filter(
        (event) => event.type !== 'message-end' && event.type !== 'block-end',
      ),
      { type: 'error', error: new GatewayError('upstream-unavailable', 'upstream connection reset') },
    ];
    const { body, snapshots, types } = encodeBoth(failed, { model: 'gw-model', input: 'hi' }, broken);
    expect(body).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(snapshots[2]?.response).toMatchObject({ status: 'failed', presence_penalty: 0, safety_identifier: null });
  });
});

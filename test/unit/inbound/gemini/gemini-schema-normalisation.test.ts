import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import { convertGeminiSchema } from '../../../../gateway/inbound/gemini/convert-gemini-schema.ts';
import { geminiCodec } from '../../../../gateway/inbound/gemini/gemini-codec.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import type { ProviderId } from '../../../../gateway/providers/provider-preset.ts';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { geminiAdapter } from '../../../../gateway/upstream/gemini/gemini-adapter.ts';
import { openaiChatAdapter } from '../../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import { openaiResponsesAdapter } from '../../../../gateway/upstream/openai-responses/openai-responses-adapter.ts';
import type { UpstreamAdapter } from '../../../../gateway/upstream/upstream-adapter.ts';

/**
 * The Gemini CLI model-router shape (@google/genai `Type` enum values, sent as
 * `responseJsonSchema`), widened with the other OpenAPI-subset features clients send.
 */
function routerSchema(): Record<string, unknown> {
  return {
    type: 'OBJECT',
    properties: {
      reasoning: { type: 'STRING', description: 'A brief explanation of the choice.' },
      model_choice: { type: 'STRING', enum: ['flash', 'pro'] },
      confidence: { type: 'NUMBER', nullable: true, minimum: 0, maximum: 1 },
      steps: {
        type: 'ARRAY',
        maxItems: '3',
        items: {
          type: 'OBJECT',
          properties: {
            title: { type: 'STRING' },
            done: { type: 'BOOLEAN' },
            weight: { type: 'INTEGER', format: 'int32' },
          },
          required: ['title'],
          propertyOrdering: ['title', 'done', 'weight'],
        },
      },
      hint: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }], nullable: true },
      nothing: { type: 'NULL' },
    },
    required: ['reasoning', 'model_choice'],
    propertyOrdering: ['reasoning', 'model_choice', 'confidence', 'steps', 'hint', 'nothing'],
  };
}

/** What routerSchema() must become: lower-case JSON Schema without `nullable`/`propertyOrdering`. */
const ROUTER_JSON_SCHEMA = {
  type: 'object',
  properties: {
    reasoning: { type: 'string', description: 'A brief explanation of the choice.' },
    model_choice: { type: 'string', enum: ['flash', 'pro'] },
    confidence: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    steps: {
      type: 'array',
      maxItems: 3,
      items: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          done: { type: 'boolean' },
          weight: { type: 'integer', format: 'int32' },
        },
        required: ['title'],
      },
    },
    hint: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
    nothing: { type: 'null' },
  },
  required: ['reasoning', 'model_choice'],
};

/** Tool parameters in the same style. */
function lookupParameters(): Record<string, unknown> {
  return {
    type: 'OBJECT',
    properties: {
      query: { type: 'STRING' },
      limit: { type: 'INTEGER', nullable: true },
      tags: { type: 'ARRAY', items: { type: 'STRING' } },
      scope: {
        anyOf: [
          { type: 'STRING', enum: ['all'] },
          { type: 'OBJECT', properties: { path: { type: 'STRING' } } },
        ],
        nullable: true,
      },
      labels: { type: 'OBJECT', additionalProperties: { type: 'STRING' } },
    },
    required: ['query'],
    propertyOrdering: ['query', 'limit', 'tags', 'scope', 'labels'],
  };
}

const LOOKUP_JSON_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    limit: { type: ['integer', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    scope: {
      anyOf: [
        { type: 'string', enum: ['all'] },
        { type: 'object', properties: { path: { type: 'string' } } },
        { type: 'null' },
      ],
    },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['query'],
};

const decode = (body: Record<string, unknown>): CanonicalRequest => {
  const result = geminiCodec.decodeRequest(body, { model: 'gemini-2.5-flash', stream: false });
  if (!result.ok) throw new Error(result.message);
  return result.value;
};

const contents = [{ role: 'user', parts: [{ text: 'Route this prompt.' }] }];

function build(adapter: UpstreamAdapter, provider: ProviderId, request: CanonicalRequest): Record<string, unknown> {
  const protocol = adapter.protocol;
  const baseUrl = getProviderPreset(provider).endpoints[protocol]?.baseUrl ?? 'http://upstream.test/v1';
  const { request: http } = adapter.buildRequest(request, {
    baseUrl,
    apiKey: 'sk-test',
    upstreamModel: 'up-model',
    provider: getProviderPreset(provider),
  });
  return JSON.parse(http.body) as Record<string, unknown>;
}

/** The value at a dotted path (`tools.0.function.parameters`) of a parsed body. */
function at(body: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      body,
    );
}

/** Where each upstream carries the response schema and the first tool's parameters. */
const UPSTREAMS: ReadonlyArray<{
  name: string;
  adapter: UpstreamAdapter;
  provider: ProviderId;
  responseSchema: string;
  toolSchema: string;
}> = [
  {
    name: 'openai-chat',
    adapter: openaiChatAdapter,
    provider: 'openai',
    responseSchema: 'response_format.json_schema.schema',
    toolSchema: 'tools.0.function.parameters',
  },
  {
    name: 'openai-responses',
    adapter: openaiResponsesAdapter,
    provider: 'openai',
    responseSchema: 'text.format.schema',
    toolSchema: 'tools.0.parameters',
  },
  {
    name: 'anthropic-messages',
    adapter: anthropicMessagesAdapter,
    provider: 'anthropic',
    responseSchema: 'output_config.format.schema',
    toolSchema: 'tools.0.input_schema',
  },
  {
    name: 'gemini (translated)',
    adapter: geminiAdapter,
    provider: 'gemini',
    responseSchema: 'generationConfig.responseJsonSchema',
    toolSchema: 'tools.0.functionDeclarations.0.parametersJsonSchema',
  },
];

/** No upper-case type name, `nullable` or `propertyOrdering` anywhere in the serialised schema. */
function expectPlainJsonSchema(schema: unknown): void {
  const text = JSON.stringify(schema);
  expect(text).not.toMatch(/"(OBJECT|STRING|ARRAY|INTEGER|NUMBER|BOOLEAN|NULL)"/);
  expect(text).not.toContain('"nullable"');
  expect(text).not.toContain('"propertyOrdering"');
}

describe('Gemini schema normalisation', () => {
  it('turns the Gemini CLI router schema into lower-case JSON Schema without mutating it', () => {
    const input = routerSchema();
    expect(convertGeminiSchema(input)).toStrictEqual(ROUTER_JSON_SCHEMA);
    expect(input).toStrictEqual(routerSchema());
  });

  it('walks every JSON Schema sub-schema keyword and leaves values alone', () => {
    const input = {
      $defs: { item: { type: 'STRING', nullable: true } },
      type: ['OBJECT', 'NULL'],
      nullable: true,
      additionalProperties: { type: 'INTEGER' },
      properties: {
        type: { type: 'STRING', enum: ['OBJECT'], default: 'OBJECT' },
        pair: { type: 'ARRAY', prefixItems: [{ type: 'STRING' }, { $ref: '#/$defs/item' }] },
        either: { oneOf: [{ type: 'BOOLEAN' }], allOf: [{ type: 'BOOLEAN' }], not: { type: 'NULL' } },
      },
      definitions: { legacy: { type: 'NUMBER', propertyOrdering: [] } },
    };
    const before = structuredClone(input);
    expect(convertGeminiSchema(input)).toStrictEqual({
      $defs: { item: { type: ['string', 'null'] } },
      type: ['object', 'null'],
      additionalProperties: { type: 'integer' },
      properties: {
        type: { type: 'string', enum: ['OBJECT'], default: 'OBJECT' },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { $ref: '#/$defs/item' }] },
        either: { oneOf: [{ type: 'boolean' }], allOf: [{ type: 'boolean' }], not: { type: 'null' } },
      },
      definitions: { legacy: { type: 'number' } },
    });
    expect(input).toStrictEqual(before);
  });

  it.each([
    ['responseJsonSchema', { responseMimeType: 'application/json', responseJsonSchema: routerSchema() }],
    ['responseSchema', { responseMimeType: 'application/json', responseSchema: routerSchema() }],
  ])('decodes generationConfig.%s to JSON Schema for every translated upstream', (_field, generationConfig) => {
    const body = { contents, generationConfig };
    const before = structuredClone(body);
    const request = decode(body);
    expect(body).toStrictEqual(before);
    expect(request.responseFormat).toStrictEqual({ type: 'json-schema', name: 'response', schema: ROUTER_JSON_SCHEMA });
    for (const upstream of UPSTREAMS) {
      const schema = at(build(upstream.adapter, upstream.provider, request), upstream.responseSchema);
      expect(schema, upstream.name).toStrictEqual(ROUTER_JSON_SCHEMA);
      expectPlainJsonSchema(schema);
    }
  });

  it.each([
    ['parametersJsonSchema', { name: 'lookup', description: 'Find things', parametersJsonSchema: lookupParameters() }],
    ['parameters', { name: 'lookup', description: 'Find things', parameters: lookupParameters() }],
  ])('decodes functionDeclarations[].%s to JSON Schema for every translated upstream', (_field, declaration) => {
    const body = { contents, tools: [{ functionDeclarations: [declaration] }] };
    const before = structuredClone(body);
    const request = decode(body);
    expect(body).toStrictEqual(before);
    expect(request.tools).toStrictEqual([
      { name: 'lookup', description: 'Find things', parameters: LOOKUP_JSON_SCHEMA },
    ]);
    for (const upstream of UPSTREAMS) {
      const schema = at(build(upstream.adapter, upstream.provider, request), upstream.toolSchema);
      expect(schema, upstream.name).toStrictEqual(LOOKUP_JSON_SCHEMA);
      expectPlainJsonSchema(schema);
    }
  });

  it('keeps snake_case property names in snake_case request bodies', () => {
    const request = decode({
      contents,
      generation_config: {
        response_mime_type: 'application/json',
        response_json_schema: { type: 'OBJECT', properties: { model_choice: { type: 'STRING', nullable: true } } },
      },
    });
    expect(request.responseFormat).toStrictEqual({
      type: 'json-schema',
      name: 'response',
      schema: { type: 'object', properties: { model_choice: { type: ['string', 'null'] } } },
    });
  });
});

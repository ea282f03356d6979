import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import type { ProviderId } from '../../../../gateway/providers/provider-preset.ts';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import type { UpstreamTarget } from '../../../../gateway/upstream/upstream-adapter.ts';

function target(provider: ProviderId = 'anthropic', baseUrl = 'https://api.anthropic.com'): UpstreamTarget {
  return { baseUrl, apiKey: 'sk-test', upstreamModel: 'claude-sonnet-4-5', provider: getProviderPreset(provider) };
}

function request(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    clientFormat: 'openai-chat',
    model: 'alias',
    stream: false,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    ...overrides,
  };
}

function build(req: CanonicalRequest, provider: ProviderId = 'anthropic') {
  const { request: http, notes } = anthropicMessagesAdapter.buildRequest(req, target(provider));
  return {
    http,
    warnings: notes.dropped,
    uncarried: notes.uncarried,
    body: JSON.parse(http.body) as Record<string, unknown>,
  };
}

const TOOL_ROUND_TRIP: CanonicalRequest = request({
  stream: true,
  system: 'You are a weather bot.',
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Need the tool.', signature: 'sig-opaque' },
        { type: 'tool-call', id: 'toolu_01AbC', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Be quick.' },
        { type: 'tool-result', toolCallId: 'toolu_01AbC', content: '{"temp_c":4}' },
      ],
    },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  toolChoice: { type: 'required' },
  parallelToolCalls: false,
  maxOutputTokens: 2048,
  temperature: 0.5,
  stopSequences: ['END'],
  user: 'user-42',
});

describe('anthropicMessagesAdapter.buildRequest', () => {
  it('builds the tool round trip body, tool results first in their user turn', () => {
    const { http, warnings, body } = build(TOOL_ROUND_TRIP);
    expect(warnings).toEqual([]);
    expect(http.url).toBe('https://api.anthropic.com/v1/messages');
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      system: 'You are a weather bot.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Need the tool.', signature: 'sig-opaque' },
            { type: 'tool_use', id: 'toolu_01AbC', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01AbC', content: '{"temp_c":4}' },
            { type: 'text', text: 'Be quick.' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      stop_sequences: ['END'],
      temperature: 0.5,
      metadata: { user_id: 'user-42' },
      stream: true,
    });
  });

  it('sends anthropic-version and x-api-key to Anthropic, forwarding anthropic-beta as a header only', () => {
    const { http, body } = build(
      request({
        anthropicBetas: ['interleaved-thinking-2025-05-14', 'claude-code-20250219'],
        extensions: { service_tier: 'auto' },
      }),
    );
    expect(http.headers).toEqual({
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'x-api-key': 'sk-test',
      'anthropic-beta': 'interleaved-thinking-2025-05-14,claude-code-20250219',
    });
    expect(body['anthropic-beta']).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain('anthropic-beta');
    expect(body.service_tier).toBe('auto');
  });

  it('uses the compat providers’ auth and never forwards anthropic-beta to them', () => {
    const deepseek = build(request({ anthropicBetas: ['x'] }), 'deepseek').http.headers;
    expect(deepseek).toEqual({
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      authorization: 'Bearer sk-test',
      'x-api-key': 'sk-test',
    });
    const mimo = build(request(), 'xiaomi').http.headers;
    expect(mimo).toEqual({
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      authorization: 'Bearer sk-test',
    });
  });

  it('defaults max_tokens per provider quirk', () => {
    expect(build(request()).body.max_tokens).toBe(4096);
    expect(build(request(), 'dashscope').body.max_tokens).toBe(8192);
    expect(build(request({ maxOutputTokens: 77 }), 'dashscope').body.max_tokens).toBe(77);
  });

  it('drops unsigned reasoning for strict providers with a warning, keeps signed and redacted', () => {
    const req = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'unsigned thought' },
            { type: 'reasoning', text: '', redacted: 'EmwKAhgB' },
            { type: 'reasoning', text: 'signed thought', signature: 'sig-1' },
            { type: 'text', text: 'Hello' },
          ],
        },
      ],
    });
    const { body, warnings } = build(req, 'anthropic');
    expect((body.messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: 'EmwKAhgB' },
        { type: 'thinking', thinking: 'signed thought', signature: 'sig-1' },
        { type: 'text', text: 'Hello' },
      ],
    });
    expect(warnings).toEqual([
      'messages.1.content.0: reasoning without a signature cannot be replayed to this upstream; dropped',
    ]);
  });

  it('sends unsigned reasoning with an empty signature to non-strict providers', () => {
    const req = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'thought' },
            { type: 'text', text: 'Hello' },
          ],
        },
      ],
    });
    const { body, warnings } = build(req, 'deepseek');
    expect((body.messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'thought', signature: '' },
        { type: 'text', text: 'Hello' },
      ],
    });
    expect(warnings).toEqual([]);
  });

  it('merges consecutive same-role turns, also after a turn is dropped entirely', () => {
    const req = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'a' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'only unsigned' }] },
        { role: 'user', content: [{ type: 'text', text: 'b' }] },
        { role: 'user', content: [{ type: 'text', text: 'c' }] },
      ],
    });
    const { body, warnings } = build(req, 'anthropic');
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
          { type: 'text', text: 'c' },
        ],
      },
    ]);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toBe('messages.1: nothing left to send in this turn; dropped');
  });

  it('tool arguments that are not a JSON object cannot be carried', () => {
    const req = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 't1', name: 'f', arguments: '[1,2' }] },
      ],
    });
    const { uncarried } = build(req);
    expect(uncarried).toEqual([{ path: 'messages.1.content.0', reason: 'tool call arguments are not a JSON object' }]);
  });

  it('encodes images, documents and tool results with image content and errors', () => {
    const req = request({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { kind: 'url', url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
            {
              type: 'file',
              source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0x', filename: 'x.pdf' },
            },
            { type: 'file', source: { kind: 'file-id', fileId: 'file-abc' } },
            {
              type: 'tool-result',
              toolCallId: 'toolu_9',
              isError: true,
              content: [
                { type: 'text', text: 'boom' },
                { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
              ],
            },
          ],
        },
      ],
    });
    const { body, warnings, uncarried } = build(req);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_9',
            is_error: true,
            content: [
              { type: 'text', text: 'boom' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            ],
          },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' },
            title: 'x.pdf',
          },
        ],
      },
    ]);
    expect(warnings).toEqual([]);
    expect(uncarried).toEqual([
      {
        path: 'messages.0.content.3',
        reason: 'a file id is specific to the provider that issued it and cannot be sent to this upstream',
      },
    ]);
  });

  it('maps tool choices and adds type:object to schemas without one', () => {
    const tools = [{ name: 'noargs', parameters: {} }];
    expect(build(request({ tools })).body.tools).toEqual([{ name: 'noargs', input_schema: { type: 'object' } }]);
    expect(build(request({ tools })).body.tool_choice).toBeUndefined();
    expect(build(request({ tools, toolChoice: { type: 'auto' } })).body.tool_choice).toEqual({ type: 'auto' });
    expect(build(request({ tools, toolChoice: { type: 'none' } })).body.tool_choice).toEqual({ type: 'none' });
    expect(build(request({ tools, toolChoice: { type: 'tool', name: 'noargs' } })).body.tool_choice).toEqual({
      type: 'tool',
      name: 'noargs',
    });
    expect(build(request({ tools, parallelToolCalls: false })).body.tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(build(request({ toolChoice: { type: 'required' } })).body.tool_choice).toBeUndefined();
  });

  it('plans thinking budgets against max_tokens', () => {
    expect(build(request({ reasoning: { enabled: true, budgetTokens: 2000 } })).body).toMatchObject({
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2000 },
    });
    expect(build(request({ reasoning: { budgetTokens: 500 } })).body.thinking).toEqual({
      type: 'enabled',
      budget_tokens: 1024,
    });
    expect(build(request({ reasoning: { budgetTokens: 10000 } })).body).toMatchObject({
      max_tokens: 14096,
      thinking: { type: 'enabled', budget_tokens: 10000 },
    });
    expect(build(request({ reasoning: { effort: 'high' } })).body).toMatchObject({
      max_tokens: 20480,
      thinking: { type: 'enabled', budget_tokens: 16384 },
    });
    expect(build(request({ reasoning: { enabled: true } })).body.thinking).toEqual({
      type: 'enabled',
      budget_tokens: 8192,
    });
    expect(build(request({ reasoning: { enabled: false } })).body.thinking).toEqual({ type: 'disabled' });
    expect(build(request({ reasoning: { effort: 'none' } })).body.thinking).toEqual({ type: 'disabled' });
    expect(build(request({ reasoning: { includeThoughts: true } })).body.thinking).toBeUndefined();

    const lowered = build(request({ maxOutputTokens: 4000, reasoning: { budgetTokens: 10000 } }));
    expect(lowered.body).toMatchObject({ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 3000 } });
    expect(lowered.warnings).toEqual([
      'reasoning: thinking budget lowered from 10000 to 3000 to stay under max_tokens 4000',
    ]);

    const tooSmall = build(request({ maxOutputTokens: 1000, reasoning: { budgetTokens: 2000 } }));
    expect(tooSmall.body.thinking).toBeUndefined();
    expect(tooSmall.body.max_tokens).toBe(1000);
    expect(tooSmall.warnings).toHaveLength(1);
  });

  it('applies the extended-thinking restrictions on sampling and forced tool use', () => {
    const sampled = build(request({ reasoning: { budgetTokens: 2000 }, temperature: 0.3, topP: 0.5, topK: 5 }));
    expect(sampled.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2000 } });
    expect(sampled.body).not.toHaveProperty('temperature');
    expect(sampled.body).not.toHaveProperty('top_p');
    expect(sampled.body).not.toHaveProperty('top_k');
    expect(sampled.warnings).toHaveLength(3);
    expect(build(request({ reasoning: { budgetTokens: 2000 }, temperature: 1, topP: 0.97 })).body).toMatchObject({
      temperature: 1,
      top_p: 0.97,
    });
    const forced = build(
      request({
        reasoning: { budgetTokens: 2000 },
        tools: [{ name: 'f', parameters: { type: 'object' } }],
        toolChoice: { type: 'tool', name: 'f' },
      }),
    );
    expect(forced.body.thinking).toBeUndefined();
    expect(forced.body.tool_choice).toEqual({ type: 'tool', name: 'f' });
    expect(forced.warnings).toEqual([
      'reasoning: thinking cannot be combined with a forced tool choice on Anthropic Messages; thinking not enabled',
    ]);
    expect(build(request({ reasoning: { enabled: false }, temperature: 0.2 })).body.temperature).toBe(0.2);
  });

  it('does not think when the tool-use turn being continued lost its thinking block; keeps thinking when the block is there', () => {
    const tools = [{ name: 'f', parameters: { type: 'object' } }];
    const loop = (assistant: CanonicalRequest['messages'][number]['content']): CanonicalRequest =>
      request({
        reasoning: { budgetTokens: 2000 },
        tools,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Go' }] },
          { role: 'assistant', content: assistant },
          { role: 'user', content: [{ type: 'tool-result', toolCallId: 'toolu_1', content: 'ok' }] },
        ],
      });
    const bare = build(loop([{ type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{}' }]));
    expect(bare.body.thinking).toBeUndefined();
    expect(bare.warnings).toEqual([
      'reasoning: the tool-use turn being continued carries no thinking block (the client did not keep it), which Anthropic Messages requires while thinking is on; thinking not enabled for this request',
    ]);
    const kept = build(
      loop([
        { type: 'reasoning', text: 'Plan.', signature: 'sig' },
        { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{}' },
      ]),
    );
    expect(kept.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
  });

  it('maps JSON schema output to output_config.format; schemaless JSON mode cannot be carried', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(build(request({ responseFormat: { type: 'json-schema', name: 'x', schema } })).body.output_config).toEqual({
      format: { type: 'json_schema', schema },
    });
    const jsonMode = build(request({ responseFormat: { type: 'json-object' } }));
    expect(jsonMode.body.output_config).toBeUndefined();
    expect(jsonMode.uncarried.map((part) => part.path)).toEqual(['response_format']);
  });

  it('passes only Anthropic fields from extensions, drops safe hints with warnings, refuses other vendor fields, omits stream for non-streams', () => {
    const { body, warnings, uncarried } = build(
      request({
        extensions: {
          model: 'evil',
          stream: true,
          service_tier: 'standard_only',
          presence_penalty: 0.5,
          seed: 1,
          tool_stream: true,
          reasoning_split: true,
          logit_bias: { 1: 2 },
        },
      }),
    );
    expect(body.model).toBe('claude-sonnet-4-5');
    expect(body.stream).toBeUndefined();
    expect(body.service_tier).toBe('standard_only');
    expect(Object.keys(body)).not.toEqual(expect.arrayContaining(['presence_penalty']));
    for (const field of ['presence_penalty', 'seed', 'tool_stream', 'reasoning_split', 'logit_bias'])
      expect(body[field]).toBeUndefined();
    expect(warnings).toEqual([
      'extensions.model ignored (set by the gateway)',
      'extensions.stream ignored (set by the gateway)',
      'presence_penalty: not a field of this upstream API; dropped (a sampling hint)',
      'seed: not a field of this upstream API; dropped (a best-effort reproducibility hint)',
      'tool_stream: not a field of this upstream API; dropped (it only chooses whether tool-call arguments stream in pieces)',
      'reasoning_split: not a field of this upstream API; dropped (it only chooses where the provider puts reasoning text; the gateway returns reasoning in the client’s own field)',
    ]);
    expect(uncarried).toEqual([
      { path: 'logit_bias', reason: 'a vendor field that the Anthropic anthropic-messages API does not accept' },
    ]);
  });

  it('reads a vendor thinking extension as a reasoning control when the request has none', () => {
    expect(build(request({ extensions: { thinking: { type: 'enabled' } } })).body.thinking).toEqual({
      type: 'enabled',
      budget_tokens: 8192,
    });
    expect(
      build(request({ extensions: { thinking: { type: 'enabled', budget_tokens: 3000 } } })).body.thinking,
    ).toEqual({ type: 'enabled', budget_tokens: 3000 });
    expect(build(request({ extensions: { thinking: { type: 'disabled' } } })).body.thinking).toEqual({
      type: 'disabled',
    });
    expect(
      build(request({ reasoning: { enabled: false }, extensions: { thinking: { type: 'enabled' } } })).body.thinking,
    ).toEqual({ type: 'disabled' });
  });
});

describe('anthropicMessagesAdapter count tokens', () => {
  it('posts the create body reduced to countable fields', () => {
    const http = anthropicMessagesAdapter.buildCountTokensRequest!(
      TOOL_ROUND_TRIP,
      target('anthropic', 'https://gw.example.com'),
    );
    expect(http.url).toBe('https://gw.example.com/v1/messages/count_tokens');
    const body = JSON.parse(http.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['model', 'system', 'messages', 'tools', 'tool_choice']);
    expect(http.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('reads input_tokens and rejects answers without it', () => {
    expect(anthropicMessagesAdapter.decodeCountTokensResponse!({ input_tokens: 2095 })).toBe(2095);
    expect(() => anthropicMessagesAdapter.decodeCountTokensResponse!({ tokens: 1 })).toThrow(/input_tokens/);
  });
});

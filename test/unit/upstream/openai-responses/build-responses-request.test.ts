import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import type { ProviderId } from '../../../../gateway/providers/provider-preset.ts';
import { openaiResponsesAdapter } from '../../../../gateway/upstream/openai-responses/openai-responses-adapter.ts';
import type { UpstreamTarget } from '../../../../gateway/upstream/upstream-adapter.ts';

const target = (provider: ProviderId, upstreamModel = 'up-model'): UpstreamTarget => ({
  baseUrl: getProviderPreset(provider).endpoints['openai-responses']?.baseUrl ?? 'http://x/v1',
  apiKey: 'sk-test',
  upstreamModel,
  provider: getProviderPreset(provider),
});

const build = (request: CanonicalRequest, provider: ProviderId, model?: string) => {
  const { request: http, notes } = openaiResponsesAdapter.buildRequest(request, target(provider, model));
  return {
    http,
    warnings: notes.dropped,
    uncarried: notes.uncarried,
    body: JSON.parse(http.body) as Record<string, unknown>,
  };
};

const conversation: CanonicalRequest = {
  clientFormat: 'anthropic-messages',
  model: 'alias',
  stream: true,
  system: 'You are a weather bot.',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Oslo?' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4A' } },
        { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER', filename: 'trip.pdf' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Foreign thinking without a signature.' },
        { type: 'reasoning', text: 'Need the tool.', signature: 'gAAAAABenc' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'call_7Hk2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool-result', toolCallId: 'call_7Hk2', content: [{ type: 'text', text: '{"temp_c":4}' }] },
        { type: 'text', text: 'Thanks' },
      ],
    },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
      strict: true,
    },
  ],
  toolChoice: { type: 'tool', name: 'get_weather' },
  maxOutputTokens: 512,
  temperature: 1,
  topP: 0.9,
  stopSequences: ['END'],
  responseFormat: { type: 'json-schema', name: 'weather', schema: { type: 'object' }, strict: true },
  reasoning: { effort: 'low', includeThoughts: true },
  parallelToolCalls: false,
  user: 'u-1',
  metadata: { team: 'a' },
};

const INPUT = [
  {
    type: 'message',
    role: 'user',
    content: [
      { type: 'input_text', text: 'Weather in Oslo?' },
      { type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/4A', detail: 'auto' },
      { type: 'input_file', filename: 'trip.pdf', file_data: 'data:application/pdf;base64,JVBER' },
    ],
  },
  { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Need the tool.' }], encrypted_content: 'gAAAAABenc' },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }] },
  { type: 'function_call', call_id: 'call_7Hk2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
  { type: 'function_call_output', call_id: 'call_7Hk2', output: '{"temp_c":4}' },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
];

describe('openai-responses buildRequest', () => {
  it('openai: full body snapshot (instructions, items, flat tools, text.format, reasoning + include, store:false)', () => {
    const { http, warnings, uncarried, body } = build(conversation, 'openai', 'gpt-5-mini');
    expect(http.url).toBe('https://api.openai.com/v1/responses');
    expect(http.headers).toEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: 'Bearer sk-test',
    });
    expect(body).toEqual({
      model: 'gpt-5-mini',
      instructions: 'You are a weather bot.',
      input: INPUT,
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: true,
        },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
      max_output_tokens: 512,
      temperature: 1,
      top_p: 0.9,
      text: { format: { type: 'json_schema', name: 'weather', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      parallel_tool_calls: false,
      user: 'u-1',
      metadata: { team: 'a' },
      store: false,
      stream: true,
    });
    expect(warnings).toEqual([]);
    expect(uncarried).toEqual([{ path: 'stopSequences', reason: 'the OpenAI Responses API has no stop sequences' }]);
  });

  it('dashscope: dropFields apply (store, metadata); no include for non-OpenAI providers', () => {
    const { http, body } = build(
      { ...conversation, stream: false, extensions: { enable_thinking: true } },
      'dashscope',
      'qwen3-max',
    );
    expect(http.url).toBe('https://dashscope-intl.aliyuncs.com/api/v2/apps/protocols/compatible-mode/v1/responses');
    expect(body.store).toBeUndefined();
    expect(body.metadata).toBeUndefined();
    expect(body.include).toBeUndefined();
    expect(body.stream).toBe(false);
    expect(body.enable_thinking).toBe(true);
  });

  it('tool results with images keep a part list; no system → no instructions; extensions cannot override input', () => {
    const request: CanonicalRequest = {
      clientFormat: 'anthropic-messages',
      model: 'alias',
      stream: false,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              content: [
                { type: 'text', text: 'chart:' },
                { type: 'image', source: { kind: 'url', url: 'https://x/c.png' } },
              ],
            },
          ],
        },
      ],
      toolChoice: { type: 'required' },
      extensions: { input: 'evil', service_tier: 'flex' },
    };
    const { warnings, body } = build(request, 'openai');
    expect(body).toEqual({
      model: 'up-model',
      input: [
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [
            { type: 'input_text', text: 'chart:' },
            { type: 'input_image', image_url: 'https://x/c.png', detail: 'auto' },
          ],
        },
      ],
      tool_choice: 'required',
      store: false,
      stream: false,
      service_tier: 'flex',
    });
    expect(warnings).toEqual(['extensions.input ignored (set by the gateway)']);
  });
});

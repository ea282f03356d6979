import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import type { ProviderId } from '../../../../gateway/providers/provider-preset.ts';
import { openaiChatAdapter } from '../../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import type { UpstreamTarget } from '../../../../gateway/upstream/upstream-adapter.ts';

const target = (provider: ProviderId, upstreamModel = 'up-model'): UpstreamTarget => ({
  baseUrl: getProviderPreset(provider).endpoints['openai-chat']?.baseUrl ?? 'http://x/v1',
  apiKey: 'sk-test',
  upstreamModel,
  provider: getProviderPreset(provider),
});

const build = (request: CanonicalRequest, provider: ProviderId, model?: string) => {
  const { request: http, notes } = openaiChatAdapter.buildRequest(request, target(provider, model));
  return {
    http,
    warnings: notes.dropped,
    uncarried: notes.uncarried,
    body: JSON.parse(http.body) as Record<string, unknown>,
  };
};

/** A tool round trip with reasoning in history: the same conversation for every provider. */
const toolTurn: CanonicalRequest = {
  clientFormat: 'anthropic-messages',
  model: 'alias',
  stream: true,
  system: 'You are a weather bot.',
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Need the tool.', signature: 'sig' },
        { type: 'tool-call', id: 'call_7Hk2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool-result', toolCallId: 'call_7Hk2', content: [{ type: 'text', text: '{"temp_c":4}' }] },
        { type: 'text', text: 'And tomorrow?' },
      ],
    },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
  toolChoice: { type: 'tool', name: 'get_weather' },
  maxOutputTokens: 512,
  temperature: 0.2,
  reasoning: { enabled: true, effort: 'high', budgetTokens: 2048 },
};

const history = (reasoningContent?: string) => [
  { role: 'system', content: 'You are a weather bot.' },
  { role: 'user', content: 'Weather in Oslo?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_7Hk2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ],
    ...(reasoningContent === undefined ? {} : { reasoning_content: reasoningContent }),
  },
  { role: 'tool', tool_call_id: 'call_7Hk2', content: '{"temp_c":4}' },
  { role: 'user', content: 'And tomorrow?' },
];

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

describe('openai-chat buildRequest: provider quirks (body snapshots)', () => {
  it('openai: max_completion_tokens, reasoning_effort, no reasoning replay, bearer auth, usage on streams', () => {
    const { http, warnings, body } = build(toolTurn, 'openai', 'gpt-5');
    expect(http.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(http.headers).toEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: 'Bearer sk-test',
    });
    expect(body).toEqual({
      model: 'gpt-5',
      messages: history(),
      tools: TOOLS,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      max_completion_tokens: 512,
      temperature: 0.2,
      reasoning_effort: 'high',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(warnings).toEqual([
      'reasoning.budgetTokens dropped (provider openai takes no token budget on Chat Completions)',
    ]);
  });

  it('deepseek: max_tokens, thinking + mapped effort, reasoning_content replayed', () => {
    const { http, body } = build(
      { ...toolTurn, reasoning: { enabled: true, effort: 'medium' } },
      'deepseek',
      'deepseek-v4-flash',
    );
    expect(http.url).toBe('https://api.deepseek.com/chat/completions');
    expect(body).toEqual({
      model: 'deepseek-v4-flash',
      messages: history('Need the tool.'),
      tools: TOOLS,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      max_tokens: 512,
      temperature: 0.2,
      thinking: { type: 'enabled' },
      reasoning_effort: 'high',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('dashscope: enable_thinking + thinking_budget, dropFields removed even when sent as extensions', () => {
    const request: CanonicalRequest = {
      ...toolTurn,
      stream: false,
      toolChoice: { type: 'auto' },
      clientFormat: 'openai-chat',
      reasoning: { budgetTokens: 1024 },
      extensions: { store: true, metadata: { a: 'b' }, repetition_penalty: 1.05, model: 'evil' },
    };
    const { http, warnings, body } = build(request, 'dashscope', 'qwen3-max');
    expect(http.headers.accept).toBe('application/json');
    expect(body).toEqual({
      model: 'qwen3-max',
      messages: history('Need the tool.'),
      tools: TOOLS,
      tool_choice: 'auto',
      max_tokens: 512,
      temperature: 0.2,
      enable_thinking: true,
      thinking_budget: 1024,
      repetition_penalty: 1.05,
    });
    expect(warnings).toEqual(['extensions.model ignored (set by the gateway)']);
  });

  it('zhipu: a forced tool_choice cannot be carried (refused by name, not degraded silently)', () => {
    const { warnings, uncarried, body } = build({ ...toolTurn, reasoning: { enabled: false } }, 'zhipu', 'glm-4.6');
    expect(body).toEqual({
      model: 'glm-4.6',
      messages: history('Need the tool.'),
      tools: TOOLS,
      tool_choice: 'auto',
      max_tokens: 512,
      temperature: 0.2,
      thinking: { type: 'disabled' },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(warnings).toEqual([]);
    expect(uncarried).toEqual([
      { path: 'tool_choice', reason: "forcing a tool call ('get_weather') is not supported by this model's provider" },
    ]);
  });

  it("zhipu: tool_choice 'none' is expressed by not sending tools", () => {
    const { warnings, body } = build({ ...toolTurn, toolChoice: { type: 'none' }, reasoning: undefined }, 'zhipu');
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
    expect(warnings).toEqual(["toolChoice 'none' is not supported by provider zhipu; tools were not sent instead"]);
  });

  it('minimax: max_completion_tokens, reasoning dropped silently, effort as reasoning_effort', () => {
    const { warnings, body } = build(
      { ...toolTurn, toolChoice: { type: 'required' }, reasoning: { effort: 'low' } },
      'minimax',
      'MiniMax-M2',
    );
    expect(body).toEqual({
      model: 'MiniMax-M2',
      messages: history(),
      tools: TOOLS,
      tool_choice: 'required',
      max_completion_tokens: 512,
      temperature: 0.2,
      reasoning_effort: 'low',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(warnings).toEqual([]);
  });
});

describe('openai-chat buildRequest: content and controls', () => {
  it('encodes images, files, sampling controls and response_format', () => {
    const request: CanonicalRequest = {
      clientFormat: 'gemini',
      model: 'alias',
      stream: false,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
            { type: 'image', source: { kind: 'url', url: 'https://x/cat.png' } },
            { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER' } },
            { type: 'file', source: { kind: 'file-id', fileId: 'file-abc' } },
            { type: 'file', source: { kind: 'url', url: 'https://x/doc.pdf', mediaType: 'application/pdf' } },
          ],
        },
      ],
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      parallelToolCalls: false,
      user: 'u-1',
      metadata: { k: 'v' },
      responseFormat: { type: 'json-schema', name: 'out', schema: { type: 'object' }, strict: true },
    };
    const { warnings, uncarried, body } = build(request, 'mock');
    expect(body).toEqual({
      model: 'up-model',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
            { type: 'image_url', image_url: { url: 'https://x/cat.png' } },
            { type: 'file', file: { filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBER' } },
            { type: 'file', file: { file_id: 'file-abc' } },
          ],
        },
      ],
      top_p: 0.9,
      stop: ['END'],
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      parallel_tool_calls: false,
      user: 'u-1',
    });
    expect(warnings).toEqual([
      'topK: a sampling hint Chat Completions has no field for; dropped',
      'metadata dropped (not forwarded on Chat Completions)',
    ]);
    expect(uncarried).toEqual([
      {
        path: 'messages.0.content.5',
        reason: 'a file given by URL cannot be sent (Chat Completions accepts files only inline or by file id)',
      },
    ]);
  });

  it('tool results: one tool message each, then their images and the user text in one user message', () => {
    const request: CanonicalRequest = {
      clientFormat: 'anthropic-messages',
      model: 'alias',
      stream: false,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here:' },
            { type: 'tool-result', toolCallId: 'a', content: 'one' },
            {
              type: 'tool-result',
              toolCallId: 'b',
              content: [
                { type: 'text', text: 'x' },
                { type: 'image', source: { kind: 'url', url: 'https://i' } },
                { type: 'text', text: 'y' },
              ],
              isError: true,
            },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Hel' },
            { type: 'text', text: 'lo' },
          ],
        },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'only thinking' }] },
      ],
    };
    const { warnings, body } = build(request, 'openai');
    expect(body.messages).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'one' },
      { role: 'tool', tool_call_id: 'b', content: 'x\ny' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by tool call b:' },
          { type: 'image_url', image_url: { url: 'https://i' } },
          { type: 'text', text: 'Here:' },
        ],
      },
      { role: 'assistant', content: 'Hello' },
      { role: 'assistant', content: '' },
    ]);
    expect(warnings).toEqual([
      "messages.0.content.2: tool-result error flag dropped (Chat Completions has no such flag; the result's text still says what failed)",
    ]);
  });

  it('uses the provider auth scheme and the channel base URL', () => {
    const { request: http } = openaiChatAdapter.buildRequest(toolTurn, {
      ...target('gemini'),
      baseUrl: 'https://gw.example/v1beta/openai',
    });
    expect(http.url).toBe('https://gw.example/v1beta/openai/chat/completions');
    expect(http.headers.authorization).toBe('Bearer sk-test');
  });
});

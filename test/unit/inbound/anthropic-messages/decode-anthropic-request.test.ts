import { describe, expect, it } from 'vitest';
import { anthropicMessagesCodec } from '../../../../gateway/inbound/anthropic-messages/anthropic-messages-codec.ts';

const decode = (body: unknown) => anthropicMessagesCodec.decodeRequest(body, {});

describe('anthropic decodeRequest', () => {
  it('decodes the example request', () => {
    const result = decode({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Need the tool.', signature: 'sig-opaque' },
            { type: 'tool_use', id: 'toolu_01AbC', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01AbC', content: '{"temp_c":4}' }] },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'auto' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      stream: true,
    });
    expect(result).toStrictEqual({
      ok: true,
      value: {
        clientFormat: 'anthropic-messages',
        model: 'claude-sonnet-4-5',
        stream: true,
        system: 'You are a weather bot.',
        maxOutputTokens: 2048,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Need the tool.', signature: 'sig-opaque' },
              { type: 'tool-call', id: 'toolu_01AbC', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            ],
          },
          { role: 'user', content: [{ type: 'tool-result', toolCallId: 'toolu_01AbC', content: '{"temp_c":4}' }] },
        ],
        tools: [
          {
            name: 'get_weather',
            description: 'Current weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
        toolChoice: { type: 'auto' },
        reasoning: { enabled: true, includeThoughts: true, budgetTokens: 1024 },
        // the system block's cache_control: a breakpoint after the system prompt
        promptCacheMarks: { system: '5m', messages: [] },
      },
    });
  });

  it('reads cache_control breakpoints with their lifetimes, turn indices counting non-system messages', () => {
    const result = decode({
      model: 'm',
      max_tokens: 10,
      system: 'plain',
      tools: [
        { name: 'a', input_schema: { type: 'object' } },
        { name: 'b', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: '1h' } },
      ],
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'more', cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: [{ type: 'text', text: 'one', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
        { role: 'assistant', content: 'two' },
        { role: 'user', content: [{ type: 'text', text: 'three', cache_control: { type: 'ephemeral' } }] },
      ],
    });
    expect(result.ok && result.value.promptCacheMarks).toEqual({
      system: '5m',
      tools: '1h',
      messages: [
        { index: 0, ttl: '1h' },
        { index: 2, ttl: '5m' },
      ],
    });
    expect(decode({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).not.toHaveProperty(
      'value.promptCacheMarks',
    );
  });

  it('accepts a missing max_tokens and leaves maxOutputTokens undefined', () => {
    const result = decode({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.maxOutputTokens).toBeUndefined();
      expect(result.value.stream).toBe(false);
      expect(result.warnings).toBeUndefined();
    }
  });

  it('decodes every content block type', () => {
    const result = decode({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'look', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
            { type: 'image', source: { type: 'url', url: 'https://x/a.jpg' } },
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' },
              title: 'x.pdf',
            },
            { type: 'document', source: { type: 'url', url: 'https://x/d.pdf' } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain doc' } },
            {
              type: 'tool_result',
              tool_use_id: 't1',
              is_error: true,
              content: [
                { type: 'text', text: 'failed' },
                { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j' } },
              ],
            },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'EmwK' },
            { type: 'thinking', thinking: 'unsigned' },
          ],
        },
      ],
    });
    expect(result.ok && result.value.messages).toStrictEqual([
      { role: 'assistant', content: [{ type: 'tool-call', id: 't1', name: 'look', arguments: '{}' }] },
      {
        role: 'user',
        content: [
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
          { type: 'image', source: { kind: 'url', url: 'https://x/a.jpg' } },
          { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER', filename: 'x.pdf' } },
          { type: 'file', source: { kind: 'url', url: 'https://x/d.pdf' } },
          { type: 'text', text: 'plain doc' },
          {
            type: 'tool-result',
            toolCallId: 't1',
            isError: true,
            content: [
              { type: 'text', text: 'failed' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j' } },
            ],
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: '', redacted: 'EmwK' },
          { type: 'reasoning', text: 'unsigned' },
        ],
      },
    ]);
  });

  it('moves system-role messages into system and joins system parts with blank lines', () => {
    const result = decode({
      model: 'm',
      system: 'First.',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Second.' }] },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(result.ok && result.value.system).toBe('First.\n\nSecond.');
    expect(result.ok && result.value.messages).toHaveLength(1);
  });

  it('maps sampling, tool choice, thinking variants, metadata and output_config', () => {
    const result = decode({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      thinking: { type: 'adaptive' },
      metadata: { user_id: 'u-1' },
      output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toMatchObject({
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      toolChoice: { type: 'required' },
      parallelToolCalls: false,
      reasoning: { enabled: true, includeThoughts: true, effort: 'high' },
      user: 'u-1',
      responseFormat: { type: 'json-schema', name: 'output', schema: { type: 'object' } },
    });
    const named = decode({
      model: 'm',
      messages: [],
      tool_choice: { type: 'tool', name: 'f' },
      thinking: { type: 'disabled' },
    });
    expect(named.ok && named.value.toolChoice).toStrictEqual({ type: 'tool', name: 'f' });
    expect(named.ok && named.value.reasoning).toStrictEqual({ enabled: false });
    const none = decode({ model: 'm', messages: [], tool_choice: { type: 'none' } });
    expect(none.ok && none.value.toolChoice).toStrictEqual({ type: 'none' });
    expect(none.ok && none.value.parallelToolCalls).toBeUndefined();
  });

  it('names server tools, unknown blocks and hosted capabilities as parts it cannot carry', () => {
    const result = decode({
      model: 'm',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
            { type: 'text', text: 'ok' },
          ],
        },
      ],
      tools: [
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
        { type: 'custom', name: 'f', input_schema: { type: 'object' } },
      ],
      mcp_servers: [{ type: 'url', url: 'https://mcp' }],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.tools).toStrictEqual([{ name: 'f', parameters: { type: 'object' } }]);
    expect(result.value.messages[0]?.content).toStrictEqual([{ type: 'text', text: 'ok' }]);
    expect(result.warnings).toBeUndefined();
    expect(result.uncarried).toStrictEqual([
      { path: 'messages.0.content.0', reason: 'content block type "server_tool_use" has no equivalent on other APIs' },
      { path: 'tools.0', reason: 'server tool "web_search_20250305" runs on Anthropic\'s platform' },
      { path: 'mcp_servers', reason: 'it brings in capabilities hosted by Anthropic' },
    ]);
  });

  it.each([
    [{ messages: [] }, 'model', 'model: required field missing (expected string)'],
    [
      { model: 'm', messages: [{ role: 'user', content: 5 }] },
      'messages.0.content',
      'messages.0.content: expected string or array',
    ],
    [{ model: 'm', max_tokens: 0, messages: [] }, 'max_tokens', undefined],
    [{ model: 'm', max_tokens: 1.5, messages: [] }, 'max_tokens', undefined],
    [{ model: 'm', messages: [{ role: 'bot', content: 'x' }] }, 'messages.0.role', undefined],
    [
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 3 }] }] },
      'messages.0.content.0.text',
      undefined,
    ],
    [
      { model: 'm', messages: [{ role: 'user', content: [{ text: 'no type' }] }] },
      'messages.0.content.0.type',
      undefined,
    ],
    [
      {
        model: 'm',
        messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: 'x' }] }],
      },
      'messages.0.content.0.input',
      undefined,
    ],
    [{ model: 'm', messages: [], tools: [{ name: 'f' }] }, 'tools.0.input_schema', undefined],
    [{ model: 'm', messages: [], thinking: { type: 'enabled' } }, 'thinking.budget_tokens', undefined],
    [{ model: 'm', messages: [], tool_choice: { type: 'sometimes' } }, 'tool_choice.type', undefined],
    ['not an object', '', undefined],
  ])('rejects bad input %# with the field path', (body, param, message) => {
    const result = decode(body);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.param).toBe(param);
    expect(result.message.startsWith(param === '' ? 'body: ' : `${param}: `)).toBe(true);
    if (message !== undefined) expect(result.message).toBe(message);
  });

  it('decodes count_tokens bodies without max_tokens and never as a stream', () => {
    const result = anthropicMessagesCodec.decodeCountTokensRequest?.(
      { model: 'm', max_tokens: 9, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      {},
    );
    expect(result).toStrictEqual({
      ok: true,
      value: {
        clientFormat: 'anthropic-messages',
        model: 'm',
        stream: false,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      },
    });
    expect(anthropicMessagesCodec.encodeCountTokensResponse?.(2095)).toStrictEqual({ input_tokens: 2095 });
  });
});

import { describe, expect, it } from 'vitest';
import { openaiChatCodec } from '../../../../gateway/inbound/openai-chat/openai-chat-codec.ts';

const decode = (body: unknown) => openaiChatCodec.decodeRequest(body, {});

function decodeOk(body: unknown) {
  const result = decode(body);
  if (!result.ok) throw new Error(`expected ok, got ${result.message}`);
  return result;
}

describe('openaiChatCodec.decodeRequest', () => {
  it('decodes a minimal request', () => {
    const result = decodeOk({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    expect(result.value).toEqual({
      clientFormat: 'openai-chat',
      model: 'm',
      stream: false,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
    expect(result.warnings).toBeUndefined();
  });

  it('maps system and developer messages (string or text parts) to system', () => {
    const result = decodeOk({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be terse.' },
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'A' },
            { type: 'text', text: 'B' },
          ],
        },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(result.value.system).toBe('Be terse.\n\nA\n\nB');
  });

  it('decodes user parts: text, image_url, file; names input_audio as a part it cannot carry', () => {
    const result = decodeOk({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/', detail: 'low' } },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
            { type: 'input_audio', input_audio: { data: 'AAA', format: 'wav' } },
            { type: 'file', file: { file_id: 'file-abc' } },
            { type: 'file', file: { filename: 'doc.pdf', file_data: 'data:application/pdf;base64,JVBER' } },
          ],
        },
      ],
    });
    expect(result.value.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/' } },
      { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
      { type: 'file', source: { kind: 'file-id', fileId: 'file-abc' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER', filename: 'doc.pdf' } },
    ]);
    expect(result.uncarried).toEqual([
      {
        path: 'messages.0.content.3',
        reason: "content part type 'input_audio' in user content has no equivalent on other APIs",
      },
    ]);
  });

  it('decodes assistant reasoning_content, content, refusal and tool_calls; merges consecutive tool messages', () => {
    const result = decodeOk({
      model: 'm',
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Two calls.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":4}' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '12:00' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It is 4 °C.' }], refusal: 'Not more.' },
      ],
    });
    expect(result.value.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two calls.' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'call_2', name: 'get_time', arguments: '{}' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', toolName: 'get_weather', content: '{"temp_c":4}' },
          {
            type: 'tool-result',
            toolCallId: 'call_2',
            toolName: 'get_time',
            content: [{ type: 'text', text: '12:00' }],
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'It is 4 °C.' },
          { type: 'text', text: 'Not more.' },
        ],
      },
    ]);
  });

  it('decodes options, vendor extensions and top_k', () => {
    const result = decodeOk({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        { type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object' }, strict: true } },
      ],
      tool_choice: { type: 'function', function: { name: 'f' } },
      parallel_tool_calls: false,
      max_tokens: 100,
      max_completion_tokens: 200,
      temperature: 0.5,
      top_p: 0.8,
      top_k: 40,
      stop: 'END',
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'low',
      user: 'u',
      metadata: { a: 'b' },
      thinking: { type: 'enabled' },
      enable_thinking: true,
      thinking_budget: 1024,
      reasoning_split: true,
      repetition_penalty: 1.1,
      tool_stream: true,
      seed: 7,
    });
    const { messages: _messages, ...rest } = result.value;
    expect(rest).toEqual({
      clientFormat: 'openai-chat',
      model: 'm',
      stream: true,
      tools: [{ name: 'f', description: 'F', parameters: { type: 'object' }, strict: true }],
      toolChoice: { type: 'tool', name: 'f' },
      parallelToolCalls: false,
      maxOutputTokens: 200,
      temperature: 0.5,
      topP: 0.8,
      topK: 40,
      stopSequences: ['END'],
      responseFormat: { type: 'json-schema', name: 'out', schema: { type: 'object' }, strict: true },
      reasoning: { enabled: true, budgetTokens: 1024, effort: 'low' },
      user: 'u',
      metadata: { a: 'b' },
      extensions: {
        thinking: { type: 'enabled' },
        enable_thinking: true,
        thinking_budget: 1024,
        reasoning_split: true,
        repetition_penalty: 1.1,
        tool_stream: true,
        seed: 7,
      },
    });
  });

  it('falls back to max_tokens and accepts stop arrays and string tool choices', () => {
    const result = decodeOk({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 64,
      stop: ['a', 'b'],
      tool_choice: 'none',
      response_format: { type: 'json_object' },
    });
    expect(result.value).toMatchObject({
      maxOutputTokens: 64,
      stopSequences: ['a', 'b'],
      toolChoice: { type: 'none' },
      responseFormat: { type: 'json-object' },
    });
  });

  it('maps legacy functions / function_call and function-role results', () => {
    const result = decodeOk({
      model: 'm',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":1}' } },
        { role: 'function', name: 'lookup', content: 'found' },
      ],
      functions: [{ name: 'lookup', parameters: { type: 'object' } }],
      function_call: { name: 'lookup' },
    });
    expect(result.value.tools).toEqual([{ name: 'lookup', parameters: { type: 'object' } }]);
    expect(result.value.toolChoice).toEqual({ type: 'tool', name: 'lookup' });
    expect(result.value.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 'call_legacy_1', name: 'lookup', arguments: '{"q":1}' }],
      },
      {
        role: 'user',
        content: [{ type: 'tool-result', toolCallId: 'call_legacy_1', toolName: 'lookup', content: 'found' }],
      },
    ]);
  });

  it.each([
    [{ messages: [{ role: 'user', content: 'x' }] }, 'model', 'model: missing required parameter'],
    [{ model: 1, messages: [] }, 'model', 'model: expected string, received number'],
    [{ model: 'm' }, 'messages', 'messages: missing required parameter'],
    [{ model: 'm', messages: [] }, 'messages', 'messages: must contain at least one message'],
    [
      { model: 'm', messages: [{ role: 'system', content: 'only system' }] },
      'messages',
      'messages: must contain at least one user, assistant or tool message',
    ],
    [{ model: 'm', messages: [null] }, 'messages.0', 'messages.0: expected an object'],
    [{ model: 'm', messages: [{ role: 'wizard', content: 'x' }] }, 'messages.0.role', undefined],
    [
      { model: 'm', messages: [{ role: 'user', content: 5 }] },
      'messages.0.content',
      'messages.0.content: expected string or array',
    ],
    [
      { model: 'm', messages: [{ role: 'user', content: [{ text: 'no type' }] }] },
      'messages.0.content.0',
      'messages.0.content.0: expected an object with a string `type`',
    ],
    [
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] },
      'messages.0.content.0.image_url',
      undefined,
    ],
    [
      {
        model: 'm',
        messages: [{ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }],
      },
      'messages.0.tool_calls.0.id',
      'messages.0.tool_calls.0.id: missing required parameter',
    ],
    [
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      'messages.0.tool_call_id',
      'messages.0.tool_call_id: missing required parameter',
    ],
    [{ model: 'm', messages: [{ role: 'user', content: 'x' }], n: 2 }, 'n', 'n: only n=1 is supported'],
    [
      { model: 'm', messages: [{ role: 'user', content: 'x' }], stop: 3 },
      'stop',
      'stop: expected string or array of strings',
    ],
    [
      { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: {} }] },
      'tools.0.function.name',
      'tools.0.function.name: missing required parameter',
    ],
    [
      { model: 'm', messages: [{ role: 'user', content: 'x' }], tool_choice: { type: 'function' } },
      'tool_choice.function.name',
      'tool_choice.function.name: expected a non-empty string',
    ],
    [
      { model: 'm', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'yaml' } },
      'response_format.type',
      undefined,
    ],
    [{ model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: -1 }, 'max_tokens', undefined],
  ])('rejects %j at %s', (body, param, message) => {
    const result = decode(body);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.param).toBe(param);
    if (message !== undefined) expect(result.message).toBe(message);
  });

  it('tolerates unknown fields', () => {
    expect(
      decode({
        model: 'm',
        messages: [{ role: 'user', content: 'x', name: 'bob' }],
        modalities: ['text'],
        brand_new: 1,
      }).ok,
    ).toBe(true);
  });
});

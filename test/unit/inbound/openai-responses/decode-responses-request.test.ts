import { describe, expect, it } from 'vitest';
import { openaiResponsesCodec } from '../../../../gateway/inbound/openai-responses/openai-responses-codec.ts';

const decode = (body: unknown) => openaiResponsesCodec.decodeRequest(body, {});

function decodeOk(body: unknown) {
  const result = decode(body);
  if (!result.ok) throw new Error(`expected ok, got ${result.message}`);
  return result;
}

describe('openaiResponsesCodec.decodeRequest', () => {
  it('decodes a string input as one user text message', () => {
    const result = decodeOk({ model: 'm', input: 'What is 2+2?' });
    expect(result.value).toEqual({
      clientFormat: 'openai-responses',
      model: 'm',
      stream: false,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is 2+2?' }] }],
    });
    expect(result.warnings).toBeUndefined();
  });

  it('joins instructions and system/developer messages into system, in order', () => {
    const result = decodeOk({
      model: 'm',
      instructions: 'Be terse.',
      input: [
        { role: 'system', content: 'Rule one.' },
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Rule two.' }] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(result.value.system).toBe('Be terse.\n\nRule one.\n\nRule two.');
    expect(result.value.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('decodes user parts: text, image by URL and data URL, file by id and by data', () => {
    const result = decodeOk({
      model: 'm',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Describe' },
            { type: 'input_image', image_url: 'https://x/cat.png', detail: 'auto' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBOR' },
            { type: 'input_file', file_id: 'file-1' },
            { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBER' },
          ],
        },
      ],
    });
    expect(result.value.messages[0]?.content).toEqual([
      { type: 'text', text: 'Describe' },
      { type: 'image', source: { kind: 'url', url: 'https://x/cat.png' } },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
      { type: 'file', source: { kind: 'file-id', fileId: 'file-1' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER', filename: 'a.pdf' } },
    ]);
  });

  it('merges assistant history, reasoning and function calls into one assistant turn and tool outputs into one user turn', () => {
    const result = decodeOk({
      model: 'm',
      input: [
        { role: 'user', content: 'Weather in Oslo and Bergen?' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'Two cities.' }],
          encrypted_content: 'gAAAA',
        },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Checking.', annotations: [] },
            { type: 'refusal', refusal: 'No.' },
          ],
        },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Bergen"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temp_c":4}' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'rain' }] },
      ],
    });
    expect(result.value.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two cities.', signature: 'gAAAA' },
          { type: 'text', text: 'Checking.' },
          { type: 'text', text: 'No.' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Bergen"}' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', toolName: 'get_weather', content: '{"temp_c":4}' },
          {
            type: 'tool-result',
            toolCallId: 'call_2',
            toolName: 'get_weather',
            content: [{ type: 'text', text: 'rain' }],
          },
        ],
      },
    ]);
  });

  it('restores a redacted reasoning block from the gateway encrypted_content prefix', () => {
    const result = decodeOk({
      model: 'm',
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', summary: [], encrypted_content: 'tollgate-redacted:EqQB' },
      ],
    });
    expect(result.value.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'reasoning', text: '', redacted: 'EqQB' }],
    });
  });

  it('names item_reference, unknown items, built-in tools and unsupported parts as parts it cannot carry', () => {
    const result = decodeOk({
      model: 'm',
      input: [
        { type: 'item_reference', id: 'msg_abc' },
        { type: 'web_search_call', id: 'ws_1' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'hi' },
            { type: 'input_audio', input_audio: {} },
          ],
        },
      ],
      tools: [
        { type: 'file_search', vector_store_ids: ['vs_1'] },
        { type: 'function', name: 'f' },
        { type: 'web_search' },
        { type: 'tool_search', execution: 'client' },
      ],
    });
    expect(result.value.tools).toEqual([{ name: 'f', parameters: { type: 'object', properties: {} } }]);
    expect(result.value.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    expect(result.warnings).toEqual([
      "tools.2: built-in tool 'web_search' is only offered, not required; left out",
      "tools.3: built-in tool 'tool_search' is only offered, not required; left out",
    ]);
    expect(result.uncarried).toEqual([
      { path: 'input.0', reason: 'an item_reference points at an item stored by the upstream' },
      { path: 'input.1', reason: "input item type 'web_search_call' has no equivalent on other APIs" },
      {
        path: 'input.2.content.1',
        reason: "content part type 'input_audio' in user content has no equivalent on other APIs",
      },
      {
        path: 'tools.0',
        reason: "built-in tool type 'file_search' runs inside OpenAI's platform and has no equivalent elsewhere",
      },
    ]);
    // Web search and tool search are only offered: left out with a note, not refused.
    const offered = decodeOk({
      model: 'm',
      input: 'hi',
      tools: [{ type: 'web_search' }, { type: 'tool_search', execution: 'client' }, { type: 'function', name: 'f' }],
    });
    expect(offered.uncarried).toBeUndefined();
    expect(offered.warnings).toEqual([
      "tools.0: built-in tool 'web_search' is only offered, not required; left out",
      "tools.1: built-in tool 'tool_search' is only offered, not required; left out",
    ]);
  });

  it('decodes options: tools, tool_choice, limits, sampling, reasoning, text.format, user, metadata, stream', () => {
    const result = decodeOk({
      model: 'm',
      input: 'x',
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: true,
        },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      max_output_tokens: 512,
      temperature: 0.2,
      top_p: 0.9,
      reasoning: { effort: 'high', summary: 'auto' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      user: 'u1',
      metadata: { k: 'v' },
      stream: true,
      store: false,
    });
    const { messages: _messages, ...rest } = result.value;
    expect(rest).toEqual({
      clientFormat: 'openai-responses',
      model: 'm',
      stream: true,
      tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: true,
        },
      ],
      toolChoice: { type: 'tool', name: 'get_weather' },
      parallelToolCalls: false,
      maxOutputTokens: 512,
      temperature: 0.2,
      topP: 0.9,
      reasoning: { effort: 'high', includeThoughts: true },
      responseFormat: { type: 'json-schema', name: 'out', schema: { type: 'object' }, strict: true },
      user: 'u1',
      metadata: { k: 'v' },
    });
  });

  it('maps string tool choices, json_object and effort none', () => {
    const result = decodeOk({
      model: 'm',
      input: 'x',
      tool_choice: 'required',
      text: { format: { type: 'json_object' } },
      reasoning: { effort: 'none' },
    });
    expect(result.value.toolChoice).toEqual({ type: 'required' });
    expect(result.value.responseFormat).toEqual({ type: 'json-object' });
    expect(result.value.reasoning).toEqual({ enabled: false, effort: 'none' });
  });

  it.each([
    [{ input: 'x' }, 'model', 'model: missing required parameter'],
    [{ model: '', input: 'x' }, 'model', 'model: must not be empty'],
    [{ model: 3, input: 'x' }, 'model', 'model: expected string, received number'],
    [{ model: 'm' }, 'input', 'input: missing required parameter'],
    [{ model: 'm', input: 5 }, 'input', 'input: expected string or array'],
    [{ model: 'm', input: [] }, 'input', 'input: must contain at least one user, assistant or tool item'],
    [{ model: 'm', input: ['hi'] }, 'input.0', 'input.0: expected an object'],
    [{ model: 'm', input: [{ role: 'robot', content: 'x' }] }, 'input.0.role', undefined],
    [
      { model: 'm', input: [{ role: 'user', content: 7 }] },
      'input.0.content',
      'input.0.content: expected string or array',
    ],
    [
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text' }] }] },
      'input.0.content.0.text',
      'input.0.content.0.text: missing required parameter',
    ],
    [
      { model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
      'input.0.call_id',
      'input.0.call_id: missing required parameter',
    ],
    [
      { model: 'm', input: [{ type: 'function_call_output', call_id: 'c', output: 1 }] },
      'input.0.output',
      'input.0.output: expected string or array',
    ],
    [
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image' }] }] },
      'input.0.content.0',
      'input.0.content.0: input_image needs `image_url` or `file_id`',
    ],
    [{ model: 'm', input: 'x', temperature: 'hot' }, 'temperature', 'temperature: expected number, received string'],
    [
      { model: 'm', input: 'x', tools: [{ type: 'function' }] },
      'tools.0.name',
      'tools.0.name: missing required parameter',
    ],
    [
      { model: 'm', input: 'x', tool_choice: 'sometimes' },
      'tool_choice',
      "tool_choice: expected 'none', 'auto', 'required' or an object, got 'sometimes'",
    ],
    [
      { model: 'm', input: 'x', text: { format: { type: 'json_schema', schema: {} } } },
      'text.format.name',
      'text.format.name: missing required parameter',
    ],
    [{ model: 'm', input: 'x', metadata: { k: 1 } }, 'metadata.k', 'metadata.k: expected string, received number'],
  ])('rejects %j at %s', (body, param, message) => {
    const result = decode(body);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.param).toBe(param);
    if (message !== undefined) expect(result.message).toBe(message);
  });

  it('rejects a non-object body without a param', () => {
    expect(decode([1])).toEqual({ ok: false, message: 'request body must be a JSON object' });
  });

  it('leaves previous_response_id to the route (stored-responses resolves it before decoding)', () => {
    expect(decode({ model: 'm', previous_response_id: 'resp_123', input: 'more' }).ok).toBe(true);
  });

  it('tolerates unknown fields', () => {
    expect(
      decode({ model: 'm', input: 'x', brand_new_field: { a: 1 }, include: ['reasoning.encrypted_content'] }).ok,
    ).toBe(true);
  });
});

describe('openaiResponsesCodec count tokens', () => {
  it('decodes an input_tokens body with stream forced off and encodes the count', () => {
    const result = openaiResponsesCodec.decodeCountTokensRequest?.({ model: 'm', input: 'x', stream: true }, {});
    expect(result?.ok && result.value.stream).toBe(false);
    expect(openaiResponsesCodec.encodeCountTokensResponse?.(42)).toEqual({
      object: 'response.input_tokens',
      input_tokens: 42,
    });
  });

  it('takes the model from hints when the body has none', () => {
    const result = openaiResponsesCodec.decodeCountTokensRequest?.({ input: 'x' }, { model: 'hinted' });
    expect(result?.ok && result.value.model).toBe('hinted');
  });
});

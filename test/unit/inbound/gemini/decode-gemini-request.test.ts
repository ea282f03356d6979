import { describe, expect, it } from 'vitest';
import { geminiCodec } from '../../../../gateway/inbound/gemini/gemini-codec.ts';
import { normalizeGeminiKeys } from '../../../../gateway/inbound/gemini/normalize-gemini-keys.ts';

const decode = (body: unknown, stream = false) =>
  geminiCodec.decodeRequest(body, { model: 'gemini-2.5-flash', stream });

const weatherParameters = {
  type: 'OBJECT',
  properties: { city: { type: 'STRING', description: 'City name' }, days: { type: 'INTEGER', nullable: true } },
  required: ['city'],
};

describe('gemini decodeRequest', () => {
  it('decodes the example request', () => {
    const result = decode(
      {
        systemInstruction: { parts: [{ text: 'You are a weather bot.' }] },
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 4, sky: 'rain' } } }],
          },
        ],
        tools: [
          {
            functionDeclarations: [
              { name: 'get_weather', description: 'Current weather', parameters: weatherParameters },
            ],
          },
        ],
        generationConfig: {
          temperature: 0.7,
          maxOutputTokens: 1024,
          thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
        },
      },
      true,
    );
    expect(result).toStrictEqual({
      ok: true,
      value: {
        clientFormat: 'gemini',
        model: 'gemini-2.5-flash',
        stream: true,
        system: 'You are a weather bot.',
        maxOutputTokens: 1024,
        temperature: 0.7,
        reasoning: { enabled: true, budgetTokens: 512, includeThoughts: true },
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
          {
            role: 'assistant',
            content: [{ type: 'tool-call', id: 'call_1_0', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'call_1_0',
                toolName: 'get_weather',
                content: '{"temp_c":4,"sky":"rain"}',
              },
            ],
          },
        ],
        tools: [
          {
            name: 'get_weather',
            description: 'Current weather',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string', description: 'City name' }, days: { type: ['integer', 'null'] } },
              required: ['city'],
            },
          },
        ],
      },
    });
  });

  it('accepts snake_case field names but keeps argument and property names as written', () => {
    const result = decode({
      system_instruction: { parts: [{ text: 'sys' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { inline_data: { mime_type: 'image/png', data: 'iVBO' } },
            { file_data: { mime_type: 'application/pdf', file_uri: 'https://f/abc' } },
          ],
        },
        {
          role: 'model',
          parts: [{ function_call: { name: 'f', args: { snake_arg: 1 } }, thought_signature: 'sig-fc' }],
        },
        { role: 'function', parts: [{ function_response: { name: 'f', response: { result_value: 2 } } }] },
      ],
      tools: [
        {
          function_declarations: [
            {
              name: 'f',
              parameters: {
                type: 'OBJECT',
                properties: { snake_arg: { type: 'NUMBER' } },
                property_ordering: ['snake_arg'],
              },
            },
          ],
        },
      ],
      tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['f'] } },
      generation_config: {
        max_output_tokens: 50,
        top_p: 0.5,
        top_k: 20,
        stop_sequences: ['x'],
        response_mime_type: 'application/json',
        thinking_config: { thinking_budget: 0 },
      },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toMatchObject({
      system: 'sys',
      maxOutputTokens: 50,
      topP: 0.5,
      topK: 20,
      stopSequences: ['x'],
      responseFormat: { type: 'json-object' },
      reasoning: { enabled: false },
      toolChoice: { type: 'tool', name: 'f' },
      tools: [{ name: 'f', parameters: { type: 'object', properties: { snake_arg: { type: 'number' } } } }],
    });
    expect(result.value.messages).toStrictEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
          { type: 'file', source: { kind: 'url', url: 'https://f/abc', mediaType: 'application/pdf' } },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 'call_1_0', name: 'f', arguments: '{"snake_arg":1}', signature: 'sig-fc' }],
      },
      {
        role: 'user',
        content: [{ type: 'tool-result', toolCallId: 'call_1_0', toolName: 'f', content: '{"result_value":2}' }],
      },
    ]);
  });

  it('normalises keys without touching opaque objects', () => {
    expect(
      normalizeGeminiKeys({
        generation_config: {
          response_json_schema: { properties: { a_b: { type: 'string' } } },
          response_schema: { type: 'OBJECT', any_of: [{ max_items: '3' }], properties: { c_d: { min_length: 1 } } },
        },
        contents: [{ parts: [{ function_call: { name: 'f', args: { x_y: { z_w: 1 } } } }] }],
      }),
    ).toStrictEqual({
      generationConfig: {
        responseJsonSchema: { properties: { a_b: { type: 'string' } } },
        responseSchema: { type: 'OBJECT', anyOf: [{ maxItems: '3' }], properties: { c_d: { minLength: 1 } } },
      },
      contents: [{ parts: [{ functionCall: { name: 'f', args: { x_y: { z_w: 1 } } } }] }],
    });
  });

  it('maps thoughts, signatures, parallel calls with ids and name+order matching', () => {
    const result = decode({
      contents: [
        { parts: [{ text: 'Go' }] },
        {
          role: 'model',
          parts: [
            { text: 'Thinking about it', thought: true, thoughtSignature: 'sig-t' },
            { functionCall: { name: 'f', args: {}, id: 'given-1' } },
            { functionCall: { name: 'f', args: { n: 2 } } },
            { functionCall: { name: 'g' } },
            { text: 'Done.', thoughtSignature: 'sig-text' },
            { text: '' },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'g', response: { ok: true } } },
            { functionResponse: { name: 'f', response: { n: 1 }, id: 'given-1' } },
            { functionResponse: { name: 'f', response: { n: 2 } } },
          ],
        },
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.messages).toStrictEqual([
      { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Thinking about it', signature: 'sig-t' },
          { type: 'tool-call', id: 'given-1', name: 'f', arguments: '{}' },
          { type: 'tool-call', id: 'call_1_2', name: 'f', arguments: '{"n":2}' },
          { type: 'tool-call', id: 'call_1_3', name: 'g', arguments: '{}' },
          { type: 'reasoning', text: '', signature: 'sig-text' },
          { type: 'text', text: 'Done.' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool-result', toolCallId: 'call_1_3', toolName: 'g', content: '{"ok":true}' },
          { type: 'tool-result', toolCallId: 'given-1', toolName: 'f', content: '{"n":1}' },
          { type: 'tool-result', toolCallId: 'call_1_2', toolName: 'f', content: '{"n":2}' },
        ],
      },
    ]);
    expect(result.warnings).toBeUndefined();
  });

  it('refuses a function response that answers no earlier function call, by name or by id', () => {
    const call = { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] };
    const byName = decode({
      contents: [
        { parts: [{ text: 'Go' }] },
        call,
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'f', response: {} } }, { functionResponse: { name: 'h', response: {} } }],
        },
      ],
    });
    expect(byName).toEqual({
      ok: false,
      param: 'contents.2.parts.1.functionResponse.name',
      message:
        "contents.2.parts.1.functionResponse.name: no functionCall named 'h' earlier in the conversation is left unanswered; a function response must answer a function call made earlier in the conversation",
    });
    const answeredTwice = decode({
      contents: [
        { parts: [{ text: 'Go' }] },
        call,
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] },
      ],
    });
    expect(answeredTwice.ok || answeredTwice.param).toBe('contents.3.parts.0.functionResponse.name');
    const byId = decode({
      contents: [
        { parts: [{ text: 'Go' }] },
        call,
        { role: 'user', parts: [{ functionResponse: { id: 'call_9', name: 'f', response: {} } }] },
      ],
    });
    expect(byId.ok || byId.message).toMatch(
      /^contents\.2\.parts\.0\.functionResponse\.id: no functionCall earlier in the conversation has the id 'call_9'/,
    );
  });

  it('maps response schemas, thinking levels and tool modes; warns about what it drops', () => {
    const result = decode({
      contents: [
        { role: 'user', parts: [{ text: 'x' }, { executableCode: { language: 'PYTHON', code: 'print(1)' } }] },
      ],
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: '5' },
        thinkingConfig: { thinkingLevel: 'LOW', includeThoughts: false },
        seed: 3,
      },
      tools: [{ googleSearch: {} }, { functionDeclarations: [{ name: 'noargs' }], codeExecution: {} }],
      toolConfig: { functionCallingConfig: { mode: 'NONE' } },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.responseFormat).toStrictEqual({
      type: 'json-schema',
      name: 'response',
      schema: { type: 'array', items: { type: 'string' }, maxItems: 5 },
    });
    expect(result.value.reasoning).toStrictEqual({ enabled: true, effort: 'low', includeThoughts: false });
    expect(result.value.tools).toStrictEqual([{ name: 'noargs', parameters: { type: 'object', properties: {} } }]);
    expect(result.value.toolChoice).toStrictEqual({ type: 'none' });
    expect(result.warnings).toStrictEqual([
      'generationConfig.seed: a sampling hint the gateway does not carry; dropped',
      'safetySettings: other providers apply their own safety policies; dropped',
    ]);
    expect(result.uncarried).toStrictEqual([
      {
        path: 'contents.0.parts.1',
        reason: "executableCode/codeExecutionResult parts belong to Gemini's own code execution",
      },
      { path: 'tools.0', reason: "googleSearch is Gemini's built-in tooling" },
      { path: 'tools.1', reason: "codeExecution is Gemini's built-in tooling" },
    ]);
    const dynamic = decode({
      contents: [{ parts: [{ text: 'x' }] }],
      generationConfig: { thinkingConfig: { thinkingBudget: -1 }, responseJsonSchema: { type: 'object' } },
    });
    expect(dynamic.ok && dynamic.value.reasoning).toStrictEqual({ enabled: true });
    expect(dynamic.ok && dynamic.value.responseFormat).toStrictEqual({
      type: 'json-schema',
      name: 'response',
      schema: { type: 'object' },
    });
    const any = decode({
      contents: [{ parts: [{ text: 'x' }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
    expect(any.ok && any.value.toolChoice).toStrictEqual({ type: 'required' });
  });

  it.each([
    [
      { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { candidateCount: 2 } },
      'generationConfig.candidateCount',
    ],
    [{ contents: [] }, 'contents'],
    [{}, 'contents'],
    [{ contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, 'contents.0.role'],
    [{ contents: [{ parts: 'x' }] }, 'contents.0.parts'],
    [{ contents: [{ parts: [{ inline_data: { data: 'x' } }] }] }, 'contents.0.parts.0.inlineData.mimeType'],
    [{ contents: [{ parts: [{ functionCall: { name: 'f', args: [1] } }] }] }, 'contents.0.parts.0.functionCall.args'],
    [
      { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { maxOutputTokens: 0 } },
      'generationConfig.maxOutputTokens',
    ],
    [
      { contents: [{ parts: [{ text: 'x' }] }], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } },
      'toolConfig.functionCallingConfig.mode',
    ],
    [[1], ''],
  ])('rejects bad input %# with the field path', (body, param) => {
    const result = decode(body);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.param).toBe(param);
    expect(result.message.startsWith(param === '' ? 'body: ' : `${param}: `)).toBe(true);
  });

  it('requires the model from the path', () => {
    expect(geminiCodec.decodeRequest({ contents: [{ parts: [{ text: 'x' }] }] }, {})).toMatchObject({
      ok: false,
      param: 'model',
    });
  });
});

describe('gemini countTokens', () => {
  it('decodes {contents} and {generateContentRequest}', () => {
    const plain = geminiCodec.decodeCountTokensRequest?.(
      { contents: [{ role: 'user', parts: [{ text: 'How many tokens?' }] }] },
      { model: 'gemini-2.5-flash' },
    );
    expect(plain).toStrictEqual({
      ok: true,
      value: {
        clientFormat: 'gemini',
        model: 'gemini-2.5-flash',
        stream: false,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'How many tokens?' }] }],
      },
    });
    const wrapped = geminiCodec.decodeCountTokensRequest?.(
      {
        generate_content_request: {
          model: 'models/gemini-x',
          contents: [{ parts: [{ text: 'a' }] }],
          system_instruction: { parts: [{ text: 's' }] },
        },
      },
      {},
    );
    expect(wrapped).toStrictEqual({
      ok: true,
      value: {
        clientFormat: 'gemini',
        model: 'gemini-x',
        stream: false,
        system: 's',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }] }],
      },
    });
    const bad = geminiCodec.decodeCountTokensRequest?.(
      { generateContentRequest: { contents: [{ parts: 1 }] } },
      { model: 'm' },
    );
    expect(bad).toMatchObject({ ok: false, param: 'generateContentRequest.contents.0.parts' });
    expect(geminiCodec.encodeCountTokensResponse?.(31)).toStrictEqual({
      totalTokens: 31,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 31 }],
    });
  });
});

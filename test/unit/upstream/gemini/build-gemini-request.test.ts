import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { geminiAdapter } from '../../../../gateway/upstream/gemini/gemini-adapter.ts';
import type { UpstreamTarget } from '../../../../gateway/upstream/upstream-adapter.ts';

const BASE = 'https://generativelanguage.googleapis.com';

function target(upstreamModel = 'gemini-2.5-flash'): UpstreamTarget {
  return { baseUrl: BASE, apiKey: 'AIza-test', upstreamModel, provider: getProviderPreset('gemini') };
}

function request(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    clientFormat: 'anthropic-messages',
    model: 'alias',
    stream: false,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    ...overrides,
  };
}

function build(req: CanonicalRequest, model?: string) {
  const { request: http, notes } = geminiAdapter.buildRequest(req, target(model));
  return {
    http,
    warnings: notes.dropped,
    uncarried: notes.uncarried,
    body: JSON.parse(http.body) as Record<string, unknown>,
  };
}

const TOOL_ROUND_TRIP = request({
  system: 'You are a weather bot.',
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Need the tool.' },
        { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', signature: 'CiQB-sig' },
      ],
    },
    { role: 'user', content: [{ type: 'tool-result', toolCallId: 'call_1', content: '{"temp_c":4,"sky":"rain"}' }] },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  toolChoice: { type: 'auto' },
  maxOutputTokens: 1024,
  temperature: 0.7,
  topP: 0.9,
  topK: 40,
  stopSequences: ['END'],
  reasoning: { budgetTokens: 512, includeThoughts: true },
});

describe('geminiAdapter.buildRequest', () => {
  it('builds the tool round trip body: name lookup, signature echo, camelCase config', () => {
    const { http, body, warnings } = build(TOOL_ROUND_TRIP);
    expect(warnings).toEqual([]);
    expect(http.url).toBe(`${BASE}/v1beta/models/gemini-2.5-flash:generateContent`);
    expect(http.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' });
    expect(body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { name: 'get_weather', args: { city: 'Oslo' }, id: 'call_1' },
              thoughtSignature: 'CiQB-sig',
            },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 4, sky: 'rain' }, id: 'call_1' } }],
        },
      ],
      systemInstruction: { parts: [{ text: 'You are a weather bot.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather',
              parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: {
        maxOutputTokens: 1024,
        temperature: 0.7,
        topP: 0.9,
        topK: 40,
        stopSequences: ['END'],
        thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
      },
    });
  });

  it('gives the first function call of a model turn without a signature the documented dummy one', () => {
    const foreign = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            { type: 'tool-call', id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Bergen"}' },
          ],
        },
      ],
    });
    const parts = (build(foreign).body.contents as Array<{ parts: Array<Record<string, unknown>> }>)[1]?.parts;
    expect(parts?.map((part) => part.thoughtSignature)).toEqual(['skip_thought_signature_validator', undefined]);
  });

  it('streams with alt=sse and keeps slashes of model ids, encoding each segment', () => {
    expect(build(request({ stream: true })).http.url).toBe(
      `${BASE}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
    );
    expect(build(request(), 'qwen/qwen3 max').http.url).toBe(`${BASE}/v1beta/models/qwen/qwen3%20max:generateContent`);
    expect(build(request(), 'tunedModels/my-model').http.url).toBe(
      `${BASE}/v1beta/tunedModels/my-model:generateContent`,
    );
  });

  it('names tool results by toolName, else by the call id, and wraps non-object results', () => {
    const { body, warnings } = build(
      request({
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'lookup', arguments: '{}' }] },
          {
            role: 'user',
            content: [
              { type: 'tool-result', toolCallId: 'c1', content: '4°C, rain' },
              { type: 'tool-result', toolCallId: 'c2', toolName: 'explicit', content: '[1,2]' },
              {
                type: 'tool-result',
                toolCallId: 'c3',
                content: [
                  { type: 'text', text: '{"ok":' },
                  { type: 'text', text: 'false}' },
                ],
                isError: true,
              },
            ],
          },
        ],
      }),
    );
    expect((body.contents as Array<{ parts: unknown[] }>)[1]?.parts).toEqual([
      { functionResponse: { name: 'lookup', response: { result: '4°C, rain' }, id: 'c1' } },
      { functionResponse: { name: 'explicit', response: { result: '[1,2]' }, id: 'c2' } },
      { functionResponse: { name: 'c3', response: { error: { ok: false } }, id: 'c3' } },
    ]);
    expect(warnings).toEqual([
      'messages.1.content.2: no tool call with id c3 names this result; sent with the id as its name',
    ]);
  });

  it('replays signed reasoning only, as Gemini sent it; merges same-role turns', () => {
    const { body, warnings } = build(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'a' }] },
          { role: 'user', content: [{ type: 'text', text: 'b' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'unsigned' },
              { type: 'reasoning', text: 'summary', signature: 'sig-thought' },
              { type: 'text', text: 'Hi there!' },
              { type: 'reasoning', text: '', signature: 'sig-bare' },
              { type: 'reasoning', text: '', redacted: 'EmwK' },
            ],
          },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      {
        role: 'model',
        parts: [
          { text: 'summary', thought: true, thoughtSignature: 'sig-thought' },
          { text: 'Hi there!' },
          { text: '', thoughtSignature: 'sig-bare' },
        ],
      },
    ]);
    expect(warnings).toEqual(['messages.2.content.4: redacted reasoning cannot be sent to Gemini; dropped']);
  });

  it('encodes images and files as inlineData / fileData', () => {
    const { body, warnings, uncarried } = build(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
              { type: 'image', source: { kind: 'url', url: 'data:image/webp;base64,UklGR' } },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png?x=1' } },
              {
                type: 'file',
                source: { kind: 'url', url: 'https://generativelanguage.googleapis.com/v1beta/files/abc' },
              },
              { type: 'file', source: { kind: 'file-id', fileId: 'file-123' } },
            ],
          },
        ],
      }),
    );
    expect((body.contents as Array<{ parts: unknown[] }>)[0]?.parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'iVBOR' } },
      { inlineData: { mimeType: 'image/webp', data: 'UklGR' } },
      { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.png?x=1' } },
      {
        fileData: {
          mimeType: 'application/pdf',
          fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc',
        },
      },
    ]);
    expect(warnings).toEqual([]);
    expect(uncarried).toEqual([
      {
        path: 'messages.0.content.4',
        reason: 'a file id is specific to the provider that issued it and cannot be sent to Gemini',
      },
    ]);
  });

  it('maps tool choices and drops parallel_tool_calls=false with a warning', () => {
    const tools = [{ name: 'f', parameters: {} }];
    expect(build(request({ tools })).body.tools).toEqual([{ functionDeclarations: [{ name: 'f' }] }]);
    expect(build(request({ tools, toolChoice: { type: 'none' } })).body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'NONE' },
    });
    expect(build(request({ tools, toolChoice: { type: 'required' } })).body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY' },
    });
    expect(build(request({ tools, toolChoice: { type: 'tool', name: 'f' } })).body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] },
    });
    const noParallel = build(request({ tools, parallelToolCalls: false }));
    expect(noParallel.body.toolConfig).toBeUndefined();
    expect(noParallel.warnings).toEqual(['parallel_tool_calls: Gemini cannot forbid parallel function calls; dropped']);
  });

  it('maps reasoning controls to thinkingConfig', () => {
    const config = (reasoning: CanonicalRequest['reasoning']) =>
      (build(request({ reasoning })).body.generationConfig as Record<string, unknown> | undefined)?.thinkingConfig;
    expect(config({ enabled: false })).toEqual({ thinkingBudget: 0 });
    expect(config({ effort: 'none' })).toEqual({ thinkingBudget: 0 });
    expect(config({ enabled: true })).toEqual({ thinkingBudget: -1 });
    expect(config({ effort: 'low', includeThoughts: false })).toEqual({ thinkingBudget: 1024, includeThoughts: false });
    expect(config({ effort: 'high' })).toEqual({ thinkingBudget: 24576 });
    expect(config({ budgetTokens: 2000, effort: 'low' })).toEqual({ thinkingBudget: 2000 });
    expect(build(request()).body.generationConfig).toBeUndefined();
  });

  it('maps response formats; more than 5 stop sequences cannot be carried', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(
      build(request({ responseFormat: { type: 'json-schema', name: 'x', schema } })).body.generationConfig,
    ).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
    expect(build(request({ responseFormat: { type: 'json-object' } })).body.generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
    const stops = build(request({ stopSequences: ['1', '2', '3', '4', '5', '6'] }));
    expect(stops.body.generationConfig).toEqual({ stopSequences: ['1', '2', '3', '4', '5'] });
    expect(stops.uncarried).toEqual([
      { path: 'stop', reason: 'Gemini accepts at most 5 stop sequences, this request has 6' },
    ]);
  });

  it('passes Gemini extensions through and drops the rest with warnings', () => {
    const safetySettings = [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }];
    const { body, warnings } = build(
      request({
        user: 'u1',
        maxOutputTokens: 9,
        anthropicBetas: ['x'],
        extensions: {
          safetySettings,
          thinking: { type: 'enabled' },
          seed: 7,
          presence_penalty: 0.5,
          repetition_penalty: 1.1,
        },
      }),
    );
    expect(body.safetySettings).toEqual(safetySettings);
    expect(body.generationConfig).toEqual({ maxOutputTokens: 9, seed: 7, presencePenalty: 0.5 });
    expect(body.thinking).toBeUndefined();
    expect(JSON.stringify(body)).not.toMatch(/anthropic-beta|repetition_penalty/);
    expect(warnings).toEqual([
      'user: Gemini has no end-user field; dropped',
      'repetition_penalty: not a field of this upstream API; dropped (a sampling hint)',
      'anthropic-beta header (x): Anthropic feature flags this upstream does not take; dropped',
    ]);
  });
});

describe('geminiAdapter count tokens', () => {
  it('sends bare contents when there is no system instruction or tools', () => {
    const http = geminiAdapter.buildCountTokensRequest!(request({ maxOutputTokens: 5 }), target());
    expect(http.url).toBe(`${BASE}/v1beta/models/gemini-2.5-flash:countTokens`);
    expect(JSON.parse(http.body)).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
  });

  it('wraps the request in generateContentRequest when system or tools must count', () => {
    const body = JSON.parse(geminiAdapter.buildCountTokensRequest!(TOOL_ROUND_TRIP, target()).body) as {
      generateContentRequest: Record<string, unknown>;
    };
    expect(Object.keys(body)).toEqual(['generateContentRequest']);
    expect(Object.keys(body.generateContentRequest)).toEqual(['model', 'contents', 'systemInstruction', 'tools']);
    expect(body.generateContentRequest.model).toBe('models/gemini-2.5-flash');
  });

  it('reads totalTokens', () => {
    expect(geminiAdapter.decodeCountTokensResponse!({ totalTokens: 31, cachedContentTokenCount: 0 })).toBe(31);
    expect(() => geminiAdapter.decodeCountTokensResponse!({ input_tokens: 3 })).toThrow(/totalTokens/);
  });
});

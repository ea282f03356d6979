/**
 * The Converse adapter's mapping (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html):
 * system, images and documents, tools and tool choice, reasoning per model family, usage with
 * cache tokens, stop reasons, the stream grammar and Bedrock's error names.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { bedrockConverseAdapter } from '../../../../gateway/upstream/bedrock-converse/bedrock-converse-adapter.ts';
import type { UpstreamTarget } from '../../../../gateway/upstream/upstream-adapter.ts';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const provider = getProviderPreset('bedrock');
const target = (model = CLAUDE): UpstreamTarget => ({
  baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  apiKey: '',
  upstreamModel: model,
  provider,
  cloud: { region: 'us-east-1' },
});

function request(extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    clientFormat: 'openai-chat',
    model: 'm',
    stream: false,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    ...extra,
  };
}

function built(req: CanonicalRequest, model = CLAUDE) {
  const { request: http, notes } = bedrockConverseAdapter.buildRequest(req, target(model));
  return { url: http.url, headers: http.headers, body: JSON.parse(http.body) as Record<string, unknown>, notes };
}

describe('bedrock-converse cache points', () => {
  const marked = (marks: CanonicalRequest['promptCacheMarks']) =>
    request({
      system: 'be brief',
      tools: [{ name: 't', parameters: { type: 'object' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'one' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
        { role: 'user', content: [{ type: 'text', text: 'three' }] },
      ],
      ...(marks ? { promptCacheMarks: marks } : {}),
    });
  const POINT = { cachePoint: { type: 'default' } };

  it('puts no cache point without marks', () => {
    expect(JSON.stringify(built(marked(undefined)).body)).not.toContain('cachePoint');
  });

  it('puts them after the system prompt, the tools and the marked turns for Claude, noting a one-hour lifetime it cannot keep', () => {
    const { body, notes } = built(marked({ system: '1h', tools: '5m', messages: [{ index: 0, ttl: '5m' }] }));
    expect(body.system).toEqual([{ text: 'be brief' }, POINT]);
    expect((body.toolConfig as { tools: unknown[] }).tools.at(-1)).toEqual(POINT);
    const messages = body.messages as Array<{ content: unknown[] }>;
    expect(messages[0]?.content).toEqual([{ text: 'one' }, POINT]);
    expect(messages[2]?.content).toEqual([{ text: 'three' }]);
    expect(notes.dropped.join('\n')).toMatch(/ttl 1h/);
  });

  it('keeps no tool cache point for Nova and none at all for other families, with a note', () => {
    const nova = built(marked({ tools: '5m', messages: [{ index: 2, ttl: '5m' }] }), 'us.amazon.nova-pro-v1:0');
    expect((nova.body.toolConfig as { tools: unknown[] }).tools).not.toContainEqual(POINT);
    expect((nova.body.messages as Array<{ content: unknown[] }>)[2]?.content.at(-1)).toEqual(POINT);
    expect(nova.notes.dropped.join('\n')).toMatch(/Nova caches system and messages only/);
    const llama = built(marked({ system: '5m', messages: [] }), 'meta.llama3-3-70b-instruct-v1:0');
    expect(JSON.stringify(llama.body)).not.toContain('cachePoint');
    expect(llama.notes.dropped.join('\n')).toMatch(/no prompt caching/);
  });
});

describe('bedrock-converse request', () => {
  it('posts to /model/{url-encoded id}/converse or /converse-stream without a credential header', () => {
    expect(built(request()).url).toBe(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
    );
    const streamed = built(request({ stream: true }));
    expect(streamed.url.endsWith('/converse-stream')).toBe(true);
    expect(streamed.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('carries system, inference settings, images, documents and the tool loop', () => {
    const { body, notes } = built(
      request({
        system: 'Be brief.',
        maxOutputTokens: 300,
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        stopSequences: ['END'],
        tools: [
          { name: 'get_weather', description: 'Weather', parameters: { properties: { city: { type: 'string' } } } },
        ],
        toolChoice: { type: 'required' },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look:' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { kind: 'url', url: 'data:image/jpeg;base64,/9j/4AAQ' } },
              {
                type: 'file',
                source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'q3 report.pdf' },
              },
            ],
          },
          {
            role: 'assistant',
            content: [{ type: 'tool-call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'and?' },
              { type: 'tool-result', toolCallId: 'tooluse_1', content: '4°C', isError: true },
            ],
          },
        ],
      }),
    );
    expect(notes.uncarried).toEqual([]);
    expect(body.system).toEqual([{ text: 'Be brief.' }]);
    expect(body.inferenceConfig).toEqual({ maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] });
    expect(body.additionalModelRequestFields).toEqual({ top_k: 40 });
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'Weather',
            inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
          },
        },
      ],
      toolChoice: { any: {} },
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { text: 'Look:' },
          { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
          { image: { format: 'jpeg', source: { bytes: '/9j/4AAQ' } } },
          { document: { format: 'pdf', name: 'q3 report', source: { bytes: 'JVBERi0=' } } },
        ],
      },
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Oslo' } } }],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_1', content: [{ text: '4°C' }], status: 'error' } },
          { text: 'and?' },
        ],
      },
    ]);
  });

  it('leaves out text blocks that hold only whitespace, which Converse refuses as blank', () => {
    const { body } = built(
      request({
        tools: [{ name: 'read', description: 'Read a file', parameters: { properties: {} } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Read it' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: '\n\n' },
              { type: 'tool-call', id: 'tooluse_1', name: 'read', arguments: '{}' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool-result', toolCallId: 'tooluse_1', content: 'done' },
              { type: 'text', text: ' ' },
            ],
          },
        ],
      }),
    );
    const messages = body.messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(messages[1]?.content).toEqual([{ toolUse: { toolUseId: 'tooluse_1', name: 'read', input: {} } }]);
    expect(messages[2]?.content.map((block) => Object.keys(block)[0])).toEqual(['toolResult']);
  });

  it('refuses what Converse cannot take: an image by http URL, a file id', () => {
    const { notes } = built(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } },
              { type: 'file', source: { kind: 'file-id', fileId: 'file-1' } },
            ],
          },
        ],
      }),
    );
    expect(notes.uncarried.map((part) => part.path)).toEqual(['messages.0.content.0', 'messages.0.content.1']);
  });

  it('switches Claude thinking on through additionalModelRequestFields with room under maxTokens', () => {
    const { body } = built(request({ reasoning: { effort: 'low' }, temperature: 0.5 }));
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(body.inferenceConfig).toEqual({ maxTokens: 2048 + 4096 });
  });

  it('asks Nova 2 for reasoning with reasoningConfig, and drops the control for families without one', () => {
    expect(
      built(request({ reasoning: { effort: 'high' } }), 'us.amazon.nova-2-lite-v1:0').body.additionalModelRequestFields,
    ).toEqual({
      reasoningConfig: { type: 'enabled', maxReasoningEffort: 'high' },
    });
    const other = built(request({ reasoning: { effort: 'high' } }), 'meta.llama3-3-70b-instruct-v1:0');
    expect(other.body.additionalModelRequestFields).toBeUndefined();
    expect(other.notes.dropped.some((note) => note.startsWith('reasoning:'))).toBe(true);
  });

  it('replays signed and redacted reasoning as reasoningContent, and drops unsigned reasoning', () => {
    const { body, notes } = built(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'hmm', signature: 'sig1' },
              { type: 'reasoning', text: '', redacted: 'AQID' },
              { type: 'reasoning', text: 'unsigned' },
              { type: 'text', text: 'Hello' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'More' }] },
        ],
      }),
    );
    expect((body.messages as Array<{ content: unknown[] }>)[1]?.content).toEqual([
      { reasoningContent: { reasoningText: { text: 'hmm', signature: 'sig1' } } },
      { reasoningContent: { redactedContent: 'AQID' } },
      { text: 'Hello' },
    ]);
    expect(notes.dropped).toHaveLength(1);
  });
});

describe('bedrock-converse answers', () => {
  const context = { provider, upstreamModel: CLAUDE, request: request() };

  it('decodes reasoning, text and tool use with usage that counts cache reads and writes as input', () => {
    const response = bedrockConverseAdapter.decodeResponse(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              { reasoningContent: { reasoningText: { text: 'think', signature: 'sig' } } },
              { text: 'Checking.' },
              { toolUse: { toolUseId: 'tooluse_9', name: 'get_weather', input: { city: 'Oslo' } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: {
          inputTokens: 10,
          outputTokens: 20,
          totalTokens: 330,
          cacheReadInputTokens: 100,
          cacheWriteInputTokens: 200,
        },
        metrics: { latencyMs: 100 },
      },
      context,
    );
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'think', signature: 'sig' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', id: 'tooluse_9', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(response.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_use' });
    expect(response.usage).toEqual({
      input: { total: 310, cacheRead: 100, cacheWrite: 200 },
      output: { total: 20, reasoning: 0 },
      source: 'reported',
    });
  });

  it('decodes a stream into the canonical grammar, ending at metadata', () => {
    const decoder = bedrockConverseAdapter.createStreamDecoder(context);
    const events: StreamEvent[] = [];
    const push = (event: string, data: unknown) => events.push(...decoder.push({ event, data: JSON.stringify(data) }));
    push('messageStart', { role: 'assistant', p: 'abcd' });
    push('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'hm' } } });
    push('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } });
    push('contentBlockStop', { contentBlockIndex: 0 });
    push('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Hi' } });
    push('contentBlockStop', { contentBlockIndex: 1 });
    push('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 't1', name: 'f' } } });
    push('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"a":' } } });
    push('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '1}' } } });
    push('contentBlockStop', { contentBlockIndex: 2 });
    push('messageStop', { stopReason: 'tool_use' });
    push('metadata', {
      usage: { inputTokens: 5, outputTokens: 7, totalTokens: 12, cacheReadInputTokens: 3 },
      metrics: { latencyMs: 1 },
    });
    events.push(...decoder.end());
    expect(events.map((e) => e.type)).toEqual([
      'message-start',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-signature',
      'block-end',
      'text-start',
      'text-delta',
      'block-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-delta',
      'block-end',
      'message-end',
    ]);
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.usage.input).toEqual({ total: 8, cacheRead: 3, cacheWrite: 0 });
  });

  it('ends a stream with the classified error of an exception message', () => {
    const decoder = bedrockConverseAdapter.createStreamDecoder(context);
    decoder.push({ event: 'messageStart', data: '{"role":"assistant"}' });
    const events = decoder.push({ event: 'throttlingException', data: '{"message":"Too many tokens, please wait."}' });
    const last = events.at(-1);
    expect(last?.type === 'error' && last.error.kind).toBe('upstream-rate-limited');
    expect(decoder.end()).toEqual([]);
  });

  it('classifies Bedrock errors by x-amzn-ErrorType', () => {
    const classify = (status: number, type: string, message: string) =>
      bedrockConverseAdapter.classifyError(status, JSON.stringify({ message }), {
        'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      });
    expect(classify(429, 'ThrottlingException', 'slow down').kind).toBe('upstream-rate-limited');
    expect(classify(503, 'ServiceUnavailableException', 'busy').kind).toBe('upstream-unavailable');
    expect(classify(424, 'ModelNotReadyException', 'warming').allowFailover).toBe(true);
    const invalid = classify(400, 'ValidationException', 'bad field');
    expect([invalid.kind, invalid.status, invalid.allowFailover]).toEqual(['upstream-rejected', 400, false]);
    const expired = classify(403, 'ExpiredTokenException', 'The security token included in the request is expired');
    expect([expired.kind, expired.status, expired.allowFailover]).toEqual(['upstream-rejected', 502, true]);
    expect(expired.message).toContain('ExpiredTokenException');
    expect(classify(403, 'InvalidSignatureException', 'signature mismatch').allowFailover).toBe(true);
  });
});

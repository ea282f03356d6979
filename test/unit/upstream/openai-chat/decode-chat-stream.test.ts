import { describe, expect, it } from 'vitest';
import { accumulateStream } from '../../../../gateway/canonical/stream-accumulator.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import type { ProviderId } from '../../../../gateway/providers/provider-preset.ts';
import { createChatStreamDecoder } from '../../../../gateway/upstream/openai-chat/decode-chat-stream.ts';
import { openaiChatAdapter } from '../../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import {
  assertStreamGrammar,
  contextFor,
  parseSse,
  readExpectation,
  readFixture,
  replay,
  summarize,
} from '../../../support/replay-fixture.ts';

const FIXTURES: ReadonlyArray<[name: string, provider: ProviderId]> = [
  ['text', 'openai'],
  ['tool-call', 'openai'],
  ['reasoning', 'deepseek'],
  ['moonshot-usage-in-choice', 'moonshot'],
  ['minimax-think-tags', 'minimax'],
  ['zhipu-tool-one-chunk', 'zhipu'],
];

const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): { data: string } => ({
  data: JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  }),
});

describe('openai-chat stream decoder: recorded fixtures', () => {
  it.each(FIXTURES)('%s.sse follows the grammar and accumulates to %s.expect.json', (name, provider) => {
    const events = replay(
      openaiChatAdapter.createStreamDecoder(contextFor(provider)),
      parseSse(readFixture('openai-chat', `${name}.sse`)),
    );
    assertStreamGrammar(events);
    expect(summarize(accumulateStream(events))).toEqual(readExpectation('openai-chat', name));
  });

  it('decodes the DeepSeek reasoning stream into exact events', () => {
    const events = replay(
      openaiChatAdapter.createStreamDecoder(contextFor('deepseek')),
      parseSse(readFixture('openai-chat', 'reasoning.sse')),
    );
    expect(events.slice(0, 3)).toEqual([
      { type: 'message-start', messageId: '8e7f6a5b-4c3d-4b2a-9f1e-0d9c8b7a6f5e', model: 'deepseek-reasoner' },
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, text: 'The' },
    ]);
    expect(events.filter((e) => e.type === 'block-end')).toEqual([
      { type: 'block-end', index: 0 },
      { type: 'block-end', index: 1 },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'message-end',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        input: { total: 72, cacheRead: 64, cacheWrite: 0 },
        output: { total: 14, reasoning: 10 },
        source: 'reported',
      },
    });
  });

  it('waits for the trailing usage chunk: message-end only comes at [DONE]', () => {
    const sse = parseSse(readFixture('openai-chat', 'text.sse'));
    const decoder = openaiChatAdapter.createStreamDecoder(contextFor('openai'));
    const finishIndex = sse.findIndex((e) => e.data.includes('"finish_reason":"stop"'));
    const before = sse.slice(0, finishIndex + 1).flatMap((e) => decoder.push(e));
    expect(before.some((e) => e.type === 'message-end')).toBe(false);
    const usageChunk = decoder.push(sse[finishIndex + 1]!);
    expect(usageChunk).toEqual([]);
    const done = decoder.push(sse[finishIndex + 2]!);
    expect(done.map((e) => e.type)).toEqual(['block-end', 'message-end']);
    expect(decoder.end()).toEqual([]);
  });

  it('splits MiniMax <think> tags cut across chunks into reasoning then text blocks', () => {
    const events = replay(
      openaiChatAdapter.createStreamDecoder(contextFor('minimax')),
      parseSse(readFixture('openai-chat', 'minimax-think-tags.sse')),
    );
    expect(events.filter((e) => e.type.endsWith('-start')).map((e) => e.type)).toEqual([
      'message-start',
      'reasoning-start',
      'text-start',
    ]);
    const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('');
    expect(text).toBe('Hi there!');
  });

  it('reads Moonshot usage from choices[0].usage', () => {
    const events = replay(
      openaiChatAdapter.createStreamDecoder(contextFor('moonshot')),
      parseSse(readFixture('openai-chat', 'moonshot-usage-in-choice.sse')),
    );
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.usage).toEqual({
      input: { total: 1046, cacheRead: 1024, cacheWrite: 0 },
      output: { total: 10, reasoning: 0 },
      source: 'reported',
    });
  });
});

describe('openai-chat stream decoder: endings and failures', () => {
  it('ends at end() when a finish_reason was seen but [DONE] never came', () => {
    const decoder = openaiChatAdapter.createStreamDecoder(contextFor('openai'));
    const events = [
      ...decoder.push(chunk({ role: 'assistant', content: 'Hi' })),
      ...decoder.push(chunk({}, 'length')),
      ...decoder.end(),
    ];
    assertStreamGrammar(events);
    expect(events.at(-1)).toEqual({
      type: 'message-end',
      finishReason: { unified: 'length', raw: 'length' },
      usage: {
        input: { total: 0, cacheRead: 0, cacheWrite: 0 },
        output: { total: 0, reasoning: 0 },
        source: 'estimated',
      },
    });
  });

  it('turns a truncated stream into an upstream-malformed error after closing the open block', () => {
    const decoder = openaiChatAdapter.createStreamDecoder(contextFor('openai'));
    const events = [...decoder.push(chunk({ role: 'assistant', content: 'Hel' })), ...decoder.end()];
    assertStreamGrammar(events, 'error');
    expect(events.map((e) => e.type)).toEqual(['message-start', 'text-start', 'text-delta', 'block-end', 'error']);
    const last = events.at(-1);
    expect(last?.type === 'error' && [last.error.kind, last.error.message]).toEqual([
      'upstream-malformed',
      'Upstream stream ended before completion',
    ]);
    expect(decoder.end()).toEqual([]);
  });

  it('turns a mid-stream error chunk into an error event with the classified error', () => {
    const decoder = openaiChatAdapter.createStreamDecoder(contextFor('openai'));
    const events = [
      ...decoder.push(chunk({ role: 'assistant', content: 'Hel' })),
      ...decoder.push({
        data: '{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}',
      }),
      ...decoder.push({ data: '[DONE]' }),
    ];
    assertStreamGrammar(events, 'error');
    const last = events.at(-1);
    expect(last?.type === 'error' && [last.error.kind, last.error.status, last.error.message]).toEqual([
      'upstream-unavailable',
      502,
      'The server had an error while processing your request.',
    ]);
  });

  it('uses a numeric error.code as the status', () => {
    const decoder = openaiChatAdapter.createStreamDecoder(contextFor('deepseek'));
    const [event] = decoder.push({ data: '{"error":{"message":"Too many requests","code":429}}' });
    expect(event?.type === 'error' && event.error.kind).toBe('upstream-rate-limited');
  });

  it('turns malformed JSON into an error event and ignores later input', () => {
    const decoder = openaiChatAdapter.createStreamDecoder(contextFor('openai'));
    decoder.push(chunk({ role: 'assistant', content: 'a' }));
    const events = decoder.push({ data: '{"id":' });
    expect(events.map((e) => e.type)).toEqual(['block-end', 'error']);
    expect(decoder.push(chunk({ content: 'b' }))).toEqual([]);
  });

  it('drops a fragment for an already-closed tool call and records a warning', () => {
    const decoder = createChatStreamDecoder(contextFor('openai'));
    const events = [
      ...decoder.push(
        chunk({
          role: 'assistant',
          tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'a', arguments: '{"x":' } }],
        }),
      ),
      ...decoder.push(
        chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'b', arguments: '{}' } }] }),
      ),
      ...decoder.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] })),
      ...decoder.push(chunk({}, 'tool_calls')),
      ...decoder.push({ data: '[DONE]' }),
    ];
    assertStreamGrammar(events);
    expect(decoder.warnings).toEqual([
      'tool call call_a: arguments fragment arrived after its block was closed; dropped',
    ]);
    const response = accumulateStream(events);
    expect(response.content).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'a', arguments: '{"x":' },
      { type: 'tool-call', id: 'call_b', name: 'b', arguments: '{}' },
    ]);
  });

  it('treats a new id at a reused index as a new tool call', () => {
    const decoder = createChatStreamDecoder(contextFor('gemini'));
    const events: StreamEvent[] = [
      ...decoder.push(
        chunk({
          role: 'assistant',
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        }),
      ),
      ...decoder.push(
        chunk(
          { tool_calls: [{ index: 0, id: 'call_2', type: 'function', function: { name: 'g', arguments: '{"b":2}' } }] },
          'stop',
        ),
      ),
      ...decoder.push({ data: '[DONE]' }),
    ];
    assertStreamGrammar(events);
    const response = accumulateStream(events);
    expect(response.content.map((b) => (b.type === 'tool-call' ? b.id : ''))).toEqual(['call_1', 'call_2']);
    expect(response.finishReason).toEqual({ unified: 'tool-calls', raw: 'stop' });
  });

  it('reports [DONE] before any chunk as an error', () => {
    const decoder = openaiChatAdapter.createStreamDecoder(contextFor('openai'));
    const events = decoder.push({ data: '[DONE]' });
    expect(events.map((e) => e.type)).toEqual(['error']);
  });
});

describe('assertStreamGrammar (test helper) rejects broken sequences', () => {
  const start: StreamEvent = { type: 'message-start', messageId: 'm', model: 'x' };
  const end: StreamEvent = {
    type: 'message-end',
    finishReason: { unified: 'stop' },
    usage: { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 }, source: 'reported' },
  };
  it.each([
    ['two open blocks', [start, { type: 'text-start', index: 0 }, { type: 'reasoning-start', index: 1 }, end]],
    ['skipped index', [start, { type: 'text-start', index: 1 }, { type: 'block-end', index: 1 }, end]],
    [
      'delta into the wrong kind',
      [
        start,
        { type: 'text-start', index: 0 },
        { type: 'reasoning-delta', index: 0, text: 'x' },
        { type: 'block-end', index: 0 },
        end,
      ],
    ],
    ['unclosed block', [start, { type: 'text-start', index: 0 }, end]],
    ['missing message-start', [{ type: 'text-start', index: 0 }, { type: 'block-end', index: 0 }, end]],
  ] as Array<[string, StreamEvent[]]>)('%s', (_name, events) => {
    expect(() => assertStreamGrammar(events)).toThrow();
  });
});

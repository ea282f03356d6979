import { describe, expect, it } from 'vitest';
import { accumulateStream } from '../../../../gateway/canonical/stream-accumulator.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import type { UpstreamSseEvent } from '../../../../gateway/upstream/upstream-adapter.ts';
import {
  assertStreamGrammar,
  contextFor,
  parseSse,
  readExpectation,
  readFixture,
  readJsonFixture,
  replay,
  summarize,
} from '../../../support/replay-fixture.ts';

const decoder = () => anthropicMessagesAdapter.createStreamDecoder(contextFor('anthropic', 'claude-upstream'));
const sse = (type: string, data: Record<string, unknown>): UpstreamSseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...data }),
});
const start = (usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }) =>
  sse('message_start', {
    message: {
      id: 'msg_s',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
const stop = sse('message_stop', {});

describe('Anthropic stream decoder on recorded fixtures', () => {
  it.each(['text', 'tool-call', 'reasoning', 'prompt-cache-1h'])(
    '%s follows the grammar and accumulates to its expectation',
    (name) => {
      const events = replay(decoder(), parseSse(readFixture('anthropic-messages', `${name}.sse`)));
      assertStreamGrammar(events);
      const streamed = accumulateStream(events);
      expect(summarize(streamed)).toEqual(readExpectation('anthropic-messages', name));
      const whole = anthropicMessagesAdapter.decodeResponse(
        readJsonFixture('anthropic-messages', name),
        contextFor('anthropic', 'claude-upstream'),
      );
      const normalise = (blocks: typeof whole.content) =>
        blocks.map((b) => (b.type === 'tool-call' ? { ...b, arguments: JSON.parse(b.arguments) as unknown } : b));
      expect(normalise(streamed.content)).toEqual(normalise(whole.content));
      expect(streamed.id).toBe(whole.id);
    },
  );

  it('emits the exact events of the reasoning fixture', () => {
    const events = replay(decoder(), parseSse(readFixture('anthropic-messages', 'reasoning.sse')));
    const signature = (readJsonFixture('anthropic-messages', 'reasoning') as { content: Array<{ signature?: string }> })
      .content[0]?.signature;
    expect(events).toEqual([
      {
        type: 'message-start',
        messageId: 'msg_01Rk7nYBvQp3GkWmJ5tNfX2e',
        model: 'claude-sonnet-4-5-20250929',
        usage: {
          input: { total: 41, cacheRead: 0, cacheWrite: 0 },
          output: { total: 4, reasoning: 0 },
          source: 'reported',
        },
      },
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, text: 'The user greets me; ' },
      { type: 'reasoning-delta', index: 0, text: 'answer briefly.' },
      { type: 'reasoning-signature', index: 0, signature },
      { type: 'block-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, text: 'Hi there!' },
      { type: 'block-end', index: 1 },
      {
        type: 'message-end',
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage: {
          input: { total: 41, cacheRead: 0, cacheWrite: 0 },
          output: { total: 27, reasoning: 0 },
          source: 'reported',
        },
      },
    ]);
  });

  it('keeps message_start input counts when message_delta only repeats output_tokens', () => {
    const events = replay(decoder(), parseSse(readFixture('anthropic-messages', 'tool-call.sse')));
    expect(events.at(-1)).toMatchObject({
      type: 'message-end',
      usage: { input: { total: 1934, cacheRead: 0, cacheWrite: 1536 }, output: { total: 41, reasoning: 0 } },
    });
  });

  it('ends a stream cut before message_stop with block-end and an upstream-malformed error', () => {
    const bytes = readFixture('anthropic-messages', 'text.sse');
    const cut = bytes.slice(0, bytes.indexOf('event: content_block_stop'));
    const events = replay(decoder(), parseSse(cut));
    assertStreamGrammar(events, 'error');
    expect(events.slice(-2, -1)).toEqual([{ type: 'block-end', index: 0 }]);
    const last = events.at(-1) as Extract<StreamEvent, { type: 'error' }>;
    expect(last.error.kind).toBe('upstream-malformed');
    expect(last.error.message).toMatch(/ended before completion/);
  });
});

describe('Anthropic stream decoder behaviour', () => {
  it('renumbers blocks densely when server-tool blocks are skipped', () => {
    const d = decoder();
    const events = replay(d, [
      start(),
      sse('content_block_start', {
        index: 0,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      }),
      sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } }),
      sse('content_block_stop', { index: 0 }),
      sse('content_block_start', {
        index: 1,
        content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      }),
      sse('content_block_stop', { index: 1 }),
      sse('content_block_start', { index: 2, content_block: { type: 'text', text: '' } }),
      sse('content_block_delta', { index: 2, delta: { type: 'citations_delta', citation: {} } }),
      sse('content_block_delta', { index: 2, delta: { type: 'text_delta', text: 'Found it.' } }),
      sse('content_block_stop', { index: 2 }),
      sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }),
      stop,
    ]);
    assertStreamGrammar(events);
    expect(events.slice(1, -1)).toEqual([
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, text: 'Found it.' },
      { type: 'block-end', index: 0 },
    ]);
  });

  it('handles redacted thinking, tool input given whole in content_block_start, and stop sequences', () => {
    const events = replay(decoder(), [
      start(),
      sse('content_block_start', { index: 0, content_block: { type: 'redacted_thinking', data: 'EmwKAhgB' } }),
      sse('content_block_stop', { index: 0 }),
      sse('content_block_start', {
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
      }),
      sse('content_block_stop', { index: 1 }),
      sse('content_block_start', {
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_2', name: 'g', input: {} },
      }),
      sse('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '' } }),
      sse('content_block_stop', { index: 2 }),
      sse('message_delta', {
        delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' },
        usage: { output_tokens: 5 },
      }),
      stop,
    ]);
    assertStreamGrammar(events);
    const response = accumulateStream(events);
    expect(response.content).toEqual([
      { type: 'reasoning', text: '', redacted: 'EmwKAhgB' },
      { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{"a":1}' },
      { type: 'tool-call', id: 'toolu_2', name: 'g', arguments: '{}' },
    ]);
    expect(response.stopSequence).toBe('END');
    expect(events.at(-1)).toMatchObject({ type: 'message-end', stopSequence: 'END' });
  });

  it('maps an SSE error event to a classified error and ignores everything after it', () => {
    const d = decoder();
    const before = [
      start(),
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ].flatMap((e) => d.push(e));
    const failed = d.push({
      event: 'error',
      data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    });
    expect(before.map((e) => e.type)).toEqual(['message-start', 'text-start']);
    expect(failed[0]).toEqual({ type: 'block-end', index: 0 });
    const error = (failed[1] as Extract<StreamEvent, { type: 'error' }>).error;
    expect(error).toMatchObject({ kind: 'upstream-unavailable', status: 503, code: 'overloaded_error' });
    expect(d.push(stop)).toEqual([]);
    expect(d.end()).toEqual([]);
  });

  it.each([
    ['rate_limit_error', 'upstream-rate-limited', 429],
    ['api_error', 'upstream-unavailable', 502],
    ['invalid_request_error', 'upstream-rejected', 400],
  ])('classifies mid-stream %s as %s', (type, kind, status) => {
    const d = decoder();
    d.push(start());
    const [event] = d.push({ event: 'error', data: JSON.stringify({ type: 'error', error: { type, message: 'x' } }) });
    expect((event as Extract<StreamEvent, { type: 'error' }>).error).toMatchObject({ kind, status });
  });

  it('turns non-JSON data into an upstream-malformed error', () => {
    const d = decoder();
    d.push(start());
    const [event] = d.push({ event: 'content_block_delta', data: '{"type":"content_block_delta",' });
    expect(event?.type).toBe('error');
    expect((event as Extract<StreamEvent, { type: 'error' }>).error.kind).toBe('upstream-malformed');
  });

  it('synthesises message-start when content arrives first, and reports silent usage as estimated', () => {
    const events = replay(decoder(), [
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: 'Hi' } }),
      sse('content_block_stop', { index: 0 }),
      sse('message_delta', { delta: { stop_reason: 'end_turn' } }),
      stop,
    ]);
    assertStreamGrammar(events);
    expect(events[0]).toMatchObject({ type: 'message-start', model: 'claude-upstream' });
    expect(events.at(-1)).toMatchObject({ type: 'message-end', usage: { source: 'estimated', input: { total: 0 } } });
    expect(accumulateStream(events).content).toEqual([{ type: 'text', text: 'Hi' }]);
  });

  it('yields only an error for a stream that ended before any event', () => {
    const events = decoder().end();
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe('error');
  });

  it('ignores pings and unknown event types', () => {
    const d = decoder();
    d.push(start());
    expect(d.push({ event: 'ping', data: '{"type": "ping"}' })).toEqual([]);
    expect(d.push(sse('future_event', { whatever: 1 }))).toEqual([]);
  });
});

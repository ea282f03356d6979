import { describe, expect, it } from 'vitest';
import { accumulateStream } from '../../../../gateway/canonical/stream-accumulator.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { geminiAdapter } from '../../../../gateway/upstream/gemini/gemini-adapter.ts';
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

const decoder = () => geminiAdapter.createStreamDecoder(contextFor('gemini', 'gemini-upstream'));
const chunk = (data: Record<string, unknown>): UpstreamSseEvent => ({ data: JSON.stringify(data) });
const parts = (list: unknown[], extra: Record<string, unknown> = {}) =>
  chunk({
    candidates: [{ content: { parts: list, role: 'model' }, index: 0, ...extra }],
    responseId: 'r-1',
    modelVersion: 'gemini-2.5-flash',
  });
const errorOf = (event: StreamEvent | undefined) => (event as Extract<StreamEvent, { type: 'error' }>).error;

describe('Gemini stream decoder on recorded fixtures', () => {
  it.each(['text', 'tool-call', 'reasoning'])('%s follows the grammar and accumulates to its expectation', (name) => {
    const events = replay(decoder(), parseSse(readFixture('gemini', `${name}.sse`)));
    assertStreamGrammar(events);
    const streamed = accumulateStream(events);
    expect(summarize(streamed)).toEqual(readExpectation('gemini', name));
    const whole = geminiAdapter.decodeResponse(
      readJsonFixture('gemini', name),
      contextFor('gemini', 'gemini-upstream'),
    );
    const withoutIds = (blocks: typeof whole.content) =>
      blocks.map((b) => (b.type === 'tool-call' ? { ...b, id: '' } : b));
    expect(withoutIds(streamed.content)).toEqual(withoutIds(whole.content));
    expect(streamed.id).toBe(whole.id);
  });

  it('the text fixture is CRLF-framed and still yields one event per chunk', () => {
    const bytes = readFixture('gemini', 'text.sse');
    expect(bytes).toContain('}\r\n\r\ndata: ');
    expect(bytes.endsWith('\r\n\r\n')).toBe(true);
    expect(parseSse(bytes)).toHaveLength(2);
  });

  it('emits the exact events of the reasoning fixture, message-end at the finishReason chunk', () => {
    const d = decoder();
    const events = parseSse(readFixture('gemini', 'reasoning.sse')).flatMap((e) => d.push(e));
    expect(d.end()).toEqual([]);
    expect(events).toEqual([
      {
        type: 'message-start',
        messageId: 'Z3fbaNX0MceLz7IPkMqV8Ao',
        model: 'gemini-2.5-flash',
        usage: {
          input: { total: 8, cacheRead: 0, cacheWrite: 0 },
          output: { total: 19, reasoning: 19 },
          source: 'reported',
        },
      },
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, text: 'The user greets me; ' },
      { type: 'reasoning-delta', index: 0, text: 'answer briefly.' },
      { type: 'block-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, text: 'Hi there!' },
      { type: 'block-end', index: 1 },
      {
        type: 'message-end',
        finishReason: { unified: 'stop', raw: 'STOP' },
        usage: {
          input: { total: 8, cacheRead: 0, cacheWrite: 0 },
          output: { total: 30, reasoning: 27 },
          source: 'reported',
        },
      },
    ]);
  });

  it('ends a stream cut before finishReason with block-end and an upstream-malformed error', () => {
    const [first] = parseSse(readFixture('gemini', 'text.sse'));
    const events = replay(decoder(), [first!]);
    assertStreamGrammar(events, 'error');
    expect(events.slice(-2, -1)).toEqual([{ type: 'block-end', index: 0 }]);
    expect(errorOf(events.at(-1))).toMatchObject({
      kind: 'upstream-malformed',
      message: expect.stringMatching(/ended before completion/),
    });
  });
});

describe('Gemini stream decoder behaviour', () => {
  it('defers message-end to the next usage chunk when the finishReason chunk has none', () => {
    const d = decoder();
    const first = [parts([{ text: 'Hi' }]), parts([{ text: '!' }], { finishReason: 'STOP' })].flatMap((e) => d.push(e));
    expect(first.map((e) => e.type)).toEqual(['message-start', 'text-start', 'text-delta', 'text-delta', 'block-end']);
    const late = d.push(chunk({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 } }));
    expect(late).toEqual([
      {
        type: 'message-end',
        finishReason: { unified: 'stop', raw: 'STOP' },
        usage: {
          input: { total: 3, cacheRead: 0, cacheWrite: 0 },
          output: { total: 2, reasoning: 0 },
          source: 'reported',
        },
      },
    ]);
    expect(d.push(chunk({ usageMetadata: { promptTokenCount: 99 } }))).toEqual([]);
    expect(d.end()).toEqual([]);
  });

  it('emits the pending message-end at end() with estimated usage when no usage ever came', () => {
    const events = replay(decoder(), [parts([{ text: 'Hi' }], { finishReason: 'MAX_TOKENS' })]);
    assertStreamGrammar(events);
    expect(events.filter((e) => e.type === 'message-end')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: 'message-end',
      finishReason: { unified: 'length', raw: 'MAX_TOKENS' },
      usage: { source: 'estimated' },
    });
  });

  it('switches blocks between thought, text and function calls; signatures ride along', () => {
    const events = replay(decoder(), [
      parts([{ text: 'plan', thought: true }]),
      parts([{ text: '', thoughtSignature: 'sig-r' }, { text: 'Calling.' }]),
      parts(
        [
          { functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'sig-f' },
          { functionCall: { name: 'get_time', args: {}, id: 'fc-2' } },
        ],
        { finishReason: 'STOP' },
      ),
      chunk({ usageMetadata: { promptTokenCount: 1 } }),
    ]);
    assertStreamGrammar(events);
    const response = accumulateStream(events);
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'plan', signature: 'sig-r' },
      { type: 'text', text: 'Calling.' },
      {
        type: 'tool-call',
        id: expect.stringMatching(/^call_/),
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
        signature: 'sig-f',
      },
      { type: 'tool-call', id: 'fc-2', name: 'get_time', arguments: '{}' },
    ]);
    expect(response.finishReason).toEqual({ unified: 'tool-calls', raw: 'STOP' });
  });

  it('reports a blocked prompt as content-filter', () => {
    const events = replay(decoder(), [
      chunk({
        promptFeedback: { blockReason: 'SAFETY' },
        usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 },
        responseId: 'r-2',
      }),
    ]);
    assertStreamGrammar(events);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({
      type: 'message-end',
      finishReason: { unified: 'content-filter', raw: 'SAFETY' },
    });
  });

  it('turns an {"error":…} chunk into a classified error event and stops', () => {
    const d = decoder();
    d.push(parts([{ text: 'Hi' }]));
    const events = d.push(
      chunk({ error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } }),
    );
    expect(events[0]).toEqual({ type: 'block-end', index: 0 });
    expect(errorOf(events[1])).toMatchObject({
      kind: 'upstream-unavailable',
      status: 502,
      code: 'INTERNAL',
      message: 'An internal error has occurred.',
    });
    expect(d.push(parts([{ text: 'more' }], { finishReason: 'STOP' }))).toEqual([]);
    expect(d.end()).toEqual([]);
  });

  it('turns non-JSON data into an upstream-malformed error, and an empty stream into an error alone', () => {
    const d = decoder();
    expect(errorOf(d.push({ data: '[DONE]' })[0]).kind).toBe('upstream-malformed');
    const empty = decoder().end();
    expect(empty).toHaveLength(1);
    expect(errorOf(empty[0]).kind).toBe('upstream-malformed');
  });
});

import { describe, expect, it } from 'vitest';
import { accumulateStream } from '../../../../gateway/canonical/stream-accumulator.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { createResponsesStreamDecoder } from '../../../../gateway/upstream/openai-responses/decode-responses-stream.ts';
import { openaiResponsesAdapter } from '../../../../gateway/upstream/openai-responses/openai-responses-adapter.ts';
import {
  assertStreamGrammar,
  contextFor,
  parseSse,
  readExpectation,
  readFixture,
  replay,
  summarize,
} from '../../../support/replay-fixture.ts';

const ctx = contextFor('openai');
const decodeFixture = (name: string): StreamEvent[] =>
  replay(openaiResponsesAdapter.createStreamDecoder(ctx), parseSse(readFixture('openai-responses', `${name}.sse`)));
const ev = (type: string, fields: Record<string, unknown> = {}): { event: string; data: string } => ({
  event: type,
  data: JSON.stringify({ type, ...fields }),
});
const created = ev('response.created', {
  response: { id: 'resp_1', model: 'gpt-x', status: 'in_progress', output: [], usage: null },
});

describe('openai-responses stream decoder: recorded fixtures', () => {
  it.each(['text', 'tool-call', 'reasoning'])(
    '%s.sse follows the grammar and accumulates to its expect.json',
    (name) => {
      const events = decodeFixture(name);
      assertStreamGrammar(events);
      expect(summarize(accumulateStream(events))).toEqual(readExpectation('openai-responses', name));
    },
  );

  it('reasoning: block 0 reasoning with signature before block-end, block 1 text', () => {
    const events = decodeFixture('reasoning');
    expect(events[0]).toEqual({
      type: 'message-start',
      messageId: 'resp_68a2f4c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0',
      model: 'gpt-5-mini-2025-08-07',
    });
    const types = events.map((e) => e.type);
    expect(types.slice(1, 3)).toEqual(['reasoning-start', 'reasoning-delta']);
    const signatureAt = types.indexOf('reasoning-signature');
    expect(types[signatureAt + 1]).toBe('block-end');
    expect(accumulateStream(events).content[0]).toMatchObject({
      type: 'reasoning',
      signature: expect.stringMatching(/^gAAAAAB/),
    });
  });

  it('tool-call: tool-input-start carries call_id and name', () => {
    const events = decodeFixture('tool-call');
    expect(events[1]).toEqual({
      type: 'tool-input-start',
      index: 0,
      toolCallId: 'call_Q4xN9mZ1aB3cD5eF6gH7iJ8k',
      toolName: 'get_weather',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'message-end',
      finishReason: { unified: 'tool-calls', raw: 'completed' },
    });
  });

  it('ignores a trailing [DONE] (Open Responses gateways send one)', () => {
    const decoder = openaiResponsesAdapter.createStreamDecoder(ctx);
    const events = replay(decoder, [...parseSse(readFixture('openai-responses', 'text.sse')), { data: '[DONE]' }]);
    assertStreamGrammar(events);
  });
});

describe('openai-responses stream decoder: variants and failures', () => {
  it('function_call arguments that only arrive on output_item.done are emitted as one delta', () => {
    const item = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '' };
    const events = replay(openaiResponsesAdapter.createStreamDecoder(ctx), [
      created,
      ev('response.output_item.added', { output_index: 0, item }),
      ev('response.output_item.done', {
        output_index: 0,
        item: { ...item, arguments: '{"a":1}', status: 'completed' },
      }),
      ev('response.completed', {
        response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 5, output_tokens: 3 } },
      }),
    ]);
    assertStreamGrammar(events);
    expect(events.filter((e) => e.type === 'tool-input-delta')).toEqual([
      { type: 'tool-input-delta', index: 0, argumentsFragment: '{"a":1}' },
    ]);
  });

  it('reasoning_text deltas and several summary parts are joined like the non-stream decoder does', () => {
    const events = replay(openaiResponsesAdapter.createStreamDecoder(ctx), [
      created,
      ev('response.output_item.added', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
      ev('response.reasoning_summary_text.delta', {
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 0,
        delta: 'One.',
      }),
      ev('response.reasoning_summary_text.delta', {
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 1,
        delta: 'Two.',
      }),
      ev('response.output_item.done', {
        output_index: 0,
        item: {
          id: 'rs_1',
          type: 'reasoning',
          summary: [
            { type: 'summary_text', text: 'One.' },
            { type: 'summary_text', text: 'Two.' },
          ],
        },
      }),
      ev('response.output_item.added', { output_index: 1, item: { id: 'rs_2', type: 'reasoning', summary: [] } }),
      ev('response.reasoning_text.delta', { item_id: 'rs_2', output_index: 1, content_index: 0, delta: 'raw' }),
      ev('response.output_item.done', {
        output_index: 1,
        item: { id: 'rs_2', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'raw' }] },
      }),
      ev('response.completed', { response: { id: 'resp_1', status: 'completed', usage: null } }),
    ]);
    assertStreamGrammar(events);
    const response = accumulateStream(events);
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'One.\n\nTwo.' },
      { type: 'reasoning', text: 'raw' },
    ]);
    expect(response.usage.source).toBe('estimated');
  });

  it('a reasoning item with nothing to show opens no block', () => {
    const events = replay(openaiResponsesAdapter.createStreamDecoder(ctx), [
      created,
      ev('response.output_item.added', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
      ev('response.output_item.done', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
      ev('response.completed', { response: { id: 'resp_1', status: 'completed' } }),
    ]);
    expect(events.map((e) => e.type)).toEqual(['message-start', 'message-end']);
  });

  it('response.incomplete → message-end with finish length and usage', () => {
    const events = replay(openaiResponsesAdapter.createStreamDecoder(ctx), [
      created,
      ev('response.output_item.added', {
        output_index: 0,
        item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
      }),
      ev('response.content_part.added', {
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      }),
      ev('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Trunc' }),
      ev('response.output_item.done', {
        output_index: 0,
        item: { id: 'msg_1', type: 'message', status: 'incomplete', content: [{ type: 'output_text', text: 'Trunc' }] },
      }),
      ev('response.incomplete', {
        response: {
          id: 'resp_1',
          status: 'incomplete',
          incomplete_details: { reason: 'max_output_tokens' },
          usage: {
            input_tokens: 9,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 16,
            output_tokens_details: { reasoning_tokens: 0 },
          },
        },
      }),
    ]);
    assertStreamGrammar(events);
    expect(events.at(-1)).toEqual({
      type: 'message-end',
      finishReason: { unified: 'length', raw: 'max_output_tokens' },
      usage: {
        input: { total: 9, cacheRead: 0, cacheWrite: 0 },
        output: { total: 16, reasoning: 0 },
        source: 'reported',
      },
    });
  });

  it('an error event (nested or flat) → error event; the following response.failed is ignored', () => {
    const decoder = createResponsesStreamDecoder(ctx);
    const events = replay(decoder, [
      created,
      ev('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', content: [] } }),
      ev('response.content_part.added', {
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '' },
      }),
      ev('error', {
        code: 'server_error',
        message: 'Upstream timed out',
        param: null,
        error: { type: 'server_error', code: 'server_error', message: 'Upstream timed out', param: null },
      }),
      ev('response.failed', {
        response: { id: 'resp_1', status: 'failed', error: { code: 'server_error', message: 'Upstream timed out' } },
      }),
    ]);
    assertStreamGrammar(events, 'error');
    const last = events.at(-1);
    expect(last?.type === 'error' && [last.error.kind, last.error.message, last.error.code]).toEqual([
      'upstream-unavailable',
      'Upstream timed out',
      'server_error',
    ]);
    const flat = createResponsesStreamDecoder(ctx).push(
      ev('error', { code: 'rate_limit_exceeded', message: 'Slow down', param: null }),
    );
    expect(flat[0]?.type === 'error' && flat[0].error.kind).toBe('upstream-rate-limited');
  });

  it('response.failed → error event with the classified failure', () => {
    const events = replay(openaiResponsesAdapter.createStreamDecoder(ctx), [
      created,
      ev('response.failed', {
        response: { id: 'resp_1', status: 'failed', error: { code: 'invalid_prompt', message: 'Bad prompt' } },
      }),
    ]);
    const last = events.at(-1);
    expect(last?.type === 'error' && [last.error.kind, last.error.status]).toEqual(['upstream-rejected', 400]);
  });

  it('a truncated stream → blocks closed, then an upstream-malformed error', () => {
    const sse = parseSse(readFixture('openai-responses', 'text.sse'));
    const events = replay(openaiResponsesAdapter.createStreamDecoder(ctx), sse.slice(0, 6));
    assertStreamGrammar(events, 'error');
    expect(events.slice(-2).map((e) => e.type)).toEqual(['block-end', 'error']);
    const last = events.at(-1);
    expect(last?.type === 'error' && [last.error.kind, last.error.message]).toEqual([
      'upstream-malformed',
      'Upstream stream ended before completion',
    ]);
  });

  it('malformed JSON → error event; unknown event types are ignored', () => {
    const decoder = openaiResponsesAdapter.createStreamDecoder(ctx);
    expect(decoder.push(created).map((e) => e.type)).toEqual(['message-start']);
    expect(decoder.push(ev('response.something_new', { x: 1 }))).toEqual([]);
    expect(decoder.push({ data: '{not json' }).map((e) => e.type)).toEqual(['error']);
    expect(decoder.end()).toEqual([]);
  });
});

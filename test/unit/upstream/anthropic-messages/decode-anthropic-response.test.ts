import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { mapAnthropicStopReason } from '../../../../gateway/upstream/anthropic-messages/map-anthropic-stop-reason.ts';
import { contextFor, readExpectation, readJsonFixture, summarize } from '../../../support/replay-fixture.ts';

const decode = (body: unknown, provider: Parameters<typeof contextFor>[0] = 'anthropic') =>
  anthropicMessagesAdapter.decodeResponse(body, contextFor(provider, 'claude-upstream'));

describe('anthropicMessagesAdapter.decodeResponse on recorded fixtures', () => {
  it.each([
    ['text', 'anthropic'],
    ['tool-call', 'anthropic'],
    ['reasoning', 'anthropic'],
    ['mimo-minimal-usage', 'xiaomi'],
    ['prompt-cache-1h', 'anthropic'],
  ] as const)('%s matches its expectation', (name, provider) => {
    const response = decode(readJsonFixture('anthropic-messages', name), provider);
    expect(summarize(response)).toEqual(readExpectation('anthropic-messages', name));
    expect(response.usage.source).toBe('reported');
  });

  it('keeps ids, model, the thinking signature and the tool id', () => {
    const reasoning = decode(readJsonFixture('anthropic-messages', 'reasoning'));
    expect(reasoning.id).toBe('msg_01Rk7nYBvQp3GkWmJ5tNfX2e');
    expect(reasoning.model).toBe('claude-sonnet-4-5-20250929');
    expect(reasoning.content[0]).toMatchObject({
      type: 'reasoning',
      text: 'The user greets me; answer briefly.',
      signature: expect.stringMatching(/^Er/),
    });
    expect(reasoning.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
    const tool = decode(readJsonFixture('anthropic-messages', 'tool-call'));
    expect(tool.content).toEqual([
      { type: 'tool-call', id: 'toolu_01A09q90qw90lq917835lq9J', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    const mimo = decode(readJsonFixture('anthropic-messages', 'mimo-minimal-usage'), 'xiaomi');
    expect(mimo.id).toBe('0198f3c2a7d54e1b9c6f2d8e4a1b7c35');
  });
});

describe('anthropicMessagesAdapter.decodeResponse edge cases', () => {
  const base = { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', stop_sequence: null };

  it('drops server-tool blocks, decodes redacted thinking, stop sequences and thinking tokens', () => {
    const response = decode({
      ...base,
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
        { type: 'redacted_thinking', data: 'EmwKAhgB' },
        { type: 'text', text: 'Done', citations: null },
      ],
      stop_reason: 'stop_sequence',
      stop_sequence: 'END',
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 5,
        cache_read_input_tokens: 100,
        output_tokens: 30,
        output_tokens_details: { thinking_tokens: 12 },
      },
    });
    expect(response.content).toEqual([
      { type: 'reasoning', text: '', redacted: 'EmwKAhgB' },
      { type: 'text', text: 'Done' },
    ]);
    expect(response.stopSequence).toBe('END');
    expect(response.finishReason).toEqual({ unified: 'stop', raw: 'stop_sequence' });
    expect(response.usage).toEqual({
      input: { total: 115, cacheRead: 100, cacheWrite: 5 },
      output: { total: 30, reasoning: 12 },
      source: 'reported',
    });
  });

  it('reports missing usage as estimated zeros, and a missing model as the upstream model', () => {
    const response = decode({ id: 'x', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' });
    expect(response.usage).toEqual({
      input: { total: 0, cacheRead: 0, cacheWrite: 0 },
      output: { total: 0, reasoning: 0 },
      source: 'estimated',
    });
    expect(response.model).toBe('claude-upstream');
  });

  it('throws the classified error for an error envelope', () => {
    const error = (() => {
      try {
        decode({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      kind: 'upstream-unavailable',
      status: 503,
      message: 'Overloaded',
      code: 'overloaded_error',
      allowFailover: true,
    });
  });

  it('throws upstream-malformed for bodies that are not messages', () => {
    expect(() => decode('nope')).toThrow(GatewayError);
    expect(() => decode({ id: 'x', stop_reason: 'end_turn' })).toThrow(/no content/);
    try {
      decode({ content: 'text' });
    } catch (e) {
      expect((e as GatewayError).kind).toBe('upstream-malformed');
    }
  });
});

describe('Anthropic cache writes by lifetime', () => {
  const body = (usage: Record<string, unknown>) => ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage,
  });

  it('reads the 1-hour part of the writes from cache_creation', () => {
    const usage = decode(
      body({
        input_tokens: 5,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
        output_tokens: 2,
      }),
    ).usage;
    expect(usage.input).toEqual({ total: 305, cacheRead: 0, cacheWrite: 300, cacheWrite1h: 200 });
  });

  it('counts no 1-hour writes when cache_creation is absent, null or all 5-minute', () => {
    for (const cacheCreation of [undefined, null, { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 0 }]) {
      const usage = decode(
        body({ input_tokens: 5, cache_creation_input_tokens: 300, cache_creation: cacheCreation }),
      ).usage;
      expect(usage.input).toEqual({ total: 305, cacheRead: 0, cacheWrite: 300 });
    }
  });

  it('never counts more 1-hour writes than writes', () => {
    const usage = decode(
      body({ input_tokens: 5, cache_creation_input_tokens: 10, cache_creation: { ephemeral_1h_input_tokens: 50 } }),
    ).usage;
    expect(usage.input.cacheWrite1h).toBe(10);
  });
});

describe('mapAnthropicStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool-calls'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
    ['brand_new_reason', 'other'],
  ])('%s → %s', (raw, unified) => {
    expect(mapAnthropicStopReason(raw)).toEqual({ unified, raw });
  });

  it('null → other without raw', () => {
    expect(mapAnthropicStopReason(null)).toEqual({ unified: 'other' });
  });
});

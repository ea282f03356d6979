import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import type { ProviderId } from '../../../../gateway/providers/provider-preset.ts';
import { openaiChatAdapter } from '../../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import { contextFor, readExpectation, readFixture, summarize } from '../../../support/replay-fixture.ts';

const FIXTURES: ReadonlyArray<[name: string, provider: ProviderId]> = [
  ['text', 'openai'],
  ['tool-call', 'openai'],
  ['reasoning', 'deepseek'],
  ['minimax-think-tags', 'minimax'],
  ['mimo-null-details', 'xiaomi'],
];

describe('openai-chat decodeResponse: recorded fixtures', () => {
  it.each(FIXTURES)('%s.json matches %s.expect.json', (name, provider) => {
    // JSON.parse tolerates DeepSeek's leading blank-line padding, as the transport's trim does.
    const body = JSON.parse(readFixture('openai-chat', `${name}.json`).trimStart()) as unknown;
    const response = openaiChatAdapter.decodeResponse(body, contextFor(provider));
    expect(summarize(response)).toEqual(readExpectation('openai-chat', name));
    expect(response.usage.source).toBe('reported');
  });

  it('keeps ids, model, block order and the raw finish reason', () => {
    const body = JSON.parse(readFixture('openai-chat', 'reasoning.json')) as unknown;
    const response = openaiChatAdapter.decodeResponse(body, contextFor('deepseek'));
    expect(response.id).toBe('5d0c1a3e-8f4b-4e2a-9c6d-7b1e2f3a4c5d');
    expect(response.model).toBe('deepseek-reasoner');
    expect(response.content.map((b) => b.type)).toEqual(['reasoning', 'text']);
    expect(response.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
  });

  it('keeps the tool call id and raw arguments text', () => {
    const body = JSON.parse(readFixture('openai-chat', 'tool-call.json')) as unknown;
    const response = openaiChatAdapter.decodeResponse(body, contextFor('openai'));
    expect(response.content).toEqual([
      { type: 'tool-call', id: 'call_7Hk2pQ4xN9mZ1aB3cD5eF6gH', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(response.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_calls' });
  });

  it('leaves <think> in the text when the provider has no think-tag quirk', () => {
    const body = JSON.parse(readFixture('openai-chat', 'minimax-think-tags.json')) as unknown;
    const response = openaiChatAdapter.decodeResponse(body, contextFor('openai'));
    expect(response.content).toEqual([
      { type: 'text', text: '<think>\nThe user greets me; answer briefly.\n</think>\n\nHi there!' },
    ]);
  });
});

describe('openai-chat decodeResponse: variants and failures', () => {
  const wrap = (message: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => ({
    id: 'x',
    model: 'm',
    choices: [{ index: 0, message, finish_reason: 'stop' }],
    ...extra,
  });

  it('reads `reasoning` strings and `reasoning_details[].text`', () => {
    const a = openaiChatAdapter.decodeResponse(wrap({ content: 'ok', reasoning: 'r1' }), contextFor('openai'));
    const b = openaiChatAdapter.decodeResponse(
      wrap({
        content: 'ok',
        reasoning_details: [
          { type: 'reasoning.text', text: 'r' },
          { type: 'reasoning.text', text: '2' },
        ],
      }),
      contextFor('minimax'),
    );
    expect(a.content[0]).toEqual({ type: 'reasoning', text: 'r1' });
    expect(b.content[0]).toEqual({ type: 'reasoning', text: 'r2' });
  });

  it('maps stop with tool calls to tool-calls and stringifies object arguments', () => {
    const response = openaiChatAdapter.decodeResponse(
      wrap({
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: { a: 1 } } }],
      }),
      contextFor('openai'),
    );
    expect(response.content).toEqual([{ type: 'tool-call', id: 'call_1', name: 'f', arguments: '{"a":1}' }]);
    expect(response.finishReason).toEqual({ unified: 'tool-calls', raw: 'stop' });
  });

  it('turns a refusal into text with finish content-filter', () => {
    const response = openaiChatAdapter.decodeResponse(
      wrap({ content: null, refusal: "I can't help with that." }),
      contextFor('openai'),
    );
    expect(response.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(response.finishReason).toEqual({ unified: 'content-filter', raw: 'stop' });
  });

  it('reports an absent usage object as estimated zeros, explicit zeros as reported', () => {
    const silent = openaiChatAdapter.decodeResponse(wrap({ content: 'a' }), contextFor('openai'));
    const zeros = openaiChatAdapter.decodeResponse(
      wrap({ content: 'a' }, { usage: { prompt_tokens: 0, completion_tokens: 0 } }),
      contextFor('openai'),
    );
    expect(silent.usage).toEqual({
      input: { total: 0, cacheRead: 0, cacheWrite: 0 },
      output: { total: 0, reasoning: 0 },
      source: 'estimated',
    });
    expect(zeros.usage.source).toBe('reported');
  });

  it('throws the classified error for a 200 body carrying an error envelope (DeepSeek)', () => {
    const body = { error: { message: 'Rate limit reached', type: 'rate_limit_error', code: 429 } };
    let thrown: unknown;
    try {
      openaiChatAdapter.decodeResponse(body, contextFor('deepseek'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).kind).toBe('upstream-rate-limited');
    expect((thrown as GatewayError).message).toBe('Rate limit reached');
  });

  it('throws for a MiniMax 200 body whose base_resp reports insufficient balance (1008)', () => {
    const body = {
      id: '05',
      choices: null,
      created: 1755500000,
      model: 'MiniMax-M2',
      object: 'chat.completion',
      base_resp: { status_code: 1008, status_msg: 'insufficient balance' },
    };
    let thrown: GatewayError | undefined;
    try {
      openaiChatAdapter.decodeResponse(body, contextFor('minimax'));
    } catch (error) {
      thrown = error as GatewayError;
    }
    expect([
      thrown?.kind,
      thrown?.status,
      thrown?.allowFailover,
      thrown?.retryable,
      thrown?.message,
      thrown?.code,
    ]).toEqual(['upstream-rejected', 502, true, false, 'insufficient balance (1008)', '1008']);
  });

  it('throws upstream-malformed for bodies without choices', () => {
    expect(() => openaiChatAdapter.decodeResponse({ id: 'x' }, contextFor('openai'))).toThrow(/no choices/);
    expect(() => openaiChatAdapter.decodeResponse('nope', contextFor('openai'))).toThrow(GatewayError);
  });
});

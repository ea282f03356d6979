import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import { openaiResponsesAdapter } from '../../../../gateway/upstream/openai-responses/openai-responses-adapter.ts';
import { contextFor, readExpectation, readFixture, summarize } from '../../../support/replay-fixture.ts';

const ctx = contextFor('openai');
const decode = (body: unknown) => openaiResponsesAdapter.decodeResponse(body, ctx);
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFixture('openai-responses', `${name}.json`)) as Record<string, unknown>;

describe('openai-responses decodeResponse: recorded fixtures', () => {
  it.each(['text', 'tool-call', 'reasoning'])('%s.json matches its expect.json', (name) => {
    expect(summarize(decode(fixture(name)))).toEqual(readExpectation('openai-responses', name));
  });

  it('keeps the reasoning signature (encrypted_content), call ids and raw status', () => {
    const reasoning = decode(fixture('reasoning'));
    expect(reasoning.id).toBe('resp_68a2f4c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0');
    expect(reasoning.model).toBe('gpt-5-mini-2025-08-07');
    expect(reasoning.content[0]).toMatchObject({
      type: 'reasoning',
      text: 'The user greets me; answer briefly.',
      signature: expect.stringMatching(/^gAAAAAB/),
    });
    expect(reasoning.finishReason).toEqual({ unified: 'stop', raw: 'completed' });
    const tool = decode(fixture('tool-call'));
    expect(tool.content).toEqual([
      { type: 'tool-call', id: 'call_Q4xN9mZ1aB3cD5eF6gH7iJ8k', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
  });
});

describe('openai-responses decodeResponse: statuses and failures', () => {
  const base = fixture('text');

  it('incomplete by max_output_tokens → length; by content_filter → content-filter', () => {
    expect(
      decode({ ...base, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }).finishReason,
    ).toEqual({ unified: 'length', raw: 'max_output_tokens' });
    expect(
      decode({ ...base, status: 'incomplete', incomplete_details: { reason: 'content_filter' } }).finishReason,
    ).toEqual({ unified: 'content-filter', raw: 'content_filter' });
  });

  it('a refusal part becomes text with finish content-filter', () => {
    const response = decode({
      ...base,
      output: [
        {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'refusal', refusal: "I can't help with that." }],
        },
      ],
    });
    expect(response.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(response.finishReason.unified).toBe('content-filter');
  });

  it('skips empty unsigned reasoning items and unknown item types; null usage → estimated', () => {
    const response = decode({
      ...base,
      usage: null,
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [] },
        { id: 'ws_1', type: 'web_search_call', status: 'completed' },
        ...(base.output as unknown[]),
      ],
    });
    expect(response.content).toEqual([{ type: 'text', text: 'Hello! How can I help you today?' }]);
    expect(response.usage.source).toBe('estimated');
  });

  it('status failed → throws the classified error', () => {
    let thrown: unknown;
    try {
      decode({ ...base, status: 'failed', output: [], error: { code: 'rate_limit_exceeded', message: 'Slow down' } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect([(thrown as GatewayError).kind, (thrown as GatewayError).message, (thrown as GatewayError).code]).toEqual([
      'upstream-rate-limited',
      'Slow down',
      'rate_limit_exceeded',
    ]);
  });

  it('an HTTP error envelope with a 2xx → classified error; nonsense → upstream-malformed', () => {
    expect(() => decode({ error: { message: 'Internal error', type: 'server_error' } })).toThrow('Internal error');
    expect(() => decode({ id: 'resp_x', object: 'response' })).toThrow(/no output array/);
  });
});

/**
 * Replays the encoder's SSE text through the official @anthropic-ai/sdk (`messages.stream()` →
 * `finalMessage()`), served by a loopback node:http server.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { anthropicMessagesCodec } from '../../../../gateway/inbound/anthropic-messages/anthropic-messages-codec.ts';
import { startCannedSseServer, type CannedSseServer } from '../../../support/canned-sse-server.ts';

let server: CannedSseServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startCannedSseServer();
  client = new Anthropic({ baseURL: server.origin, apiKey: 'sk-test', maxRetries: 0 });
});

afterAll(() => server.close());

function encode(events: StreamEvent[]): string {
  const encoder = anthropicMessagesCodec.createStreamEncoder({
    requestId: 'req_1',
    model: 'claude-test',
    request: { clientFormat: 'anthropic-messages', model: 'claude-test', stream: true, messages: [] },
    rawRequest: {},
    createdAt: 0,
  });
  return events.map((event) => encoder.encode(event)).join('');
}

const params = {
  model: 'claude-test',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'Weather in Oslo?' }],
};

describe('@anthropic-ai/sdk reads the Anthropic stream encoder', () => {
  it('finalMessage() rebuilds thinking, text, tool_use input, stop_reason and usage', async () => {
    const response: CanonicalResponse = {
      id: 'up',
      model: 'up',
      content: [
        { type: 'reasoning', text: 'Need the tool.', signature: 'sig-1' },
        { type: 'text', text: 'Checking the weather.' },
        { type: 'tool-call', id: 'toolu_01', name: 'get_weather', arguments: '{"city":"Oslo","units":"metric"}' },
      ],
      finishReason: finishReason('tool-calls'),
      usage: makeUsage({ inputTotal: 500, cacheRead: 100, cacheWrite: 20, outputTotal: 42 }),
    };
    const events = responseToStreamEvents(response, 4).map((e) =>
      e.type === 'message-start' ? { ...e, usage: response.usage } : e,
    );
    server.setSse(encode(events));
    const message = await client.messages.stream(params).finalMessage();
    expect(message.model).toBe('claude-test');
    expect(message.content).toStrictEqual([
      { type: 'thinking', thinking: 'Need the tool.', signature: 'sig-1' },
      { type: 'text', text: 'Checking the weather.' },
      { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo', units: 'metric' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.stop_sequence).toBeNull();
    expect(message.usage).toMatchObject({
      input_tokens: 380,
      cache_creation_input_tokens: 20,
      cache_read_input_tokens: 100,
      output_tokens: 42,
    });
  });

  it('surfaces a mid-stream error event as an APIError', async () => {
    const events: StreamEvent[] = [
      { type: 'message-start', messageId: 'u', model: 'u' },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, text: 'partial' },
      { type: 'error', error: new GatewayError('upstream-unavailable', 'Upstream connection reset') },
    ];
    server.setSse(encode(events));
    await expect(client.messages.stream(params).finalMessage()).rejects.toThrow(/Upstream connection reset/);
  });
});

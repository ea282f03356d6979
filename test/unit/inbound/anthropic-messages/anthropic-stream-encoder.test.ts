import { describe, expect, it } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { anthropicMessagesCodec } from '../../../../gateway/inbound/anthropic-messages/anthropic-messages-codec.ts';
import type { EncodeContext } from '../../../../gateway/inbound/inbound-codec.ts';

const context: EncodeContext = {
  requestId: 'req_1',
  model: 'kimi-k2.6',
  request: { clientFormat: 'anthropic-messages', model: 'kimi-k2.6', stream: true, messages: [] },
  rawRequest: {},
  createdAt: 1_700_000_000,
};

/** A composed example answer (event shapes per https://docs.anthropic.com/en/docs/build-with-claude/streaming) as a canonical response. */
const composedResponse: CanonicalResponse = {
  id: 'up-1',
  model: 'kimi-k2.6',
  content: [
    { type: 'reasoning', text: 'User wants Oslo weather; call the tool.', signature: 'EqQBCkYIARgC' },
    { type: 'text', text: 'Checking the weather.' },
    { type: 'tool-call', id: 'toolu_01AbC', name: 'get_weather', arguments: '{"city": "Oslo"}' },
  ],
  finishReason: finishReason('tool-calls', 'tool_use'),
  usage: makeUsage({ inputTotal: 2460, cacheRead: 2048, outputTotal: 87 }),
};

function encodeAll(events: StreamEvent[]): string {
  const encoder = anthropicMessagesCodec.createStreamEncoder(context);
  return events.map((event) => encoder.encode(event)).join('');
}

function withStartUsage(events: StreamEvent[], usage: CanonicalResponse['usage']): StreamEvent[] {
  return events.map((event) => (event.type === 'message-start' ? { ...event, usage } : event));
}

const EXPECTED_COMPOSED = `event: message_start
data: {"type":"message_start","message":{"id":"MSG_ID","type":"message","role":"assistant","model":"kimi-k2.6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":412,"cache_creation_input_tokens":0,"cache_read_input_tokens":2048,"output_tokens":1}}}

event: ping
data: {"type":"ping"}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"User wants Oslo weather; call the tool."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIARgC"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking the weather."}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01AbC","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Oslo\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":412,"cache_creation_input_tokens":0,"cache_read_input_tokens":2048,"output_tokens":87}}

event: message_stop
data: {"type":"message_stop"}

`;

describe('anthropic stream encoder', () => {
  it('emits the composed example byte for byte', () => {
    const text = encodeAll(withStartUsage(responseToStreamEvents(composedResponse), composedResponse.usage));
    const id = /"id":"(msg_[0-9a-f]{24})"/.exec(text)?.[1];
    expect(id).toBeDefined();
    expect(text.replace(id ?? '', 'MSG_ID')).toBe(EXPECTED_COMPOSED);
  });

  it('names every event after its JSON type, in grammar order', () => {
    const text = encodeAll(responseToStreamEvents(composedResponse, 5));
    const frames = text.split('\n\n').filter((frame) => frame !== '');
    const names = frames.map((frame) => {
      const [eventLine, dataLine, ...rest] = frame.split('\n');
      expect(rest).toStrictEqual([]);
      const name = eventLine?.replace(/^event: /, '');
      expect((JSON.parse(dataLine?.replace(/^data: /, '') ?? '') as { type: string }).type).toBe(name);
      return name;
    });
    expect(names[0]).toBe('message_start');
    expect(names.slice(-2)).toStrictEqual(['message_delta', 'message_stop']);
    expect(names.filter((n) => n === 'content_block_start')).toHaveLength(3);
    expect(names.filter((n) => n === 'content_block_delta').length).toBeGreaterThan(5);
    expect(text).not.toContain('[DONE]');
  });

  it('starts with zero input tokens when message-start has no usage and uses a stop sequence', () => {
    const response: CanonicalResponse = {
      id: 'x',
      model: 'x',
      content: [{ type: 'text', text: 'a' }],
      finishReason: finishReason('stop'),
      stopSequence: '###',
      usage: makeUsage({ inputTotal: 3, outputTotal: 1 }),
    };
    const events = responseToStreamEvents(response).map((e) =>
      e.type === 'message-start' ? { type: e.type, messageId: e.messageId, model: e.model } : e,
    );
    const text = encodeAll(events);
    expect(text).toContain(
      '"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}',
    );
    expect(text).toContain(
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"###"},"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}\n\n',
    );
  });

  it('renders a redacted reasoning block as a complete redacted_thinking block', () => {
    const response: CanonicalResponse = {
      id: 'x',
      model: 'x',
      content: [{ type: 'reasoning', text: '', redacted: 'EmwK' }],
      finishReason: finishReason('stop'),
      usage: makeUsage({}),
    };
    const text = encodeAll(responseToStreamEvents(response));
    expect(text).toContain(
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwK"}}\n\nevent: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    );
  });

  it('ends a failed stream with an error event and nothing after it', () => {
    const encoder = anthropicMessagesCodec.createStreamEncoder(context);
    const head =
      encoder.encode({ type: 'message-start', messageId: 'u', model: 'm' }) +
      encoder.encode({ type: 'text-start', index: 0 }) +
      encoder.encode({ type: 'text-delta', index: 0, text: 'par' });
    const error = encoder.encode({
      type: 'error',
      error: new GatewayError('upstream-unavailable', 'Upstream connection reset'),
    });
    expect(head).toContain('event: content_block_delta');
    expect(error).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"Upstream connection reset"}}\n\n',
    );
    expect(encoder.encode({ type: 'block-end', index: 0 })).toBe('');
    expect(encoder.encode({ type: 'message-end', finishReason: finishReason('stop'), usage: makeUsage({}) })).toBe('');
  });

  it('pings for keep-alive', () => {
    const encoder = anthropicMessagesCodec.createStreamEncoder(context);
    expect(encoder.keepAlive()).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(encoder.encode({ type: 'keep-alive' })).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });
});

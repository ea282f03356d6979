import { describe, expect, it } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { geminiCodec } from '../../../../gateway/inbound/gemini/gemini-codec.ts';
import type { EncodeContext } from '../../../../gateway/inbound/inbound-codec.ts';

const context: EncodeContext = {
  requestId: 'req_1',
  model: 'gemini-2.5-flash',
  request: { clientFormat: 'gemini', model: 'gemini-2.5-flash', stream: true, messages: [] },
  rawRequest: {},
  createdAt: 1_700_000_000,
};

const response: CanonicalResponse = {
  id: 'up',
  model: 'up',
  content: [
    { type: 'reasoning', text: 'Hmm.', signature: 'sig-r' },
    { type: 'text', text: 'Line\u2028break and NEL\u0085.' },
    { type: 'tool-call', id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo","days":2}' },
  ],
  finishReason: finishReason('tool-calls'),
  usage: makeUsage({ inputTotal: 61, outputTotal: 30, reasoning: 10 }),
};

function encodeAll(events: StreamEvent[]): string {
  const encoder = geminiCodec.createStreamEncoder(context);
  return events.map((event) => encoder.encode(event)).join('');
}

const EXPECTED = `data: {"candidates":[{"content":{"parts":[{"text":"Hmm.","thought":true}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"RID"}

data: {"candidates":[{"content":{"parts":[{"text":"","thought":true,"thoughtSignature":"sig-r"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"RID"}

data: {"candidates":[{"content":{"parts":[{"text":"Line\\u2028break and NEL\\u0085."}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"RID"}

data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Oslo","days":2},"id":"call_9"}}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"RID"}

data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":61,"candidatesTokenCount":20,"thoughtsTokenCount":10,"totalTokenCount":91},"modelVersion":"gemini-2.5-flash","responseId":"RID"}

`;

describe('gemini stream encoder', () => {
  it('emits data-only chunks byte for byte, buffering tool arguments into one functionCall', () => {
    const text = encodeAll(responseToStreamEvents(response));
    const id = /"responseId":"(resp_[0-9a-f]{24})"/.exec(text)?.[1] ?? 'missing';
    expect(text.replaceAll(id, 'RID')).toBe(EXPECTED);
  });

  it('obeys the framing rules every Gemini SDK needs', () => {
    const text = encodeAll(responseToStreamEvents(response, 2));
    expect(text).not.toMatch(/^event:/m);
    expect(text).not.toMatch(/^:/m);
    expect(text).not.toContain('[DONE]');
    expect(text).not.toMatch(/[\u2028\u2029\u0085]/);
    expect(text.endsWith('}\n\n')).toBe(true);
    const frames = text.split('\n\n').filter((frame) => frame !== '');
    const ids = new Set<string>();
    for (const frame of frames) {
      expect(frame.startsWith('data: ')).toBe(true);
      expect(frame).not.toContain('\n');
      const chunk = JSON.parse(frame.slice('data: '.length)) as {
        candidates: Array<{ content: { role: string; parts: Array<Record<string, unknown>> }; index: number }>;
        modelVersion: string;
        responseId: string;
      };
      expect(chunk.candidates[0]?.content.role).toBe('model');
      expect(chunk.candidates[0]?.index).toBe(0);
      expect(chunk.candidates[0]?.content.parts.length).toBeGreaterThan(0);
      expect(chunk.modelVersion).toBe('gemini-2.5-flash');
      ids.add(chunk.responseId);
    }
    expect(ids.size).toBe(1);
    expect(frames.filter((frame) => frame.includes('functionCall'))).toHaveLength(1);
  });

  it('reports a late error as a data frame followed by the bare JSON, then stays silent', () => {
    const encoder = geminiCodec.createStreamEncoder(context);
    encoder.encode({ type: 'message-start', messageId: 'u', model: 'u' });
    encoder.encode({ type: 'text-start', index: 0 });
    expect(encoder.encode({ type: 'text-delta', index: 0, text: 'par' })).toContain('"text":"par"');
    const error = encoder.encode({
      type: 'error',
      error: new GatewayError('upstream-unavailable', 'Upstream connection reset'),
    });
    const json = '{"error":{"code":502,"message":"Upstream connection reset","status":"UNAVAILABLE"}}';
    expect(error).toBe(`data: ${json}\n\n${json}\n`);
    expect(encoder.encode({ type: 'message-end', finishReason: finishReason('stop'), usage: makeUsage({}) })).toBe('');
  });

  it('flushes a tool call still open at message-end into the final chunk; keep-alive is a blank line', () => {
    const encoder = geminiCodec.createStreamEncoder(context);
    const text = [
      encoder.encode({ type: 'message-start', messageId: 'u', model: 'u' }),
      encoder.encode({ type: 'tool-input-start', index: 0, toolCallId: 'c1', toolName: 'f', signature: 'sig' }),
      encoder.encode({ type: 'tool-input-delta', index: 0, argumentsFragment: '{"a"' }),
      encoder.encode({ type: 'keep-alive' }),
      encoder.encode({ type: 'tool-input-delta', index: 0, argumentsFragment: ':1}' }),
      encoder.encode({
        type: 'message-end',
        finishReason: finishReason('length'),
        usage: makeUsage({ inputTotal: 1, outputTotal: 2 }),
      }),
    ].join('');
    expect(text.replace(/resp_[0-9a-f]{24}/, 'RID')).toBe(
      '\ndata: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1},"id":"c1"},"thoughtSignature":"sig"}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],' +
        '"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":2,"totalTokenCount":3},"modelVersion":"gemini-2.5-flash","responseId":"RID"}\n\n',
    );
    expect(encoder.keepAlive()).toBe('\n');
  });
});

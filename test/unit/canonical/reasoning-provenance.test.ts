import { describe, expect, it } from 'vitest';
import {
  hasStampedReasoning,
  readReasoningOrigin,
  reasoningForChannel,
  stampReasoning,
  stampStreamEvent,
} from '../../../gateway/canonical/reasoning-provenance.ts';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';

function history(signature: string, callSignature?: string, redacted?: string): CanonicalRequest {
  return {
    clientFormat: 'anthropic-messages',
    model: 'm',
    stream: false,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Let me look.', signature },
          ...(redacted === undefined ? [] : [{ type: 'reasoning' as const, text: '', redacted }]),
          {
            type: 'tool-call',
            id: 'c1',
            name: 'get_weather',
            arguments: '{}',
            ...(callSignature ? { signature: callSignature } : {}),
          },
        ],
      },
      { role: 'user', content: [{ type: 'tool-result', toolCallId: 'c1', content: 'sunny' }] },
    ],
  };
}

describe('reasoning provenance', () => {
  it('stamps are opaque base64 and read back to provider and value', () => {
    const stamped = stampReasoning('CijEfiI9Fu3Y/x+=', 'gemini');
    expect(stamped).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(Buffer.from(stamped, 'base64')).toString('base64')).toBe(stamped);
    expect(readReasoningOrigin(stamped)).toEqual({ provider: 'gemini', value: 'CijEfiI9Fu3Y/x+=' });
    expect(readReasoningOrigin('ErUvImZaYMEt')).toEqual({ provider: undefined, value: 'ErUvImZaYMEt' });
    // A raw value that happens to start like a stamp but is not one stays as it is.
    expect(readReasoningOrigin('dGcxAAAA')).toEqual({ provider: undefined, value: 'dGcxAAAA' });
  });

  it('restores values minted by the channel provider and leaves out every other one', () => {
    const request = history(
      stampReasoning('sig-a', 'anthropic'),
      stampReasoning('sig-g', 'gemini'),
      stampReasoning('red-a', 'anthropic'),
    );
    expect(hasStampedReasoning(request)).toBe(true);
    const toAnthropic = reasoningForChannel(request, 'anthropic', 'anthropic-messages');
    expect(toAnthropic.request.messages[1]?.content).toEqual([
      { type: 'reasoning', text: 'Let me look.', signature: 'sig-a' },
      { type: 'reasoning', text: '', redacted: 'red-a' },
      { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{}' },
    ]);
    expect(toAnthropic.dropped).toEqual([
      'messages.1.content.2: tool call signature minted by gemini cannot be verified by anthropic; left out',
    ]);
    const toGemini = reasoningForChannel(request, 'gemini', 'gemini');
    expect(toGemini.request.messages[1]?.content).toEqual([
      { type: 'reasoning', text: 'Let me look.' },
      { type: 'reasoning', text: '' },
      { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{}', signature: 'sig-g' },
    ]);
    const toOpenAI = reasoningForChannel(request, 'openai', 'openai-responses');
    expect(JSON.stringify(toOpenAI.request)).not.toMatch(/sig-|red-/);
    expect(toOpenAI.dropped).toHaveLength(3);
  });

  it('an unstamped value goes only to channels of the client’s own protocol', () => {
    const request = history('raw-anthropic-signature');
    expect(hasStampedReasoning(request)).toBe(false);
    expect(reasoningForChannel(request, 'anthropic', 'anthropic-messages').request.messages[1]?.content[0]).toEqual({
      type: 'reasoning',
      text: 'Let me look.',
      signature: 'raw-anthropic-signature',
    });
    expect(reasoningForChannel(request, 'openai', 'openai-responses').request.messages[1]?.content[0]).toEqual({
      type: 'reasoning',
      text: 'Let me look.',
    });
    expect(reasoningForChannel(request, 'deepseek', 'openai-chat').dropped).toHaveLength(1);
  });

  it('stamps streamed signatures, redacted starts and signed tool calls', () => {
    expect(
      readReasoningOrigin(
        (
          stampStreamEvent({ type: 'reasoning-signature', index: 0, signature: 's' }, 'anthropic') as {
            signature: string;
          }
        ).signature,
      ),
    ).toEqual({ provider: 'anthropic', value: 's' });
    expect(stampStreamEvent({ type: 'text-delta', index: 1, text: 'x' } as never, 'anthropic')).toEqual({
      type: 'text-delta',
      index: 1,
      text: 'x',
    });
  });
});

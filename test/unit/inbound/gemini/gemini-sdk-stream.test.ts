/**
 * Replays the encoder's SSE text through the official @google/genai SDK
 * (`models.generateContentStream`, `chats.create().sendMessageStream()` + `getHistory(true)`),
 * served by a loopback node:http server.
 */
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { geminiCodec } from '../../../../gateway/inbound/gemini/gemini-codec.ts';
import { startCannedSseServer, type CannedSseServer } from '../../../support/canned-sse-server.ts';

let server: CannedSseServer;
let ai: GoogleGenAI;

beforeAll(async () => {
  server = await startCannedSseServer();
  ai = new GoogleGenAI({ apiKey: 'sk-test', httpOptions: { baseUrl: server.origin } });
});

afterAll(() => server.close());

function encode(events: StreamEvent[]): string {
  const encoder = geminiCodec.createStreamEncoder({
    requestId: 'req_1',
    model: 'gemini-test',
    request: { clientFormat: 'gemini', model: 'gemini-test', stream: true, messages: [] },
    rawRequest: {},
    createdAt: 0,
  });
  return events.map((event) => encoder.encode(event)).join('');
}

const textResponse: CanonicalResponse = {
  id: 'up',
  model: 'up',
  content: [
    { type: 'reasoning', text: 'Thinking.' },
    { type: 'text', text: 'It is 4 °C\u2028and raining.' },
  ],
  finishReason: finishReason('stop'),
  usage: makeUsage({ inputTotal: 61, cacheRead: 32, outputTotal: 52, reasoning: 40 }),
};

describe('@google/genai reads the Gemini stream encoder', () => {
  it('generateContentStream yields text chunks, then finishReason and usageMetadata', async () => {
    server.setSse(encode(responseToStreamEvents(textResponse, 5)));
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream({
      model: 'gemini-test',
      contents: 'Weather in Oslo?',
    }))
      chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe('It is 4 °C\u2028and raining.');
    const last = chunks.at(-1);
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata).toMatchObject({
      promptTokenCount: 61,
      candidatesTokenCount: 12,
      thoughtsTokenCount: 40,
      cachedContentTokenCount: 32,
      totalTokenCount: 113,
    });
    expect(last?.modelVersion).toBe('gemini-test');
    expect(new Set(chunks.map((chunk) => chunk.responseId)).size).toBe(1);
  });

  it('delivers a buffered function call as one part with parsed args', async () => {
    const response: CanonicalResponse = {
      id: 'up',
      model: 'up',
      content: [{ type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo","days":3}' }],
      finishReason: finishReason('tool-calls'),
      usage: makeUsage({ inputTotal: 10, outputTotal: 5 }),
    };
    server.setSse(encode(responseToStreamEvents(response, 4)));
    const calls = [];
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-test', contents: 'x' }))
      calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toStrictEqual([{ name: 'get_weather', args: { city: 'Oslo', days: 3 }, id: 'call_1' }]);
  });

  it('chats keep the streamed model turn in the curated history', async () => {
    server.setSse(encode(responseToStreamEvents(textResponse, 7)));
    const chat = ai.chats.create({ model: 'gemini-test' });
    let text = '';
    for await (const chunk of await chat.sendMessageStream({ message: 'Weather in Oslo?' })) text += chunk.text ?? '';
    expect(text).toBe('It is 4 °C\u2028and raining.');
    const history = chat.getHistory(true);
    // The SDK records one model Content per kept chunk; a chunk without role would drop them all.
    expect(history[0]?.role).toBe('user');
    const modelTurns = history.slice(1);
    expect(modelTurns.length).toBeGreaterThan(1);
    expect(modelTurns.every((content) => content.role === 'model')).toBe(true);
    const visible = modelTurns
      .flatMap((content) => content.parts ?? [])
      .filter((part) => part.thought !== true)
      .map((part) => part.text ?? '')
      .join('');
    expect(visible).toBe('It is 4 °C\u2028and raining.');
  });

  it('throws on a late error', async () => {
    server.setSse(
      encode([
        { type: 'message-start', messageId: 'u', model: 'u' },
        { type: 'text-start', index: 0 },
        { type: 'text-delta', index: 0, text: 'partial' },
        { type: 'error', error: new GatewayError('upstream-unavailable', 'Upstream connection reset') },
      ]),
    );
    const consume = async (): Promise<void> => {
      for await (const _chunk of await ai.models.generateContentStream({ model: 'gemini-test', contents: 'x' })) {
        // drain
      }
    };
    await expect(consume()).rejects.toThrow(/Upstream connection reset/);
  });
});

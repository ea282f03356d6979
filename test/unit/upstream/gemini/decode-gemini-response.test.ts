import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import { geminiAdapter } from '../../../../gateway/upstream/gemini/gemini-adapter.ts';
import { mapGeminiFinishReason } from '../../../../gateway/upstream/gemini/map-gemini-finish-reason.ts';
import { contextFor, readExpectation, readJsonFixture, summarize } from '../../../support/replay-fixture.ts';

const decode = (body: unknown) => geminiAdapter.decodeResponse(body, contextFor('gemini', 'gemini-upstream'));
const candidate = (parts: unknown[], finishReason = 'STOP') => ({
  candidates: [{ content: { parts, role: 'model' }, finishReason, index: 0 }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
});

describe('geminiAdapter.decodeResponse on recorded fixtures', () => {
  it.each(['text', 'tool-call', 'reasoning'])('%s matches its expectation', (name) => {
    const response = decode(readJsonFixture('gemini', name));
    expect(summarize(response)).toEqual(readExpectation('gemini', name));
    expect(response.usage.source).toBe('reported');
  });

  it('keeps responseId, modelVersion, and the functionCall thoughtSignature; mints call ids', () => {
    const response = decode(readJsonFixture('gemini', 'tool-call'));
    expect(response.id).toBe('OXfbaKGAA9-Oz7IPt6nZgQ0');
    expect(response.model).toBe('gemini-2.5-flash');
    expect(response.content).toEqual([
      {
        type: 'tool-call',
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
        signature: expect.stringMatching(/^Ci/),
      },
    ]);
    expect(response.finishReason).toEqual({ unified: 'tool-calls', raw: 'STOP' });
  });
});

describe('geminiAdapter.decodeResponse parts', () => {
  it('merges adjacent text parts and keeps functionCall ids', () => {
    const response = decode(
      candidate([
        { text: 'Hello ' },
        { text: 'world' },
        { functionCall: { name: 'f', id: 'fc-1' } },
        { text: 'after' },
      ]),
    );
    expect(response.content).toEqual([
      { type: 'text', text: 'Hello world' },
      { type: 'tool-call', id: 'fc-1', name: 'f', arguments: '{}' },
      { type: 'text', text: 'after' },
    ]);
  });

  it('attaches a bare signature part to the preceding unsigned reasoning block', () => {
    const response = decode(
      candidate([{ text: 'thinking…', thought: true }, { text: '', thoughtSignature: 'sig-1' }, { text: 'Answer' }]),
    );
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'thinking…', signature: 'sig-1' },
      { type: 'text', text: 'Answer' },
    ]);
  });

  it('leaves out a signature that rode on text (or followed it): no empty reasoning block ends the answer', () => {
    expect(decode(candidate([{ text: 'Answer', thoughtSignature: 'sig-2' }])).content).toEqual([
      { type: 'text', text: 'Answer' },
    ]);
    expect(decode(candidate([{ text: 'Answer' }, { text: '', thoughtSignature: 'sig-3' }])).content).toEqual([
      { type: 'text', text: 'Answer' },
    ]);
    // Before any text, a lone signature still becomes a reasoning block the next request can echo.
    expect(decode(candidate([{ text: '', thoughtSignature: 'sig-4' }, { text: 'Answer' }])).content).toEqual([
      { type: 'reasoning', text: '', signature: 'sig-4' },
      { type: 'text', text: 'Answer' },
    ]);
  });

  it('signs thought parts with their own signature and splits differently signed thoughts', () => {
    expect(
      decode(
        candidate([
          { text: 'a', thought: true, thoughtSignature: 's1' },
          { text: 'b', thought: true, thoughtSignature: 's2' },
        ]),
      ).content,
    ).toEqual([
      { type: 'reasoning', text: 'a', signature: 's1' },
      { type: 'reasoning', text: 'b', signature: 's2' },
    ]);
  });

  it('reports a blocked prompt as content-filter with no content', () => {
    const response = decode({
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'r1',
    });
    expect(response.content).toEqual([]);
    expect(response.finishReason).toEqual({ unified: 'content-filter', raw: 'PROHIBITED_CONTENT' });
    expect(response.usage.input.total).toBe(9);
  });

  it('reports missing usageMetadata as estimated and fills model / id', () => {
    const response = decode({
      candidates: [{ content: { parts: [{ text: 'x' }], role: 'model' }, finishReason: 'MAX_TOKENS' }],
    });
    expect(response.usage).toEqual({
      input: { total: 0, cacheRead: 0, cacheWrite: 0 },
      output: { total: 0, reasoning: 0 },
      source: 'estimated',
    });
    expect(response.model).toBe('gemini-upstream');
    expect(response.id).toMatch(/^resp_/);
    expect(response.finishReason).toEqual({ unified: 'length', raw: 'MAX_TOKENS' });
  });

  it('throws the classified error for an error body and upstream-malformed for nonsense', () => {
    expect(() => decode({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } })).toThrow(
      expect.objectContaining({ kind: 'upstream-unavailable', status: 503 }),
    );
    expect(() => decode({})).toThrow(expect.objectContaining({ kind: 'upstream-malformed' }));
    expect(() => decode({ candidates: 'x' })).toThrow(GatewayError);
  });
});

describe('mapGeminiFinishReason', () => {
  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool-calls'],
    ['MAX_TOKENS', false, 'length'],
    ['SAFETY', false, 'content-filter'],
    ['RECITATION', false, 'content-filter'],
    ['BLOCKLIST', false, 'content-filter'],
    ['PROHIBITED_CONTENT', false, 'content-filter'],
    ['SPII', false, 'content-filter'],
    ['IMAGE_SAFETY', false, 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', true, 'other'],
    ['OTHER', false, 'other'],
    ['FINISH_REASON_UNSPECIFIED', false, 'other'],
  ] as const)('%s (tool call: %s) → %s', (raw, toolCall, unified) => {
    expect(mapGeminiFinishReason(raw, toolCall)).toEqual({ unified, raw });
  });
});

/**
 * readChatChunk reads a stream chunk exactly as chatCompletionSchema does: the common text-delta
 * chunk is returned as it is (no copy), every other chunk goes through the schema, and for each
 * the fields the decoder reads hold the same values.
 */
import { describe, expect, it } from 'vitest';
import {
  chatCompletionSchema,
  readChatChunk,
} from '../../../../gateway/upstream/openai-chat/openai-chat-wire-schemas.ts';

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x' };
const withDelta = (delta: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...base,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
});

/** What the decoder reads from a chunk, as plain data. */
function readFields(chunk: ReturnType<typeof readChatChunk>): unknown {
  const choice = chunk.choices?.[0];
  const delta = choice?.delta;
  return {
    id: chunk.id ?? null,
    model: chunk.model ?? null,
    usage: chunk.usage ?? null,
    choiceCount: chunk.choices?.length ?? null,
    finish: choice?.finish_reason ?? null,
    choiceUsage: choice?.usage ?? null,
    content: delta?.content ?? null,
    refusal: delta?.refusal ?? null,
    reasoningContent: delta?.reasoning_content ?? null,
    reasoning: delta?.reasoning ?? null,
    reasoningDetails: delta?.reasoning_details ?? null,
    toolCalls: delta?.tool_calls ?? null,
    functionCall: delta?.function_call ?? null,
  };
}

const plain: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['a text delta', withDelta({ content: 'Hello' })],
  ['the first delta with its role', withDelta({ role: 'assistant', content: '' })],
  ['a reasoning delta', withDelta({ reasoning_content: 'thinking' })],
  ['the finishing chunk', withDelta({}, { finish_reason: 'stop' })],
  ['a null delta', withDelta(null)],
  ['the usage chunk', { ...base, choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }],
  ['usage on the choice (Moonshot)', withDelta({}, { usage: { prompt_tokens: 1 } })],
  ['no choices at all', { ...base }],
];

const parsed: ReadonlyArray<[string, Record<string, unknown>]> = [
  [
    'a tool-call fragment',
    withDelta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{' } }] }),
  ],
  ['reasoning details', withDelta({ reasoning_details: [{ text: 'a' }, 'junk'] })],
  ['a legacy function call', withDelta({ function_call: { name: 'f', arguments: '{}' } })],
  ['an id of the wrong type', { ...withDelta({ content: 'x' }), id: 42 }],
  ['a numeric finish reason', withDelta({ content: 'x' }, { finish_reason: 7 })],
  ['reasoning of the wrong type', withDelta({ reasoning: { text: 'x' } })],
  ['two choices', { ...base, choices: [{ delta: { content: 'a' } }, { delta: { content: 'b' } }] }],
  ['a choice that is not an object', { ...base, choices: ['junk'] }],
  ['a delta that is an array', withDelta(['x'])],
  ['choices that are not an array', { ...base, choices: { 0: {} } }],
  ['a message in a chunk', withDelta({ content: 'x' }, { message: { content: 'y' } })],
];

describe('readChatChunk', () => {
  it.each(plain)('returns %s as it is, reading as the schema does', (_name, chunk) => {
    const read = readChatChunk(chunk);
    expect(read).toBe(chunk);
    expect(readFields(read)).toEqual(readFields(chatCompletionSchema.parse(chunk)));
  });

  it.each(parsed)('parses %s with the schema', (_name, chunk) => {
    const read = readChatChunk(chunk);
    expect(read).not.toBe(chunk);
    expect(read).toEqual(chatCompletionSchema.parse(chunk));
  });
});

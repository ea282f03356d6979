/**
 * readChatCompletion and isPlainChatUsage read a non-streamed body and a usage object exactly as
 * chatCompletionSchema and chatUsageSchema do: the common shapes are used as they are (no copy),
 * every other one goes through the schema, and for each the fields the decoder reads hold the
 * same values.
 */
import { describe, expect, it } from 'vitest';
import { normalizeChatUsage } from '../../../../gateway/upstream/openai-chat/normalize-chat-usage.ts';
import {
  chatCompletionSchema,
  chatUsageSchema,
  isPlainChatUsage,
  readChatCompletion,
} from '../../../../gateway/upstream/openai-chat/openai-chat-wire-schemas.ts';

const base = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-x' };
const withMessage = (message: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...base,
  choices: [{ index: 0, message, logprobs: null, finish_reason: 'stop', ...extra }],
  usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
});

/** What decodeChatResponse reads from a body, as plain data. */
function readFields(body: ReturnType<typeof readChatCompletion>): unknown {
  const choice = body.choices?.[0];
  const message = choice?.message;
  return {
    id: body.id ?? null,
    model: body.model ?? null,
    usage: body.usage ?? null,
    finish: choice?.finish_reason ?? null,
    choiceUsage: choice?.usage ?? null,
    content: message?.content ?? null,
    refusal: message?.refusal ?? null,
    reasoningContent: message?.reasoning_content ?? null,
    reasoning: message?.reasoning ?? null,
    reasoningDetails: message?.reasoning_details ?? null,
    toolCalls: message?.tool_calls ?? null,
    functionCall: message?.function_call ?? null,
  };
}

const plainBodies: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['a text answer', withMessage({ role: 'assistant', content: 'Hello', refusal: null })],
  ['an answer with reasoning text', withMessage({ role: 'assistant', content: 'Hi', reasoning_content: 'hmm' })],
  ['content as a part array', withMessage({ role: 'assistant', content: [{ type: 'text', text: 'Hi' }] })],
  ['a null message', withMessage(null)],
  ['a null finish reason', withMessage({ content: 'x' }, { finish_reason: null })],
  ['usage on the choice (Moonshot)', withMessage({ content: 'x' }, { usage: { prompt_tokens: 1 } })],
  ['no id or model', { choices: [{ message: { content: 'x' } }] }],
];

const parsedBodies: ReadonlyArray<[string, Record<string, unknown>]> = [
  [
    'tool calls',
    withMessage({
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    }),
  ],
  ['a legacy function call', withMessage({ content: null, function_call: { name: 'f', arguments: '{}' } })],
  ['reasoning details', withMessage({ content: 'x', reasoning_details: [{ text: 'a' }] })],
  ['a refusal of the wrong type', withMessage({ content: 'x', refusal: 3 })],
  ['an id of the wrong type', { ...withMessage({ content: 'x' }), id: 42 }],
  ['a numeric finish reason', withMessage({ content: 'x' }, { finish_reason: 7 })],
  ['a delta beside the message', withMessage({ content: 'x' }, { delta: { content: 'y' } })],
  ['two choices', { ...base, choices: [{ message: { content: 'a' } }, { message: { content: 'b' } }] }],
  ['no choices', { ...base, choices: [] }],
  ['a choice that is not an object', { ...base, choices: ['junk'] }],
  ['a message that is an array', withMessage(['x'])],
];

describe('readChatCompletion', () => {
  it.each(plainBodies)('returns %s as it is, reading as the schema does', (_name, body) => {
    const read = readChatCompletion(body);
    expect(read).toBe(body);
    expect(readFields(read)).toEqual(readFields(chatCompletionSchema.parse(body)));
  });

  it.each(parsedBodies)('parses %s with the schema', (_name, body) => {
    const read = readChatCompletion(body);
    expect(read).not.toBe(body);
    expect(read).toEqual(chatCompletionSchema.parse(body));
  });
});

/** What normalizeChatUsage reads from a usage object, as plain data. */
function usageFields(usage: ReturnType<typeof chatUsageSchema.parse>): unknown {
  return {
    prompt: usage.prompt_tokens ?? null,
    completion: usage.completion_tokens ?? null,
    hit: usage.prompt_cache_hit_tokens ?? null,
    cached: usage.cached_tokens ?? null,
    detailsCached: usage.prompt_tokens_details?.cached_tokens ?? null,
    detailsWrite: usage.prompt_tokens_details?.cache_write_tokens ?? null,
    reasoning: usage.completion_tokens_details?.reasoning_tokens ?? null,
  };
}

const plainUsage: ReadonlyArray<[string, Record<string, unknown>]> = [
  [
    'OpenAI usage with details',
    {
      prompt_tokens: 20,
      completion_tokens: 30,
      total_tokens: 50,
      prompt_tokens_details: { cached_tokens: 5, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 7, accepted_prediction_tokens: 0 },
    },
  ],
  [
    'DeepSeek cache counts',
    { prompt_tokens: 20, completion_tokens: 3, prompt_cache_hit_tokens: 8, prompt_cache_miss_tokens: 12 },
  ],
  ['Moonshot cached tokens', { prompt_tokens: 20, completion_tokens: 3, cached_tokens: 4 }],
  [
    'null details (Xiaomi MiMo)',
    { prompt_tokens: 1, completion_tokens: 2, prompt_tokens_details: null, completion_tokens_details: null },
  ],
  ['explicit zeros', { prompt_tokens: 0, completion_tokens: 0 }],
  ['an empty object', {}],
];

const parsedUsage: ReadonlyArray<[string, unknown]> = [
  ['a count as a string', { prompt_tokens: '20', completion_tokens: 3 }],
  ['details of the wrong type', { prompt_tokens: 20, completion_tokens: 3, prompt_tokens_details: 'none' }],
  ['a detail count of the wrong type', { prompt_tokens: 2, completion_tokens_details: { reasoning_tokens: true } }],
  ['details that are an array', { prompt_tokens: 2, prompt_tokens_details: [1] }],
  ['an array', [1, 2]],
  ['null', null],
  ['a number', 7],
];

describe('isPlainChatUsage', () => {
  it.each(plainUsage)('takes %s as it is, reading as the schema does', (_name, usage) => {
    expect(isPlainChatUsage(usage)).toBe(true);
    expect(usageFields(usage as never)).toEqual(usageFields(chatUsageSchema.parse(usage)));
  });

  it.each(parsedUsage)('leaves %s to the schema', (_name, usage) => {
    expect(isPlainChatUsage(usage)).toBe(false);
  });

  it('normalises a count of the wrong type as the schema reads it (absent), the rest as reported', () => {
    expect(normalizeChatUsage({ prompt_tokens: '20', completion_tokens: 3 })).toEqual({
      input: { total: 0, cacheRead: 0, cacheWrite: 0 },
      output: { total: 3, reasoning: 0 },
      source: 'reported',
    });
    expect(normalizeChatUsage(null).source).toBe('estimated');
  });
});

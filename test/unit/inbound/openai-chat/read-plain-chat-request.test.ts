/**
 * readPlainChatRequest reads a Chat Completions body exactly as chatRequestSchema does: a body
 * whose every field already has the schema's type is used as it is (no copy), any other goes
 * through the schema, and no body the schema refuses is ever taken as it is.
 */
import { describe, expect, it } from 'vitest';
import {
  chatRequestSchema,
  PLAIN_CHAT_REQUEST_FIELDS,
  readPlainChatRequest,
} from '../../../../gateway/inbound/openai-chat/chat-request-schema.ts';
import { decodeChatRequest } from '../../../../gateway/inbound/openai-chat/decode-chat-request.ts';
import { JSON_TYPE_PROBES } from '../../../support/json-type-probes.ts';

const base = { model: 'gpt-x', messages: [{ role: 'user', content: 'Hello' }] };

/** Each field's read through the schema's output, as the decoder reads them. */
function readFields(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(chatRequestSchema.shape).map((field) => [field, body[field] ?? null]));
}

const plain: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['the smallest body', base],
  [
    'a body with every common option',
    {
      ...base,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 100,
      max_completion_tokens: 50,
      temperature: 0.5,
      top_p: 1,
      top_k: 40,
      n: 1,
      stop: 'END',
      tools: [{ type: 'function', function: { name: 'f' } }],
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
      reasoning_effort: 'low',
      parallel_tool_calls: false,
      user: 'u-1',
      safety_identifier: 's-1',
      seed: 7,
    },
  ],
  ['nulls everywhere they are allowed', { ...base, stream: null, max_tokens: null, user: null, metadata: null }],
];

const parsed: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['a stop list', { ...base, stop: ['a', 'b'] }],
  ['metadata', { ...base, metadata: { team: 'x' } }],
];

const refused: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['no model', { messages: base.messages }],
  ['an empty model', { ...base, model: '' }],
  ['a numeric model', { ...base, model: 4 }],
  ['no messages', { model: 'gpt-x' }],
  ['an empty message list', { ...base, messages: [] }],
  ['messages as an object', { ...base, messages: { 0: {} } }],
  ['a string stream flag', { ...base, stream: 'true' }],
  ['a fractional n', { ...base, n: 1.5 }],
  ['zero max_tokens', { ...base, max_tokens: 0 }],
  ['negative max_completion_tokens', { ...base, max_completion_tokens: -3 }],
  ['fractional max_tokens', { ...base, max_tokens: 2.5 }],
  ['an unsafe integer max_tokens', { ...base, max_tokens: 2 ** 60 }],
  ['a string temperature', { ...base, temperature: '0.5' }],
  ['a fractional top_k', { ...base, top_k: 0.5 }],
  ['a numeric stop', { ...base, stop: 5 }],
  ['tools as an object', { ...base, tools: {} }],
  ['functions as a string', { ...base, functions: 'f' }],
  ['a numeric reasoning effort', { ...base, reasoning_effort: 3 }],
  ['a string parallel_tool_calls', { ...base, parallel_tool_calls: 'yes' }],
  ['a numeric user', { ...base, user: 5 }],
  ['an object safety_identifier', { ...base, safety_identifier: {} }],
  ['metadata with a number', { ...base, metadata: { a: 1 } }],
];

describe('readPlainChatRequest', () => {
  it('checks exactly the fields of the schema', () => {
    expect(Object.keys(PLAIN_CHAT_REQUEST_FIELDS).sort()).toEqual(Object.keys(chatRequestSchema.shape).sort());
  });

  it.each(plain)('takes %s as it is, reading as the schema does', (_name, body) => {
    expect(readPlainChatRequest(body)).toBe(body);
    expect(readFields(body)).toEqual(readFields(chatRequestSchema.parse(body) as Record<string, unknown>));
  });

  it.each(parsed)('leaves %s to the schema, which accepts it', (_name, body) => {
    expect(readPlainChatRequest(body)).toBeUndefined();
    expect(chatRequestSchema.safeParse(body).success).toBe(true);
  });

  it.each(refused)('leaves %s to the schema, which refuses it', (_name, body) => {
    expect(readPlainChatRequest(body)).toBeUndefined();
    expect(chatRequestSchema.safeParse(body).success).toBe(false);
    const decoded = decodeChatRequest(body);
    expect(decoded.ok).toBe(false);
  });

  it('never takes as it is a value of any field that the schema refuses', () => {
    const samples = JSON_TYPE_PROBES;
    for (const field of Object.keys(PLAIN_CHAT_REQUEST_FIELDS) as Array<keyof typeof PLAIN_CHAT_REQUEST_FIELDS>) {
      for (const value of samples) {
        const body = { ...base, [field]: value };
        if (readPlainChatRequest(body) === undefined) continue;
        const viaSchema = chatRequestSchema.safeParse(body);
        expect(viaSchema.success, `${field} = ${String(value)}`).toBe(true);
        expect(readFields(body)).toEqual(readFields(viaSchema.data as Record<string, unknown>));
      }
    }
  });
});

describe('decodeMessage without schemas for text messages', () => {
  it('decodes system, developer and user text messages as before, and still refuses a bad role', () => {
    const decoded = decodeChatRequest({
      model: 'gpt-x',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use English.' },
        { role: 'user', content: 'Hello' },
      ],
    });
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.value.system).toBe('Be brief.\n\nUse English.');
    expect(decoded.value.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }]);
    expect(decodeChatRequest({ model: 'gpt-x', messages: [{ role: 'robot', content: 'Hi' }] })).toMatchObject({
      ok: false,
      param: 'messages.0.role',
    });
  });
});

/**
 * readPlainAnthropicRequest reads a Messages body exactly as anthropicRequestSchema does: a body
 * whose every field already has the schema's type is used as it is (no copy), any other goes
 * through the schema, and no body the schema refuses is ever taken as it is.
 */
import { describe, expect, it } from 'vitest';
import {
  anthropicRequestSchema,
  PLAIN_ANTHROPIC_REQUEST_FIELDS,
  readPlainAnthropicRequest,
} from '../../../../gateway/inbound/anthropic-messages/anthropic-request-schema.ts';
import { decodeAnthropicRequest } from '../../../../gateway/inbound/anthropic-messages/decode-anthropic-request.ts';
import { JSON_TYPE_PROBES } from '../../../support/json-type-probes.ts';

const base = { model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };

/** Each field's read through the schema's output, as the decoder reads them (blocks by type and text). */
function readFields(body: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(
      Object.fromEntries(Object.keys(anthropicRequestSchema.shape).map((field) => [field, body[field] ?? null])),
      (key, value: unknown) => (key === 'cache_control' || key === 'citations' ? undefined : value),
    ),
  ) as Record<string, unknown>;
}

const plain: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['the smallest body', base],
  [
    'a body with text blocks, a system prompt and every sampling option',
    {
      ...base,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: [{ type: 'text', text: 'More', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      ],
      stream: true,
      temperature: 0.5,
      top_p: 1,
      top_k: 40,
      container: 'c-1',
    },
  ],
  ['nulls everywhere they are allowed', { ...base, stream: null, max_tokens: null, system: null, top_k: null }],
  ['no messages', { ...base, messages: [] }],
];

const parsed: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['stop sequences', { ...base, stop_sequences: ['END'] }],
  ['a tool', { ...base, tools: [{ name: 'f', input_schema: { type: 'object' } }] }],
  ['thinking', { ...base, thinking: { type: 'enabled', budget_tokens: 1024 } }],
  ['metadata', { ...base, metadata: { user_id: 'u' } }],
  [
    'an image block',
    { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x' } }] }] },
  ],
  ['an unknown block type', { ...base, messages: [{ role: 'user', content: [{ type: 'hologram' }] }] }],
];

const refused: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['no model', { messages: base.messages }],
  ['an empty model', { ...base, model: '' }],
  ['no messages field', { model: 'claude-x' }],
  ['a bad role', { ...base, messages: [{ role: 'robot', content: 'Hi' }] }],
  ['numeric content', { ...base, messages: [{ role: 'user', content: 5 }] }],
  ['a text block without text', { ...base, messages: [{ role: 'user', content: [{ type: 'text' }] }] }],
  ['zero max_tokens', { ...base, max_tokens: 0 }],
  ['fractional max_tokens', { ...base, max_tokens: 2.5 }],
  ['a string stream flag', { ...base, stream: 'true' }],
  ['a string temperature', { ...base, temperature: '0.5' }],
  ['a fractional top_k', { ...base, top_k: 0.5 }],
  ['a numeric system', { ...base, system: 5 }],
];

describe('readPlainAnthropicRequest', () => {
  it('checks exactly the fields of the schema', () => {
    expect(Object.keys(PLAIN_ANTHROPIC_REQUEST_FIELDS).sort()).toEqual(
      Object.keys(anthropicRequestSchema.shape).sort(),
    );
  });

  it.each(plain)('takes %s as it is, reading as the schema does', (_name, body) => {
    expect(readPlainAnthropicRequest(body)).toBe(body);
    expect(readFields(body)).toEqual(readFields(anthropicRequestSchema.parse(body) as Record<string, unknown>));
  });

  it.each(parsed)('leaves %s to the schema, which accepts it', (_name, body) => {
    expect(readPlainAnthropicRequest(body)).toBeUndefined();
    expect(anthropicRequestSchema.safeParse(body).success).toBe(true);
  });

  it.each(refused)('leaves %s to the schema, which refuses it', (_name, body) => {
    expect(readPlainAnthropicRequest(body)).toBeUndefined();
    expect(anthropicRequestSchema.safeParse(body).success).toBe(false);
    expect(decodeAnthropicRequest(body).ok).toBe(false);
  });

  it('never takes as it is a value of any field, message or block that the schema refuses', () => {
    const samples: unknown[] = [
      ...JSON_TYPE_PROBES,
      { type: 'text' },
      { type: 'text', text: 'x' },
      [{ type: 'text', text: 'x' }],
      [{ type: 'text', text: 1 }],
      'user',
      'system',
    ];
    const bodies: Array<[string, Record<string, unknown>]> = [];
    for (const field of Object.keys(PLAIN_ANTHROPIC_REQUEST_FIELDS))
      for (const value of samples) bodies.push([`${field} = ${JSON.stringify(value)}`, { ...base, [field]: value }]);
    for (const key of ['role', 'content'])
      for (const value of samples)
        bodies.push([
          `messages.0.${key} = ${JSON.stringify(value)}`,
          { ...base, messages: [{ role: 'user', content: 'Hi', [key]: value }] },
        ]);
    for (const value of samples)
      bodies.push([
        `messages.0.content.0 = ${JSON.stringify(value)}`,
        { ...base, messages: [{ role: 'user', content: [value] }] },
      ]);
    for (const [name, body] of bodies) {
      if (readPlainAnthropicRequest(body) === undefined) continue;
      const viaSchema = anthropicRequestSchema.safeParse(body);
      expect(viaSchema.success, name).toBe(true);
      expect(readFields(body), name).toEqual(readFields(viaSchema.data as Record<string, unknown>));
    }
  });

  it('decodes a plain body as the schema path does', () => {
    const body = plain[1]![1];
    const decoded = decodeAnthropicRequest(body);
    const viaSchema = decodeAnthropicRequest({ ...body, metadata: null });
    expect(decoded.ok && viaSchema.ok).toBe(true);
    if (!decoded.ok || !viaSchema.ok) return;
    expect(decoded.value).toEqual(viaSchema.value);
  });
});

import { describe, expect, it } from 'vitest';
import { anthropicPassThroughTap } from '../../../gateway/upstream/anthropic-messages/anthropic-pass-through-tap.ts';
import { chatPassThroughTap } from '../../../gateway/upstream/openai-chat/chat-pass-through-tap.ts';
import type { PassThroughTap } from '../../../gateway/upstream/upstream-adapter.ts';
import { rawJsonStringSpan } from '../../../gateway/upstream/shared/raw-json-string-span.ts';

/** The fragment a tap finds in one raw event, decoded as the relay decodes it, with its kind. */
function fragmentOf(tap: PassThroughTap, rawEvent: string): { kind: string; text: string } | undefined {
  const fragment = tap.continuationFragment(rawEvent);
  if (!fragment) return undefined;
  const escaped = Buffer.from(rawEvent.slice(fragment.start, fragment.end), 'latin1').toString('utf8');
  return { kind: fragment.kind, text: JSON.parse(`"${escaped}"`) as string };
}

/** One SSE event as the upstream writes it, read as Latin-1 as the relay hands it to a tap. */
const raw = (event: { event?: string; data: string }) =>
  Buffer.from(`${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`).toString(
    'latin1',
  );

const chunk = (delta: object, extra: object = {}) =>
  JSON.stringify({
    id: 'c',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: null }],
    usage: null,
    ...extra,
  });

describe('Chat Completions pass-through tap', () => {
  it('leaves unparsed only chunks that add text to the open block', () => {
    expect(chatPassThroughTap.isContinuation(raw({ data: chunk({ content: 'Hello' }) }))).toBe(true);
    expect(
      chatPassThroughTap.isContinuation(
        raw({ data: chunk({ content: 'Hi' }).replace('"usage":null', '"usage": null') }),
      ),
    ).toBe(true);
  });

  it('parses every chunk that carries more: finish reason, usage, tool calls, reasoning, refusal, error, the end', () => {
    const carriesMore = [
      JSON.stringify({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }] }),
      JSON.stringify({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'length' }] }).replace(
        ':"length"',
        ': "length"',
      ),
      chunk({ content: '' }, { usage: { prompt_tokens: 3, completion_tokens: 5 } }),
      chunk({ content: null, tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] }),
      chunk({ content: null, reasoning_content: 'thinking' }),
      chunk({ content: null, refusal: 'no' }),
      JSON.stringify({ error: { message: 'overloaded', content: 'x' } }),
      '[DONE]',
      chunk({ role: 'assistant' }),
    ];
    for (const data of carriesMore) expect(chatPassThroughTap.isContinuation(raw({ data })), data).toBe(false);
  });

  it('finds the text of a chunk without parsing it: escapes, UTF-8, spacing, logprobs after the delta', () => {
    const text = 'He said "content": \\"hi\\" — ünïcode 😀\n';
    expect(fragmentOf(chatPassThroughTap, raw({ data: chunk({ content: text }) }))).toEqual({ kind: 'text', text });
    const spaced =
      '{"choices": [{"index": 0, "delta": {"role": "assistant", "content" : "a\\"b"}, "logprobs": {"content": []}}]}';
    expect(fragmentOf(chatPassThroughTap, raw({ data: spaced }))).toEqual({ kind: 'text', text: 'a"b' });
    const logprobsFirst = JSON.stringify({
      choices: [{ logprobs: { content: [{ token: 'x' }] }, delta: { content: 'y' } }],
    });
    expect(fragmentOf(chatPassThroughTap, raw({ data: logprobsFirst }))).toEqual({ kind: 'text', text: 'y' });
    for (const data of [chunk({ content: '' }), chunk({ content: null }), 'not json', '{"choices":[]}'])
      expect(chatPassThroughTap.continuationFragment(raw({ data })), data).toBeUndefined();
  });
});

describe('Anthropic Messages pass-through tap', () => {
  const delta = (d: object) => ({
    event: 'content_block_delta',
    data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: d }),
  });

  it('leaves unparsed block deltas and pings, nothing else', () => {
    expect(anthropicPassThroughTap.isContinuation(raw(delta({ type: 'text_delta', text: 'a' })))).toBe(true);
    expect(anthropicPassThroughTap.isContinuation(raw({ event: 'ping', data: '{"type":"ping"}' }))).toBe(true);
    for (const event of [
      'message_start',
      'content_block_start',
      'content_block_stop',
      'message_delta',
      'message_stop',
      'error',
    ])
      expect(anthropicPassThroughTap.isContinuation(raw({ event, data: '{}' }))).toBe(false);
    expect(anthropicPassThroughTap.isContinuation(raw({ data: '{"type":"content_block_delta"}' }))).toBe(false);
  });

  it('finds the fragment of each delta kind: text, thinking, tool input; none in a signature or a ping', () => {
    const fragments = [
      delta({ type: 'thinking_delta', thinking: 'Let me "think".' }),
      delta({ type: 'text_delta', text: 'Hello "text_delta" ü' }),
      delta({ type: 'input_json_delta', partial_json: '{"city":"Paris"}' }),
    ].map((event) => fragmentOf(anthropicPassThroughTap, raw(event)));
    expect(fragments).toEqual([
      { kind: 'reasoning', text: 'Let me "think".' },
      { kind: 'text', text: 'Hello "text_delta" ü' },
      { kind: 'tool-call', text: '{"city":"Paris"}' },
    ]);
    for (const event of [
      delta({ type: 'signature_delta', signature: 'sig' }),
      delta({ type: 'text_delta', text: '' }),
      { event: 'ping', data: '{"type":"ping"}' },
    ])
      expect(anthropicPassThroughTap.continuationFragment(raw(event))).toBeUndefined();
  });
});

describe('raw JSON string spans', () => {
  const valueAt = (text: string, key: string, from?: number) => {
    const span = rawJsonStringSpan(text, key, from);
    return span && text.slice(span.start, span.end);
  };

  it('finds a member by name, not a value that reads like it, and ends at an unescaped quote', () => {
    expect(valueAt('{"type":"text","text":"a\\\\"}', 'text')).toBe('a\\\\');
    expect(valueAt('{"a":"x\\"y","b":"z"}', 'a')).toBe('x\\"y');
    expect(valueAt('{"a":"x","a":"y"}', 'a', 5)).toBe('y');
    expect(valueAt('{ "a" :\n "v" }', 'a')).toBe('v');
  });

  it('gives nothing for a value that is not a string, an absent member, or a string that does not end', () => {
    expect(valueAt('{"a":null}', 'a')).toBeUndefined();
    expect(valueAt('{"a":["x"]}', 'a')).toBeUndefined();
    expect(valueAt('{"b":"a"}', 'a')).toBeUndefined();
    expect(valueAt('{"a":"open\\"', 'a')).toBeUndefined();
  });
});

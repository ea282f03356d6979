import { describe, expect, it } from 'vitest';
import { anthropicPassThroughTap } from '../../../gateway/upstream/anthropic-messages/anthropic-pass-through-tap.ts';
import { chatPassThroughTap } from '../../../gateway/upstream/openai-chat/chat-pass-through-tap.ts';

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

  it('reads the text of the kept chunks, skipping unreadable ones', () => {
    const events = [chunk({ content: 'Hello' }), 'not json', chunk({ content: ', world' })].map((data) => ({ data }));
    expect(chatPassThroughTap.continuationContent(events)).toEqual([{ type: 'text', text: 'Hello, world' }]);
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

  it('joins the fragments of each kind in a row: text, thinking, tool input', () => {
    const events = [
      delta({ type: 'thinking_delta', thinking: 'Let me ' }),
      delta({ type: 'thinking_delta', thinking: 'think.' }),
      delta({ type: 'signature_delta', signature: 'sig' }),
      delta({ type: 'text_delta', text: 'Hello' }),
      delta({ type: 'text_delta', text: ' there' }),
      delta({ type: 'input_json_delta', partial_json: '{"city":' }),
      delta({ type: 'input_json_delta', partial_json: '"Paris"}' }),
      { event: 'ping', data: '{"type":"ping"}' },
    ];
    expect(anthropicPassThroughTap.continuationContent(events)).toEqual([
      { type: 'reasoning', text: 'Let me think.' },
      { type: 'text', text: 'Hello there' },
      { type: 'tool-call', id: '', name: '', arguments: '{"city":"Paris"}' },
    ]);
  });
});

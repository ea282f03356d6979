import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { openaiResponsesCodec } from '../../../../gateway/inbound/openai-responses/openai-responses-codec.ts';
import {
  CREATED_AT,
  lengthResponse,
  makeContext,
  sseFrames,
  textResponse,
  toolResponse,
} from './openai-test-fixtures.ts';

let counter = 0;
vi.mock('../../../../gateway/canonical/ids.ts', () => ({ generateId: (prefix: string) => `${prefix}${++counter}` }));

beforeEach(() => {
  counter = 0;
  vi.useFakeTimers();
  vi.setSystemTime((CREATED_AT + 1) * 1000);
});
afterEach(() => vi.useRealTimers());

function encodeAll(
  events: StreamEvent[],
  raw: Record<string, unknown> = { model: 'gw-model', input: 'hi', stream: true },
): string {
  const encoder = openaiResponsesCodec.createStreamEncoder(makeContext(raw));
  return events.map((e) => encoder.encode(e)).join('');
}

function streamOf(response: CanonicalResponse, chunkSize?: number): string {
  return encodeAll(responseToStreamEvents(response, chunkSize));
}

interface ParsedFrame {
  event: string | undefined;
  data: Record<string, unknown> | '[DONE]';
}

function parse(sse: string): ParsedFrame[] {
  return sseFrames(sse).map((frame) => {
    const lines = frame.split('\n');
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    expect(data).toHaveLength(1);
    return { event, data: data[0] === '[DONE]' ? '[DONE]' : (JSON.parse(data[0] ?? '') as Record<string, unknown>) };
  });
}

function checkFraming(frames: ParsedFrame[]): void {
  const events = frames.slice(0, -1);
  expect(frames.at(-1)).toEqual({ event: undefined, data: '[DONE]' });
  events.forEach((frame, i) => {
    if (frame.data === '[DONE]') throw new Error('early [DONE]');
    expect(frame.event).toBe(frame.data.type);
    expect(frame.data.sequence_number).toBe(i);
  });
}

const types = (frames: ParsedFrame[]): unknown[] => frames.map((f) => (f.data === '[DONE]' ? '[DONE]' : f.data.type));

describe('Responses stream encoder', () => {
  it('emits the text sequence with event == type, sequence numbers from 0 and [DONE] last', () => {
    const sse = streamOf(textResponse, 3);
    const frames = parse(sse);
    checkFraming(frames);
    expect(types(frames)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
      '[DONE]',
    ]);
    const lines = sseFrames(sse);
    expect(lines[2]).toBe(
      'event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_2","type":"message","status":"in_progress","role":"assistant","content":[]}}',
    );
    expect(lines[3]).toBe(
      'event: response.content_part.added\ndata: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_2","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}',
    );
    expect(lines[4]).toBe(
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_2","output_index":0,"content_index":0,"delta":"Hel","logprobs":[]}',
    );
    expect(lines[6]).toBe(
      'event: response.output_text.done\ndata: {"type":"response.output_text.done","sequence_number":6,"item_id":"msg_2","output_index":0,"content_index":0,"text":"Hello!","logprobs":[]}',
    );
    expect(sse.endsWith('\n\ndata: [DONE]\n\n')).toBe(true);
  });

  it('sends full snapshots: in_progress with usage null, terminal completed consistent with the streamed items', () => {
    const frames = parse(streamOf(textResponse));
    const created = frames[0]?.data as { response: Record<string, unknown> };
    expect(created.response).toMatchObject({
      id: 'resp_1',
      object: 'response',
      created_at: CREATED_AT,
      status: 'in_progress',
      output: [],
      usage: null,
      model: 'gw-model',
      tool_choice: 'auto',
      store: true,
    });
    const completed = frames.at(-2)?.data as { response: Record<string, unknown> };
    expect(completed.response).toMatchObject({
      id: 'resp_1',
      status: 'completed',
      completed_at: CREATED_AT + 1,
      output: [
        {
          id: 'msg_2',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello!', annotations: [], logprobs: [] }],
        },
      ],
      usage: {
        input_tokens: 9,
        input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 },
        output_tokens: 2,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 11,
      },
    });
    expect(Object.keys(completed.response)).toEqual(Object.keys(created.response));
  });

  it('streams reasoning as summary events, then the message, then a function call with appending output_index', () => {
    const frames = parse(streamOf(toolResponse, 8));
    checkFraming(frames);
    expect(types(frames)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
      '[DONE]',
    ]);
    const data = frames.map((f) => f.data as Record<string, unknown>);
    expect(data[9]).toMatchObject({
      output_index: 0,
      item: {
        id: 'rs_2',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Need the weather.' }],
        encrypted_content: 'sig-1',
      },
    });
    expect(data[17]).toMatchObject({
      output_index: 2,
      item: {
        id: 'fc_4',
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: 'call_7Hk2',
        name: 'get_weather',
      },
    });
    expect(data[20]).toMatchObject({
      item_id: 'fc_4',
      output_index: 2,
      name: 'get_weather',
      arguments: '{"city":"Oslo"}',
    });
    const terminal = data[22] as { response: { output: Array<{ id: string }> } };
    expect(terminal.response.output.map((o) => o.id)).toEqual(['rs_2', 'msg_3', 'fc_4']);
  });

  it('ends a max_output_tokens cut with the message item incomplete and response.incomplete', () => {
    const frames = parse(streamOf(lengthResponse));
    checkFraming(frames);
    const data = frames.map((f) => f.data as Record<string, unknown>);
    expect(data.at(-3)).toMatchObject({
      type: 'response.output_item.done',
      item: { id: 'msg_2', status: 'incomplete' },
    });
    expect(data.at(-2)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', completed_at: null, incomplete_details: { reason: 'max_output_tokens' } },
    });
  });

  it('renders a mid-stream error as the hybrid error event, then response.failed, then [DONE]', () => {
    const events = responseToStreamEvents(textResponse).slice(0, 3);
    const error = new GatewayError('upstream-timeout', 'Upstream timed out');
    const frames = parse(encodeAll([...events, { type: 'error', error }]));
    checkFraming(frames);
    expect(types(frames)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'error',
      'response.failed',
      '[DONE]',
    ]);
    expect(frames[5]?.data).toEqual({
      type: 'error',
      sequence_number: 5,
      code: 'server_error',
      message: 'Upstream timed out',
      param: null,
      error: { type: 'server_error', code: 'server_error', message: 'Upstream timed out', param: null },
    });
    expect(frames[6]?.data).toMatchObject({
      response: {
        status: 'failed',
        error: { code: 'server_error', message: 'Upstream timed out' },
        usage: null,
        output: [{ id: 'msg_2', status: 'incomplete', content: [{ text: 'Hello!' }] }],
      },
    });
  });

  it('sends a standalone error event when nothing was announced yet, and nothing after the end', () => {
    const encoder = openaiResponsesCodec.createStreamEncoder(makeContext());
    const error = new GatewayError('upstream-rate-limited', 'Slow down');
    expect(encoder.encode({ type: 'error', error })).toBe(
      'event: error\ndata: {"type":"error","sequence_number":0,"code":"rate_limit_exceeded","message":"Slow down","param":null,"error":{"type":"requests","code":"rate_limit_exceeded","message":"Slow down","param":null}}\n\ndata: [DONE]\n\n',
    );
    expect(encoder.encode({ type: 'message-start', messageId: 'x', model: 'y' })).toBe('');
  });

  it('uses SSE comments for keep-alives', () => {
    const encoder = openaiResponsesCodec.createStreamEncoder(makeContext());
    expect(encoder.keepAlive()).toBe(': ping\n\n');
    expect(encoder.encode({ type: 'keep-alive' })).toBe(': ping\n\n');
  });
});

/**
 * Tool calls under canonical names come back as the client's own items: `collaboration__spawn_agent`
 * → `function_call` named `spawn_agent` with `namespace`, the custom tool `exec` → `custom_tool_call`
 * with the raw `input` (schemas FunctionToolCall / CustomToolCall and the
 * `response.custom_tool_call_input.*` events of the OpenAI OpenAPI document), in the body and the stream.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { openaiResponsesCodec } from '../../../../gateway/inbound/openai-responses/openai-responses-codec.ts';
import { codexBody } from './codex-tools-fixture.ts';
import { CREATED_AT, makeContext, sseFrames } from './openai-test-fixtures.ts';

let counter = 0;
vi.mock('../../../../gateway/canonical/ids.ts', () => ({ generateId: (prefix: string) => `${prefix}${++counter}` }));

beforeEach(() => {
  counter = 0;
  vi.useFakeTimers();
  vi.setSystemTime((CREATED_AT + 1) * 1000);
});
afterEach(() => vi.useRealTimers());

const COMMAND = 'ls -la "my dir"\necho done';

const callsResponse: CanonicalResponse = {
  id: 'up_1',
  model: 'upstream-model',
  content: [
    { type: 'tool-call', id: 'call_spawn', name: 'collaboration__spawn_agent', arguments: '{"task":"review"}' },
    { type: 'tool-call', id: 'call_exec', name: 'exec', arguments: JSON.stringify({ input: COMMAND }) },
    { type: 'tool-call', id: 'call_wait', name: 'wait', arguments: '{"ms":5}' },
  ],
  finishReason: finishReason('tool-calls', 'tool_calls'),
  usage: makeUsage({ inputTotal: 10, outputTotal: 5 }),
};

const SPAWN_ITEM = {
  type: 'function_call',
  status: 'completed',
  arguments: '{"task":"review"}',
  call_id: 'call_spawn',
  name: 'spawn_agent',
  namespace: 'collaboration',
};
const EXEC_ITEM = {
  type: 'custom_tool_call',
  status: 'completed',
  call_id: 'call_exec',
  namespace: 'functions',
  name: 'exec',
  input: COMMAND,
};
const WAIT_ITEM = {
  type: 'function_call',
  status: 'completed',
  arguments: '{"ms":5}',
  call_id: 'call_wait',
  name: 'wait',
  namespace: 'functions',
};

function frames(sse: string): Array<Record<string, any>> {
  return sseFrames(sse)
    .map(
      (frame) =>
        frame
          .split('\n')
          .find((l) => l.startsWith('data: '))
          ?.slice(6) ?? '',
    )
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as Record<string, any>);
}

describe('Codex tool calls back to the client', () => {
  it('renders a namespaced function_call and a custom_tool_call in the non-streamed body', () => {
    const body = openaiResponsesCodec.encodeResponse(callsResponse, makeContext(codexBody())) as Record<string, any>;
    expect(body.output).toEqual([
      { id: 'fc_1', ...SPAWN_ITEM },
      { id: 'ctc_2', ...EXEC_ITEM },
      { id: 'fc_3', ...WAIT_ITEM },
    ]);
  });

  it('streams custom_tool_call items with custom_tool_call_input events and renamed function calls', () => {
    const encoder = openaiResponsesCodec.createStreamEncoder(makeContext(codexBody()));
    const events = frames(
      responseToStreamEvents(callsResponse, 4)
        .map((e) => encoder.encode(e))
        .join(''),
    );
    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item);
    expect(added).toEqual([
      {
        id: expect.any(String),
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: 'call_spawn',
        name: 'spawn_agent',
        namespace: 'collaboration',
      },
      {
        id: expect.any(String),
        type: 'custom_tool_call',
        status: 'in_progress',
        call_id: 'call_exec',
        namespace: 'functions',
        name: 'exec',
        input: '',
      },
      {
        id: expect.any(String),
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: 'call_wait',
        name: 'wait',
        namespace: 'functions',
      },
    ]);
    const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    expect(done).toEqual([
      { id: added[0].id, ...SPAWN_ITEM },
      { id: added[1].id, ...EXEC_ITEM },
      { id: added[2].id, ...WAIT_ITEM },
    ]);
    const customEvents = events.filter((e) => e.type.startsWith('response.custom_tool_call_input.'));
    expect(customEvents.map((e) => e.type)).toEqual([
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
    ]);
    expect(customEvents[0]).toMatchObject({ item_id: added[1].id, output_index: 1, delta: COMMAND });
    expect(customEvents[1]).toMatchObject({ item_id: added[1].id, output_index: 1, input: COMMAND });
    const argumentDeltas = events.filter((e) => e.type === 'response.function_call_arguments.delta');
    expect(argumentDeltas.every((e) => e.item_id !== added[1].id)).toBe(true);
    expect(
      events.find((e) => e.type === 'response.function_call_arguments.done' && e.item_id === added[0].id)?.name,
    ).toBe('spawn_agent');
    expect(events.at(-1)?.response.output).toEqual(done);
  });

  it('echoes custom and namespace tools as sent', () => {
    const tools = [
      { type: 'custom', name: 'apply_patch', format: { type: 'text' } },
      {
        type: 'namespace',
        name: 'mcp',
        description: 'd',
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} } }],
      },
    ];
    const body = openaiResponsesCodec.encodeResponse(callsResponse, makeContext(codexBody({ tools }))) as Record<
      string,
      any
    >;
    expect(body.tools).toEqual([
      tools[0],
      {
        type: 'namespace',
        name: 'mcp',
        description: 'd',
        tools: [
          {
            type: 'function',
            description: null,
            name: 'f',
            parameters: { type: 'object', properties: {} },
            strict: false,
          },
        ],
      },
    ]);
  });
});

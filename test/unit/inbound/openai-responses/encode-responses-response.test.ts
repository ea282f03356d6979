import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { openaiResponsesCodec } from '../../../../gateway/inbound/openai-responses/openai-responses-codec.ts';
import { CREATED_AT, lengthResponse, makeContext, textResponse, toolResponse } from './openai-test-fixtures.ts';

let counter = 0;
vi.mock('../../../../gateway/canonical/ids.ts', () => ({ generateId: (prefix: string) => `${prefix}${++counter}` }));

beforeEach(() => {
  counter = 0;
  vi.useFakeTimers();
  vi.setSystemTime((CREATED_AT + 2) * 1000);
});
afterEach(() => vi.useRealTimers());

/** The echoed defaults of a bare request (https://platform.openai.com/docs/api-reference/responses/object). */
const DEFAULTS = {
  background: false,
  frequency_penalty: 0,
  instructions: null,
  max_output_tokens: null,
  max_tool_calls: null,
  parallel_tool_calls: true,
  presence_penalty: 0,
  previous_response_id: null,
  prompt_cache_key: null,
  prompt_cache_retention: null,
  reasoning: { effort: null, summary: null },
  safety_identifier: null,
  service_tier: 'default',
  store: true,
  temperature: 1,
  text: { format: { type: 'text' }, verbosity: 'medium' },
  tool_choice: 'auto',
  tools: [],
  top_logprobs: 0,
  top_p: 1,
  truncation: 'disabled',
  metadata: {},
};

describe('openaiResponsesCodec.encodeResponse', () => {
  it('encodes a text answer as the full Response object, keys in OpenAI order', () => {
    const body = openaiResponsesCodec.encodeResponse(textResponse, makeContext({ model: 'gw-model', input: 'hi' }));
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        id: 'resp_2',
        object: 'response',
        created_at: CREATED_AT,
        status: 'completed',
        completed_at: CREATED_AT + 2,
        background: false,
        error: null,
        frequency_penalty: 0,
        incomplete_details: null,
        instructions: null,
        max_output_tokens: null,
        max_tool_calls: null,
        model: 'gw-model',
        output: [
          {
            id: 'msg_1',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Hello!', annotations: [], logprobs: [] }],
          },
        ],
        parallel_tool_calls: true,
        presence_penalty: 0,
        previous_response_id: null,
        prompt_cache_key: null,
        prompt_cache_retention: null,
        reasoning: { effort: null, summary: null },
        safety_identifier: null,
        service_tier: 'default',
        store: true,
        temperature: 1,
        text: { format: { type: 'text' }, verbosity: 'medium' },
        tool_choice: 'auto',
        tools: [],
        top_logprobs: 0,
        top_p: 1,
        truncation: 'disabled',
        usage: {
          input_tokens: 9,
          input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 },
          output_tokens: 2,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 11,
        },
        metadata: {},
      }),
    );
  });

  it('encodes reasoning, text and a function call as three items and echoes request settings', () => {
    const weatherTool = { type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: true };
    const raw = {
      model: 'gw-model',
      input: 'x',
      instructions: 'You are a weather bot.',
      tools: [weatherTool, { type: 'web_search' }],
      tool_choice: 'required',
      temperature: 0.3,
      top_p: 0.5,
      max_output_tokens: 512,
      parallel_tool_calls: false,
      store: false,
      reasoning: { effort: 'medium', summary: 'auto' },
      text: { format: { type: 'json_object' } },
      metadata: { a: 'b' },
      user: 'u1',
    };
    const body = openaiResponsesCodec.encodeResponse(toolResponse, makeContext(raw)) as Record<string, unknown>;
    expect(body.output).toEqual([
      {
        id: 'rs_1',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Need the weather.' }],
        encrypted_content: 'sig-1',
      },
      {
        id: 'msg_2',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Checking.', annotations: [], logprobs: [] }],
      },
      {
        id: 'fc_3',
        type: 'function_call',
        status: 'completed',
        arguments: '{"city":"Oslo"}',
        call_id: 'call_7Hk2',
        name: 'get_weather',
      },
    ]);
    expect(body).toMatchObject({
      id: 'resp_4',
      status: 'completed',
      instructions: 'You are a weather bot.',
      tools: [weatherTool],
      tool_choice: 'required',
      temperature: 0.3,
      top_p: 0.5,
      max_output_tokens: 512,
      parallel_tool_calls: false,
      store: false,
      reasoning: { effort: 'medium', summary: 'auto' },
      text: { format: { type: 'json_object' }, verbosity: 'medium' },
      metadata: { a: 'b' },
      user: 'u1',
      usage: {
        input_tokens: 120,
        input_tokens_details: { cached_tokens: 64, cache_write_tokens: 8 },
        output_tokens: 58,
        output_tokens_details: { reasoning_tokens: 40 },
        total_tokens: 178,
      },
    });
  });

  it('marks a max_output_tokens cut as incomplete, with the message incomplete and no completed_at', () => {
    const body = openaiResponsesCodec.encodeResponse(
      lengthResponse,
      makeContext({ model: 'gw-model', input: 'x' }),
    ) as Record<string, unknown>;
    expect(body).toMatchObject({
      ...DEFAULTS,
      status: 'incomplete',
      completed_at: null,
      incomplete_details: { reason: 'max_output_tokens' },
      error: null,
    });
    expect(body.output).toEqual([
      {
        id: 'msg_1',
        type: 'message',
        status: 'incomplete',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Once upon a', annotations: [], logprobs: [] }],
      },
    ]);
  });

  it('maps content-filter to incomplete/content_filter and error to failed with an error object', () => {
    const filtered = openaiResponsesCodec.encodeResponse(
      { ...textResponse, finishReason: finishReason('content-filter', 'SAFETY') },
      makeContext(),
    ) as Record<string, unknown>;
    expect(filtered).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } });
    const failed = openaiResponsesCodec.encodeResponse(
      { ...textResponse, content: [], finishReason: finishReason('error', 'network_error') },
      makeContext(),
    ) as Record<string, unknown>;
    expect(failed).toMatchObject({
      status: 'failed',
      incomplete_details: null,
      error: { code: 'server_error', message: 'The upstream model ended the response with an error (network_error).' },
      output: [],
    });
  });

  it('carries a redacted reasoning block in encrypted_content and skips empty reasoning', () => {
    const response = {
      ...textResponse,
      content: [
        { type: 'reasoning' as const, text: '' },
        { type: 'reasoning' as const, text: '', redacted: 'EqQB' },
      ],
      usage: makeUsage({}),
    };
    const body = openaiResponsesCodec.encodeResponse(response, makeContext()) as Record<string, unknown>;
    expect(body.output).toEqual([
      { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'tollgate-redacted:EqQB' },
    ]);
  });
});

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { openaiChatCodec } from '../../../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import {
  CREATED_AT,
  lengthResponse,
  makeContext,
  textResponse,
  toolResponse,
} from '../openai-responses/openai-test-fixtures.ts';

let counter = 0;
vi.mock('../../../../gateway/canonical/ids.ts', () => ({ generateId: (prefix: string) => `${prefix}${++counter}` }));
beforeEach(() => {
  counter = 0;
});

const USAGE_9_2 = {
  prompt_tokens: 9,
  completion_tokens: 2,
  total_tokens: 11,
  prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

describe('openaiChatCodec.encodeResponse', () => {
  it('encodes a text answer exactly', () => {
    expect(JSON.stringify(openaiChatCodec.encodeResponse(textResponse, makeContext()))).toBe(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: CREATED_AT,
        model: 'gw-model',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Hello!', refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: USAGE_9_2,
      }),
    );
  });

  it('encodes reasoning and tool calls with finish_reason tool_calls', () => {
    expect(openaiChatCodec.encodeResponse(toolResponse, makeContext())).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: CREATED_AT,
      model: 'gw-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking.',
            refusal: null,
            annotations: [],
            tool_calls: [
              { id: 'call_7Hk2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            ],
            reasoning_content: 'Need the weather.',
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 120,
        completion_tokens: 58,
        total_tokens: 178,
        prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 40,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    });
  });

  it('says tool_calls even when the upstream said stop, and null content without text', () => {
    const onlyTool = {
      ...toolResponse,
      content: toolResponse.content.slice(2),
      finishReason: finishReason('stop', 'STOP'),
    };
    const body = openaiChatCodec.encodeResponse(onlyTool, makeContext()) as {
      choices: Array<{ message: Record<string, unknown>; finish_reason: string }>;
    };
    expect(body.choices[0]?.finish_reason).toBe('tool_calls');
    expect(body.choices[0]?.message.content).toBeNull();
    expect(body.choices[0]?.message).not.toHaveProperty('reasoning_content');
  });

  it('maps length and content-filter', () => {
    const finish = (r: typeof textResponse) =>
      (openaiChatCodec.encodeResponse(r, makeContext()) as { choices: Array<{ finish_reason: string }> }).choices[0]
        ?.finish_reason;
    expect(finish(lengthResponse)).toBe('length');
    expect(finish({ ...textResponse, finishReason: finishReason('content-filter', 'sensitive') })).toBe(
      'content_filter',
    );
  });
});

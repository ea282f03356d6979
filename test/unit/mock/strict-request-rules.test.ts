/**
 * The fake upstreams' provider rules (gateway/mock/strict-request-rules.ts): realistic full
 * requests of each endpoint pass; an unknown top-level field and an orphan tool result are refused
 * with the provider's own status, error shape and words.
 */
import { describe, expect, it } from 'vitest';
import type { WireFormat } from '../../../gateway/canonical/formats.ts';
import {
  KNOWN_REQUEST_FIELDS,
  refuseLikeProvider,
  refuseLikeProviderAt,
  strictEndpointOf,
} from '../../../gateway/mock/strict-request-rules.ts';

const CHAT_PATH = '/v1/chat/completions';
const RESPONSES_PATH = '/v1/responses';
const MESSAGES_PATH = '/v1/messages';
const GEMINI_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';

/** A Chat Completions request with a tool round trip and most documented options. */
const chatRequest = () => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'developer', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '4°C' },
    { role: 'tool', tool_call_id: 'call_2', content: '12°C' },
    { role: 'assistant', content: 'Paris 4°C, Rome 12°C.' },
    { role: 'user', content: 'Thanks' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: true,
      },
    },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: true,
  stream: true,
  stream_options: { include_usage: true },
  temperature: 0.2,
  top_p: 1,
  max_completion_tokens: 256,
  stop: ['END'],
  seed: 7,
  n: 1,
  logprobs: false,
  response_format: { type: 'text' },
  reasoning_effort: 'low',
  metadata: { run: 'unit' },
  store: false,
  user: 'u-1',
  safety_identifier: 'sid',
  prompt_cache_key: 'pck',
  service_tier: 'auto',
});

/** A Codex-like Responses request: instructions, tools, function and custom tool round trips. */
const responsesRequest = () => ({
  model: 'gpt-5-codex',
  instructions: 'You are Codex.',
  input: [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List files' }] },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
    { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'shell', arguments: '{"command":["ls"]}' },
    { type: 'function_call_output', call_id: 'call_a', output: 'README.md' },
    { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_b', name: 'apply_patch', input: '*** Begin Patch' },
    { type: 'custom_tool_call_output', call_id: 'call_b', output: 'Done' },
    {
      type: 'local_shell_call',
      id: 'lsc_1',
      call_id: 'call_c',
      status: 'completed',
      action: { type: 'exec', command: ['pwd'] },
    },
    { type: 'function_call_output', call_id: 'call_c', output: '/repo' },
  ],
  tools: [{ type: 'function', name: 'shell', parameters: { type: 'object', properties: {} }, strict: false }],
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning: { effort: 'medium', summary: 'auto' },
  store: false,
  stream: true,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: 'session-1',
  text: { verbosity: 'low' },
});

/** A Claude Code-like Messages request with beta fields, thinking and a tool round trip. */
const messagesRequest = () => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 32000,
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Read README' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Use Read.', signature: 'sig' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'README.md' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '# Tollgate' },
        { type: 'text', text: 'Summarize it' },
      ],
    },
  ],
  tools: [
    {
      name: 'Read',
      description: 'Reads a file',
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
    },
  ],
  tool_choice: { type: 'auto' },
  metadata: { user_id: 'user_abc' },
  thinking: { type: 'enabled', budget_tokens: 4096 },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  output_config: { effort: 'high' },
  temperature: 1,
  stream: true,
});

/** A Gemini CLI-like request in lowerCamelCase with a function call round trip. */
const geminiRequest = () => ({
  contents: [
    { role: 'user', parts: [{ text: 'List files' }] },
    {
      role: 'model',
      parts: [{ functionCall: { id: 'c1', name: 'list_directory', args: { path: '.' } }, thoughtSignature: 'sig' }],
    },
    {
      role: 'user',
      parts: [{ functionResponse: { id: 'c1', name: 'list_directory', response: { output: 'README.md' } } }],
    },
  ],
  systemInstruction: { role: 'user', parts: [{ text: 'You are Gemini CLI.' }] },
  tools: [{ functionDeclarations: [{ name: 'list_directory', parametersJsonSchema: { type: 'object' } }] }],
  toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
  generationConfig: { temperature: 0, topP: 1, thinkingConfig: { includeThoughts: true } },
  safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
});

function errorOf(refusal: { body: string } | undefined): unknown {
  expect(refusal).toBeDefined();
  return JSON.parse(refusal?.body ?? 'null');
}

describe('endpoints', () => {
  it('reads each known path, with prefixes and query strings, and no other', () => {
    expect(strictEndpointOf('/v1/chat/completions')).toBe('chat-completions');
    expect(strictEndpointOf('/b/slow/v1/responses')).toBe('responses');
    expect(strictEndpointOf('/v1/responses/input_tokens')).toBe('responses-input-tokens');
    expect(strictEndpointOf('/v1/responses/compact')).toBe('responses-compact');
    expect(strictEndpointOf('/v1/messages?beta=true')).toBe('messages');
    expect(strictEndpointOf('/v1/messages/count_tokens?beta=true')).toBe('messages-count-tokens');
    expect(strictEndpointOf('/v1beta/models/gemini-2.5-flash:generateContent')).toBe('gemini-generate-content');
    expect(strictEndpointOf(GEMINI_PATH)).toBe('gemini-generate-content');
    expect(strictEndpointOf('/v1/models/gemini-2.5-flash:countTokens')).toBe('gemini-count-tokens');
    expect(strictEndpointOf('/v1/models')).toBeUndefined();
  });

  it('a path of another format is not judged', () => {
    expect(refuseLikeProvider('openai-chat', MESSAGES_PATH, { bogus: 1 })).toBeUndefined();
  });

  it('the field lists hold the fields each API documents (spot checks)', () => {
    expect(KNOWN_REQUEST_FIELDS['chat-completions'].size).toBe(37);
    expect(KNOWN_REQUEST_FIELDS.responses.has('max_tool_calls')).toBe(true);
    expect(KNOWN_REQUEST_FIELDS['responses-compact'].has('tools')).toBe(false);
    expect(KNOWN_REQUEST_FIELDS.messages.has('betas')).toBe(false);
    expect(KNOWN_REQUEST_FIELDS['messages-count-tokens'].has('max_tokens')).toBe(false);
    expect(KNOWN_REQUEST_FIELDS['gemini-generate-content'].has('system_instruction')).toBe(true);
    expect(KNOWN_REQUEST_FIELDS['gemini-count-tokens'].has('generate_content_request')).toBe(true);
  });
});

describe('realistic full requests pass', () => {
  const cases: Array<[WireFormat, string, () => unknown]> = [
    ['openai-chat', CHAT_PATH, chatRequest],
    ['openai-responses', RESPONSES_PATH, responsesRequest],
    [
      'openai-responses',
      '/v1/responses/input_tokens',
      () => ({
        model: 'gpt-5',
        input: responsesRequest().input,
        tools: [],
        instructions: 'x',
        personality: 'friendly',
      }),
    ],
    [
      'openai-responses',
      '/v1/responses/compact',
      () => ({ model: 'gpt-5', input: responsesRequest().input, instructions: 'x', prompt_cache_key: 'k' }),
    ],
    ['anthropic-messages', `${MESSAGES_PATH}?beta=true`, messagesRequest],
    [
      'anthropic-messages',
      '/v1/messages/count_tokens',
      () => ({
        model: 'claude-sonnet-4-5',
        messages: messagesRequest().messages,
        system: 'x',
        tools: [],
        thinking: { type: 'enabled', budget_tokens: 2048 },
      }),
    ],
    ['gemini', GEMINI_PATH, geminiRequest],
    [
      'gemini',
      '/v1beta/models/gemini-2.5-flash:generateContent',
      () => ({
        contents: geminiRequest().contents,
        system_instruction: { parts: [{ text: 'x' }] },
        generation_config: {},
      }),
    ],
    [
      'gemini',
      '/v1beta/models/gemini-2.5-flash:countTokens',
      () => ({ generateContentRequest: { model: 'models/gemini-2.5-flash', contents: geminiRequest().contents } }),
    ],
  ];
  it.each(cases)('%s %s', (format, path, body) => {
    expect(refuseLikeProvider(format, path, body())).toBeUndefined();
  });
});

describe('unknown top-level fields', () => {
  it('Chat Completions: "Unrecognized request argument supplied"', () => {
    const refusal = refuseLikeProvider('openai-chat', CHAT_PATH, { ...chatRequest(), 'anthropic-beta': 'x' });
    expect(refusal?.status).toBe(400);
    expect(errorOf(refusal)).toEqual({
      error: {
        message: 'Unrecognized request argument supplied: anthropic-beta',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    const two = refuseLikeProvider('openai-chat', CHAT_PATH, { ...chatRequest(), foo: 1, bar: 2 });
    expect(two?.message).toBe('Unrecognized request arguments supplied: foo, bar');
  });

  it('Responses (each endpoint its own list): "Unknown parameter"', () => {
    expect(
      errorOf(refuseLikeProvider('openai-responses', RESPONSES_PATH, { ...responsesRequest(), thinking: {} })),
    ).toEqual({
      error: {
        message: "Unknown parameter: 'thinking'.",
        type: 'invalid_request_error',
        param: 'thinking',
        code: 'unknown_parameter',
      },
    });
    expect(
      refuseLikeProvider('openai-responses', '/v1/responses/input_tokens', { model: 'm', input: 'hi', stream: true })
        ?.message,
    ).toBe("Unknown parameter: 'stream'.");
    expect(
      refuseLikeProvider('openai-responses', '/v1/responses/compact', { model: 'm', input: 'hi', tools: [] })?.message,
    ).toBe("Unknown parameter: 'tools'.");
  });

  it('Anthropic: "Extra inputs are not permitted"', () => {
    expect(
      errorOf(
        refuseLikeProvider('anthropic-messages', MESSAGES_PATH, { ...messagesRequest(), reasoning_effort: 'low' }),
      ),
    ).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'reasoning_effort: Extra inputs are not permitted' },
    });
    expect(
      refuseLikeProvider('anthropic-messages', '/v1/messages/count_tokens', { model: 'm', messages: [], max_tokens: 5 })
        ?.message,
    ).toBe('max_tokens: Extra inputs are not permitted');
  });

  it('Gemini: "Unknown name", every name, in the BadRequest details', () => {
    expect(errorOf(refuseLikeProvider('gemini', GEMINI_PATH, { ...geminiRequest(), thinking: {} }))).toEqual({
      error: {
        code: 400,
        message: 'Invalid JSON payload received. Unknown name "thinking": Cannot find field.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [
              { description: 'Invalid JSON payload received. Unknown name "thinking": Cannot find field.' },
            ],
          },
        ],
      },
    });
    const two = refuseLikeProvider('gemini', '/v1beta/models/m:countTokens', { contents: [], model: 'm', config: {} });
    expect(two?.message).toBe(
      'Invalid JSON payload received. Unknown name "model": Cannot find field.\nInvalid JSON payload received. Unknown name "config": Cannot find field.',
    );
  });

  it('extra vendor fields are accepted only for the format they are given for', () => {
    const options = { extraFields: { 'openai-chat': ['thinking'] } };
    expect(
      refuseLikeProvider('openai-chat', CHAT_PATH, { ...chatRequest(), thinking: { type: 'enabled' } }, options),
    ).toBeUndefined();
    expect(
      refuseLikeProvider('openai-responses', RESPONSES_PATH, { ...responsesRequest(), thinking: {} }, options)?.message,
    ).toBe("Unknown parameter: 'thinking'.");
    expect(refuseLikeProviderAt(CHAT_PATH, { ...chatRequest(), thinking: {} })?.message).toBe(
      'Unrecognized request argument supplied: thinking',
    );
  });
});

describe('orphan tool results', () => {
  it('Chat: a tool message with no assistant tool_calls before it', () => {
    const body = chatRequest();
    body.messages.splice(2, 1); // drop the assistant message with tool_calls
    expect(errorOf(refuseLikeProvider('openai-chat', CHAT_PATH, body))).toEqual({
      error: {
        message:
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        type: 'invalid_request_error',
        param: 'messages.[2].role',
        code: null,
      },
    });
  });

  it('Chat: a tool message whose id is not among the preceding tool_calls', () => {
    const body = chatRequest();
    (body.messages[4] as { tool_call_id: string }).tool_call_id = 'call_zzz';
    expect(errorOf(refuseLikeProvider('openai-chat', CHAT_PATH, body))).toEqual({
      error: {
        message: "Invalid parameter: 'tool_call_id' of 'call_zzz' not found in 'tool_calls' of previous message.",
        type: 'invalid_request_error',
        param: 'messages.[4].tool_call_id',
        code: null,
      },
    });
  });

  it('Chat: a tool message after a later user turn is an orphan', () => {
    const body = chatRequest();
    body.messages.push({ role: 'tool', tool_call_id: 'call_1', content: 'late' });
    expect(refuseLikeProvider('openai-chat', CHAT_PATH, body)?.message).toMatch(
      /must be a response to a preceeding message/,
    );
  });

  it('Responses: an output whose call is not earlier in input', () => {
    const body = responsesRequest();
    body.input.splice(2, 1); // drop the function_call call_a
    expect(errorOf(refuseLikeProvider('openai-responses', RESPONSES_PATH, body))).toEqual({
      error: {
        message: 'No tool call found for function call output with call_id call_a.',
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    });
    const late = {
      model: 'm',
      input: [
        { type: 'custom_tool_call_output', call_id: 'x', output: '' },
        { type: 'custom_tool_call', call_id: 'x', name: 'n', input: '' },
      ],
    };
    expect(refuseLikeProvider('openai-responses', '/v1/responses/compact', late)?.message).toBe(
      'No tool call found for function call output with call_id x.',
    );
  });

  it('Responses: with previous_response_id the call may be stored upstream, so it is not checked', () => {
    const body = {
      model: 'm',
      previous_response_id: 'resp_1',
      input: [{ type: 'function_call_output', call_id: 'call_a', output: 'x' }],
    };
    expect(refuseLikeProvider('openai-responses', RESPONSES_PATH, body)).toBeUndefined();
  });

  it('Anthropic: a tool_result whose tool_use is not in the previous message', () => {
    const body = messagesRequest();
    body.messages[1] = { role: 'assistant', content: [{ type: 'text', text: 'Sure' }] };
    expect(errorOf(refuseLikeProvider('anthropic-messages', MESSAGES_PATH, body))).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      },
    });
    const first = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'tool_result', tool_use_id: 'toolu_9', content: 'y' },
          ],
        },
      ],
    };
    expect(refuseLikeProvider('anthropic-messages', '/v1/messages/count_tokens', first)?.message).toMatch(
      /^messages\.0\.content\.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9\./,
    );
  });

  it('Gemini: a functionResponse not right after the model functionCall turn', () => {
    const expected = {
      error: {
        code: 400,
        message: 'Please ensure that function response turn comes immediately after a function call turn.',
        status: 'INVALID_ARGUMENT',
      },
    };
    const moved = geminiRequest();
    moved.contents.splice(2, 0, { role: 'user', parts: [{ text: 'in between' }] } as (typeof moved.contents)[2]);
    expect(errorOf(refuseLikeProvider('gemini', GEMINI_PATH, moved))).toEqual(expected);
    const otherId = geminiRequest();
    (otherId.contents[2]?.parts[0] as { functionResponse: { id: string } }).functionResponse.id = 'c9';
    expect(errorOf(refuseLikeProvider('gemini', GEMINI_PATH, otherId))).toEqual(expected);
    const otherName = {
      contents: [
        { role: 'model', parts: [{ function_call: { name: 'a', args: {} } }] },
        { role: 'user', parts: [{ function_response: { name: 'b', response: {} } }] },
      ],
    };
    expect(errorOf(refuseLikeProvider('gemini', GEMINI_PATH, otherName))).toEqual(expected);
    const counted = {
      generateContentRequest: {
        model: 'models/m',
        contents: [{ role: 'user', parts: [{ functionResponse: { name: 'a', response: {} } }] }],
      },
    };
    expect(errorOf(refuseLikeProvider('gemini', '/v1beta/models/m:countTokens', counted))).toEqual(expected);
  });

  it('an unknown field is reported before an orphan', () => {
    const body = { ...chatRequest(), extra: true, messages: [{ role: 'tool', tool_call_id: 'x', content: '' }] };
    expect(refuseLikeProvider('openai-chat', CHAT_PATH, body)?.message).toBe(
      'Unrecognized request argument supplied: extra',
    );
  });
});

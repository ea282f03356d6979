/**
 * Contract of the fake upstreams themselves (no gateway): each official SDK — `openai`,
 * `@anthropic-ai/sdk`, `@google/genai` — pointed directly at each fake, sending requests with as
 * many documented parameters as practical, streamed and not, must be accepted; the same request
 * with one unknown top-level field (sent the SDK's way: undocumented params for openai and
 * anthropic, https://github.com/openai/openai-node#undocumented-request-params,
 * https://github.com/anthropics/anthropic-sdk-typescript#undocumented-request-params;
 * `config.httpOptions.extraBody` for genai) or with an orphan tool result must fail in the SDK with
 * the real API's 400 and message (gateway/mock/strict-request-rules.ts). So a fake can neither be
 * more lenient than the real API nor refuse what an official SDK really sends.
 */
import Anthropic from '@anthropic-ai/sdk';
import { FunctionCallingConfigMode, GoogleGenAI, HarmBlockThreshold, HarmCategory, type Content } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream } from '../../gateway/mock/mock-upstream-server.ts';
import { startScriptedUpstream } from '../e2e/agents/support/scripted-upstream.ts';
import { startCompactionUpstream } from '../integration/responses-compaction/compaction-upstream.ts';
import { startFixtureUpstream } from '../support/fixture-upstream.ts';
import { startHeaderEchoUpstream } from '../support/header-echo-upstream.ts';
import { startCountTokensUpstream } from './python/count-tokens-upstream.ts';

/** One SDK call the fakes are checked with. */
type Operation =
  | 'chat'
  | 'chat-stream'
  | 'responses'
  | 'responses-stream'
  | 'input-tokens'
  | 'compact'
  | 'messages'
  | 'messages-stream'
  | 'count-tokens'
  | 'beta-messages'
  | 'beta-messages-stream'
  | 'generate'
  | 'generate-stream'
  | 'gemini-count';

/** What a call varies: a valid request, one with an unknown top-level field, one with an orphan tool result. */
type Variant = 'valid' | 'unknown-field' | 'orphan';

const UNKNOWN = 'tollgate_unknown_field';
const KEY = 'sk-fake-upstream';

const WEATHER_SCHEMA: { type: 'object'; properties: Record<string, unknown>; required: string[] } = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

// ----- OpenAI Chat Completions ------------------------------------------------------------------

function chatParams(model: string, variant: Variant): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] =
    variant === 'orphan'
      ? [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'tool', tool_call_id: 'call_missing', content: '4°C' },
        ]
      : [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '4°C' },
        ];
  return {
    model,
    messages,
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather of a city', parameters: WEATHER_SCHEMA },
      },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    temperature: 0.5,
    top_p: 1,
    max_completion_tokens: 256,
    stop: ['END'],
    seed: 7,
    n: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    logprobs: false,
    response_format: { type: 'text' },
    metadata: { suite: 'strict-fakes' },
    store: false,
    user: 'user-1',
    safety_identifier: 'safety-1',
    prompt_cache_key: 'cache-1',
    service_tier: 'auto',
    ...(variant === 'unknown-field' ? { [UNKNOWN]: true } : {}),
  };
}

// ----- OpenAI Responses -------------------------------------------------------------------------

function responsesInput(variant: Variant): OpenAI.Responses.ResponseInputItem[] {
  const user: OpenAI.Responses.ResponseInputItem = {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: 'Weather in Oslo?' }],
  };
  if (variant === 'orphan') return [user, { type: 'function_call_output', call_id: 'call_missing', output: '4°C' }];
  return [
    user,
    { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    { type: 'function_call_output', call_id: 'call_1', output: '4°C' },
  ];
}

const RESPONSES_TOOLS: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: WEATHER_SCHEMA,
    strict: false,
  },
];

function responsesParams(model: string, variant: Variant): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  return {
    model,
    instructions: 'Be brief.',
    input: responsesInput(variant),
    tools: RESPONSES_TOOLS,
    tool_choice: 'auto',
    parallel_tool_calls: true,
    temperature: 0.5,
    top_p: 1,
    max_output_tokens: 256,
    metadata: { suite: 'strict-fakes' },
    store: false,
    user: 'user-1',
    safety_identifier: 'safety-1',
    prompt_cache_key: 'cache-1',
    service_tier: 'auto',
    reasoning: { effort: 'low', summary: 'auto' },
    text: { format: { type: 'text' }, verbosity: 'low' },
    include: ['reasoning.encrypted_content'],
    truncation: 'auto',
    ...(variant === 'unknown-field' ? { [UNKNOWN]: true } : {}),
  };
}

// ----- Anthropic Messages -----------------------------------------------------------------------

function anthropicMessages(variant: Variant): Anthropic.MessageParam[] {
  if (variant === 'orphan')
    return [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_missing', content: '4°C' }] }];
  return [
    { role: 'user', content: 'Weather in Oslo?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '4°C' },
        { type: 'text', text: 'And tomorrow?' },
      ],
    },
  ];
}

const ANTHROPIC_TOOLS: Anthropic.Tool[] = [
  { name: 'get_weather', description: 'Weather of a city', input_schema: WEATHER_SCHEMA },
];

function messagesParams(model: string, variant: Variant): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model,
    max_tokens: 256,
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: anthropicMessages(variant),
    tools: ANTHROPIC_TOOLS,
    tool_choice: { type: 'auto' },
    metadata: { user_id: 'user-1' },
    stop_sequences: ['END'],
    service_tier: 'auto',
    // Documented sampling fields (https://docs.anthropic.com/en/api/messages) that this SDK's types omit.
    ...({ temperature: 1, top_k: 40 } as object),
    ...(variant === 'unknown-field' ? { [UNKNOWN]: true } : {}),
  };
}

function countTokensParams(model: string, variant: Variant): Anthropic.MessageCountTokensParams {
  return {
    model,
    system: 'Be brief.',
    messages: anthropicMessages(variant),
    tools: ANTHROPIC_TOOLS,
    tool_choice: { type: 'auto' },
    ...(variant === 'unknown-field' ? { [UNKNOWN]: true } : {}),
  };
}

function betaMessagesParams(model: string, variant: Variant): Anthropic.Beta.MessageCreateParamsNonStreaming {
  return {
    ...(messagesParams(model, variant) as object as Anthropic.Beta.MessageCreateParamsNonStreaming),
    betas: ['context-management-2025-06-27', 'interleaved-thinking-2025-05-14'],
    context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
  };
}

// ----- Gemini -----------------------------------------------------------------------------------

function geminiContents(variant: Variant): Content[] {
  if (variant === 'orphan')
    return [
      { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '4°C' } } }] },
    ];
  return [
    { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
    // The documented stand-in signature for a call the model did not make (https://ai.google.dev/gemini-api/docs/thought-signatures).
    {
      role: 'model',
      parts: [
        {
          functionCall: { name: 'get_weather', args: { city: 'Oslo' } },
          thoughtSignature: 'skip_thought_signature_validator',
        },
      ],
    },
    { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '4°C' } } }] },
  ];
}

function extraBody(variant: Variant): { httpOptions?: { extraBody: Record<string, unknown> } } {
  return variant === 'unknown-field' ? { httpOptions: { extraBody: { [UNKNOWN]: true } } } : {};
}

function generateParams(model: string, variant: Variant) {
  return {
    model,
    contents: geminiContents(variant),
    config: {
      systemInstruction: 'Be brief.',
      temperature: 0.5,
      topP: 1,
      topK: 40,
      candidateCount: 1,
      maxOutputTokens: 256,
      stopSequences: ['END'],
      seed: 7,
      presencePenalty: 0,
      frequencyPenalty: 0,
      responseMimeType: 'text/plain',
      safetySettings: [{ category: HarmCategory.HARM_CATEGORY_HARASSMENT, threshold: HarmBlockThreshold.BLOCK_NONE }],
      tools: [
        {
          functionDeclarations: [
            { name: 'get_weather', description: 'Weather of a city', parametersJsonSchema: WEATHER_SCHEMA },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
      thinkingConfig: { thinkingBudget: 0 },
      ...extraBody(variant),
    },
  };
}

// ----- Running one operation --------------------------------------------------------------------

/** Runs `operation` with the official SDK against `origin`, reading any stream to its end. */
async function run(operation: Operation, origin: string, model: string, variant: Variant): Promise<void> {
  const openai = new OpenAI({ apiKey: KEY, baseURL: `${origin}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: KEY, baseURL: origin, maxRetries: 0 });
  const genai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: origin } });
  switch (operation) {
    case 'chat':
      return void (await openai.chat.completions.create(chatParams(model, variant)));
    case 'chat-stream':
      for await (const chunk of await openai.chat.completions.create({
        ...chatParams(model, variant),
        stream: true,
        stream_options: { include_usage: true },
      }))
        void chunk;
      return;
    case 'responses':
      return void (await openai.responses.create(responsesParams(model, variant)));
    case 'responses-stream':
      for await (const event of await openai.responses.create({ ...responsesParams(model, variant), stream: true }))
        void event;
      return;
    case 'input-tokens': {
      const { input, instructions, tools, tool_choice, parallel_tool_calls, reasoning, text } = responsesParams(
        model,
        variant,
      );
      const extra = variant === 'unknown-field' ? { [UNKNOWN]: true } : {};
      return void (await openai.responses.inputTokens.count({
        model,
        input,
        instructions,
        tools,
        tool_choice,
        parallel_tool_calls,
        reasoning,
        text,
        truncation: 'auto',
        ...extra,
      }));
    }
    case 'compact': {
      const { input, instructions, prompt_cache_key, service_tier } = responsesParams(model, variant);
      const extra = variant === 'unknown-field' ? { [UNKNOWN]: true } : {};
      return void (await openai.responses.compact({
        model,
        input,
        instructions,
        prompt_cache_key,
        service_tier: service_tier === 'auto' ? 'auto' : undefined,
        ...extra,
      }));
    }
    case 'messages':
      return void (await anthropic.messages.create(messagesParams(model, variant)));
    case 'messages-stream':
      await anthropic.messages.stream(messagesParams(model, variant)).finalMessage();
      return;
    case 'count-tokens':
      return void (await anthropic.messages.countTokens(countTokensParams(model, variant)));
    case 'beta-messages':
      return void (await anthropic.beta.messages.create(betaMessagesParams(model, variant)));
    case 'beta-messages-stream':
      await anthropic.beta.messages.stream(betaMessagesParams(model, variant)).finalMessage();
      return;
    case 'generate':
      return void (await genai.models.generateContent(generateParams(model, variant)));
    case 'generate-stream':
      for await (const chunk of await genai.models.generateContentStream(generateParams(model, variant))) void chunk;
      return;
    case 'gemini-count':
      return void (await genai.models.countTokens({
        model,
        contents: geminiContents(variant),
        config: { httpOptions: { headers: { 'x-suite': 'strict-fakes' } }, ...extraBody(variant) },
      }));
  }
}

/** The wire format whose error words an operation's refusal carries. */
function formatOf(operation: Operation): 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini' {
  if (operation.startsWith('chat')) return 'openai-chat';
  if (operation.startsWith('responses') || operation === 'input-tokens' || operation === 'compact')
    return 'openai-responses';
  if (operation.includes('messages') || operation === 'count-tokens') return 'anthropic-messages';
  return 'gemini';
}

const EXPECTED_MESSAGE: Record<ReturnType<typeof formatOf>, Record<Exclude<Variant, 'valid'>, string>> = {
  'openai-chat': {
    'unknown-field': `Unrecognized request argument supplied: ${UNKNOWN}`,
    orphan:
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
  },
  'openai-responses': {
    'unknown-field': `Unknown parameter: '${UNKNOWN}'.`,
    orphan: 'No tool call found for function call output with call_id call_missing.',
  },
  'anthropic-messages': {
    'unknown-field': `${UNKNOWN}: Extra inputs are not permitted`,
    orphan:
      'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_missing. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
  },
  gemini: {
    'unknown-field': `Invalid JSON payload received. Unknown name "${UNKNOWN}": Cannot find field.`,
    orphan: 'Please ensure that function response turn comes immediately after a function call turn.',
  },
};

/** `value[name]` when `value` is an object (an SDK error's parsed body), else undefined. */
function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** The status and provider message of the error an SDK threw. */
function refusalOf(operation: Operation, error: unknown): { status: unknown; message: unknown } {
  const format = formatOf(operation);
  if (format === 'openai-chat' || format === 'openai-responses') {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    return { status: apiError.status, message: fieldOf(apiError.error, 'message') };
  }
  if (format === 'anthropic-messages') {
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    return {
      status: apiError.status,
      message: fieldOf(fieldOf(apiError.error, 'error'), 'message'),
    };
  }
  const apiError = error as { name?: string; status?: number; message: string };
  expect(apiError.name).toBe('ApiError');
  return {
    status: apiError.status,
    message: (JSON.parse(apiError.message) as { error?: { message?: unknown } }).error?.message,
  };
}

// ----- The fakes --------------------------------------------------------------------------------

interface RunningFake {
  readonly origin: string;
  close(): Promise<void>;
}

interface FakeUnderTest {
  readonly name: string;
  readonly start: () => Promise<RunningFake>;
  /** The model name that makes the fake answer normally. */
  readonly model: string;
  readonly operations: readonly Operation[];
}

const GENERATION: readonly Operation[] = [
  'chat',
  'chat-stream',
  'responses',
  'responses-stream',
  'messages',
  'messages-stream',
  'beta-messages',
  'beta-messages-stream',
  'generate',
  'generate-stream',
];

const FAKES: readonly FakeUnderTest[] = [
  {
    name: 'built-in mock provider',
    start: () => startMockUpstream().then((mock) => ({ origin: mock.baseUrl, close: mock.close })),
    model: 'mock-1',
    operations: [...GENERATION, 'count-tokens', 'gemini-count'],
  },
  {
    name: 'fixture upstream',
    start: () => startFixtureUpstream().then((fake) => ({ origin: fake.origin, close: () => fake.close() })),
    model: 'text',
    operations: GENERATION,
  },
  {
    name: 'scripted agent upstream',
    start: () => startScriptedUpstream({ mode: 'plain', marker: 'STRICT-OK', notePath: '/dev/null' }),
    model: 'scripted-model',
    operations: [...GENERATION, 'input-tokens', 'count-tokens', 'gemini-count'],
  },
  {
    name: 'count-tokens upstream',
    start: () => startCountTokensUpstream(42),
    model: 'count-model',
    operations: ['count-tokens', 'gemini-count'],
  },
  {
    name: 'compaction upstream',
    start: () => startCompactionUpstream(),
    model: 'compaction-model',
    operations: ['chat', 'responses', 'compact', 'messages', 'beta-messages', 'generate'],
  },
  {
    name: 'header-echo upstream',
    start: () => startHeaderEchoUpstream(),
    model: 'echo-model',
    operations: ['chat', 'chat-stream', 'messages', 'beta-messages'],
  },
];

describe.each(FAKES)('$name', (fake) => {
  let running: RunningFake;
  beforeAll(async () => {
    running = await fake.start();
  });
  afterAll(async () => {
    await running?.close();
  });

  describe.each(fake.operations)('%s', (operation) => {
    it('accepts what the official SDK sends', async () => {
      await expect(run(operation, running.origin, fake.model, 'valid')).resolves.toBeUndefined();
    });

    for (const variant of ['unknown-field', 'orphan'] as const) {
      it(`refuses ${variant === 'orphan' ? 'an orphan tool result' : 'an unknown top-level field'} with the real API's 400`, async () => {
        const error = await run(operation, running.origin, fake.model, variant).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeDefined();
        expect(refusalOf(operation, error)).toEqual({
          status: 400,
          message: EXPECTED_MESSAGE[formatOf(operation)][variant],
        });
      });
    }
  });
});

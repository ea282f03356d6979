/**
 * Drives the gateway with the official SDKs (openai, @anthropic-ai/sdk, @google/genai) and
 * normalises what each returns into one shape, in canonical units, so one expectation file per
 * upstream fixture checks every client format. Each SDK's own stream helper is used for streams
 * (`responses.stream().finalResponse()`, `chat.completions.stream().finalChatCompletion()`,
 * `messages.stream().finalMessage()`, `models.generateContentStream`).
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { ClientFormat } from '../../gateway/canonical/formats.ts';

/** What a client saw, in canonical terms. */
export interface ClientResult {
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: Array<{ name: string; arguments: unknown }>;
  /** The client format's own stop/finish value. */
  readonly finish: string;
  /** Input tokens including cached ones. */
  readonly inputTotal: number;
  /** Output tokens including reasoning. */
  readonly outputTotal: number;
}

export interface CallOptions {
  readonly stream: boolean;
  readonly withTools: boolean;
}

const WEATHER_SCHEMA: { type: 'object'; properties: Record<string, unknown>; required: string[] } = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

async function callResponses(origin: string, key: string, model: string, options: CallOptions): Promise<ClientResult> {
  const client = new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: 0 });
  const body = {
    model,
    input: 'What is the weather in Oslo?',
    ...(options.withTools
      ? {
          tools: [
            {
              type: 'function' as const,
              name: 'get_weather',
              description: 'Current weather',
              parameters: WEATHER_SCHEMA,
              strict: false,
            },
          ],
        }
      : {}),
  };
  const response = options.stream
    ? await client.responses.stream(body).finalResponse()
    : await client.responses.create(body);
  let text = '';
  let reasoning = '';
  const toolCalls: ClientResult['toolCalls'] = [];
  for (const item of response.output) {
    if (item.type === 'message') for (const part of item.content) text += part.type === 'output_text' ? part.text : '';
    if (item.type === 'reasoning')
      reasoning += item.summary.map((s) => s.text).join('') + (item.content ?? []).map((c) => c.text).join('');
    if (item.type === 'function_call') toolCalls.push({ name: item.name, arguments: JSON.parse(item.arguments) });
  }
  return {
    text,
    reasoning,
    toolCalls,
    finish: response.status ?? '',
    inputTotal: response.usage?.input_tokens ?? -1,
    outputTotal: response.usage?.output_tokens ?? -1,
  };
}

async function callChat(origin: string, key: string, model: string, options: CallOptions): Promise<ClientResult> {
  const client = new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: 0 });
  const body = {
    model,
    messages: [{ role: 'user' as const, content: 'What is the weather in Oslo?' }],
    ...(options.withTools
      ? {
          tools: [
            {
              type: 'function' as const,
              function: { name: 'get_weather', description: 'Current weather', parameters: WEATHER_SCHEMA },
            },
          ],
        }
      : {}),
  };
  let reasoning = '';
  let usage: OpenAI.CompletionUsage | undefined;
  let completion: OpenAI.ChatCompletion;
  if (options.stream) {
    const stream = client.chat.completions.stream({ ...body, stream_options: { include_usage: true } });
    stream.on('chunk', (chunk) => {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      if (chunk.usage) usage = chunk.usage;
    });
    completion = await stream.finalChatCompletion();
  } else {
    completion = await client.chat.completions.create(body);
    usage = completion.usage;
    reasoning = (completion.choices[0]?.message as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
  }
  const choice = completion.choices[0];
  const toolCalls = (choice?.message.tool_calls ?? []).map((call) =>
    call.type === 'function'
      ? { name: call.function.name, arguments: JSON.parse(call.function.arguments) }
      : { name: '?', arguments: null },
  );
  return {
    text: choice?.message.content ?? '',
    reasoning,
    toolCalls,
    finish: choice?.finish_reason ?? '',
    inputTotal: usage?.prompt_tokens ?? -1,
    outputTotal: usage?.completion_tokens ?? -1,
  };
}

async function callMessages(origin: string, key: string, model: string, options: CallOptions): Promise<ClientResult> {
  const client = new Anthropic({ apiKey: key, baseURL: origin, maxRetries: 0 });
  const body = {
    model,
    max_tokens: 1024,
    messages: [{ role: 'user' as const, content: 'What is the weather in Oslo?' }],
    ...(options.withTools
      ? { tools: [{ name: 'get_weather', description: 'Current weather', input_schema: WEATHER_SCHEMA }] }
      : {}),
  };
  const message = options.stream
    ? await client.messages.stream(body).finalMessage()
    : await client.messages.create(body);
  let text = '';
  let reasoning = '';
  const toolCalls: ClientResult['toolCalls'] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    if (block.type === 'thinking') reasoning += block.thinking;
    if (block.type === 'tool_use') toolCalls.push({ name: block.name, arguments: block.input });
  }
  const u = message.usage;
  return {
    text,
    reasoning,
    toolCalls,
    finish: message.stop_reason ?? '',
    inputTotal: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
    outputTotal: u.output_tokens,
  };
}

async function callGemini(origin: string, key: string, model: string, options: CallOptions): Promise<ClientResult> {
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: origin } });
  const request = {
    model,
    contents: 'What is the weather in Oslo?',
    ...(options.withTools
      ? {
          config: {
            tools: [
              {
                functionDeclarations: [
                  { name: 'get_weather', description: 'Current weather', parametersJsonSchema: WEATHER_SCHEMA },
                ],
              },
            ],
          },
        }
      : {}),
  };
  const chunks = options.stream
    ? await collect(await ai.models.generateContentStream(request))
    : [await ai.models.generateContent(request)];
  let text = '';
  let reasoning = '';
  let finish = '';
  const toolCalls: ClientResult['toolCalls'] = [];
  let usage: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number } | undefined;
  for (const chunk of chunks) {
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.thought) reasoning += part.text ?? '';
      else if (part.text !== undefined) text += part.text;
      if (part.functionCall) toolCalls.push({ name: part.functionCall.name ?? '', arguments: part.functionCall.args });
    }
    if (candidate?.finishReason) finish = candidate.finishReason;
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
  }
  return {
    text,
    reasoning,
    toolCalls,
    finish,
    inputTotal: usage?.promptTokenCount ?? -1,
    outputTotal: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
  };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** Calls the gateway at `origin` as the official SDK of `format` would. */
export function callWithSdk(
  format: ClientFormat,
  origin: string,
  key: string,
  model: string,
  options: CallOptions,
): Promise<ClientResult> {
  switch (format) {
    case 'openai-responses':
      return callResponses(origin, key, model, options);
    case 'openai-chat':
      return callChat(origin, key, model, options);
    case 'anthropic-messages':
      return callMessages(origin, key, model, options);
    case 'gemini':
      return callGemini(origin, key, model, options);
  }
}

/** The finish value each client format shows for a unified finish reason. */
export function expectedFinish(format: ClientFormat, unified: string): string {
  const table: Record<ClientFormat, Record<string, string>> = {
    'openai-responses': { stop: 'completed', 'tool-calls': 'completed', length: 'incomplete' },
    'openai-chat': { stop: 'stop', 'tool-calls': 'tool_calls', length: 'length' },
    'anthropic-messages': { stop: 'end_turn', 'tool-calls': 'tool_use', length: 'max_tokens' },
    gemini: { stop: 'STOP', 'tool-calls': 'STOP', length: 'MAX_TOKENS' },
  };
  return table[format][unified] ?? `unmapped:${unified}`;
}

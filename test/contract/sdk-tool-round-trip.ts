/**
 * A tool round trip through the gateway with each official JS SDK (openai Chat and Responses,
 * @anthropic-ai/sdk, @google/genai): the first request offers `get_weather` and gets the
 * model's call, the second sends the conversation back with the call and its result, as each
 * API documents it (Chat: an assistant `tool_calls` message and a `tool` message; Responses:
 * `function_call` and `function_call_output` items; Messages: `tool_use` then `tool_result`;
 * Gemini: `functionCall` then `functionResponse`). The upstream fakes refuse a result whose call
 * is missing, so a gateway that loses or renames the call on the way fails here.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content } from '@google/genai';
import OpenAI from 'openai';
import type { ClientFormat } from '../../gateway/canonical/formats.ts';

const QUESTION = 'What is the weather in Oslo?';
const RESULT = { city: 'Oslo', forecast: 'sunny', celsius: 21 };
const SCHEMA = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

/** What the round trip saw: the tool the model called and the text of the final answer. */
export interface RoundTrip {
  readonly calledTool: string;
  readonly finalText: string;
}

async function chatRoundTrip(origin: string, key: string, callModel: string, answerModel: string): Promise<RoundTrip> {
  const client = new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: 0 });
  const tools = [
    {
      type: 'function' as const,
      function: { name: 'get_weather', description: 'Current weather', parameters: SCHEMA },
    },
  ];
  const first = await client.chat.completions.create({
    model: callModel,
    messages: [{ role: 'user', content: QUESTION }],
    tools,
  });
  const call = first.choices[0]?.message.tool_calls?.[0];
  if (call?.type !== 'function') throw new Error('no tool call came back');
  const second = await client.chat.completions.create({
    model: answerModel,
    tools,
    messages: [
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, content: JSON.stringify(RESULT) },
    ],
  });
  return { calledTool: call.function.name, finalText: second.choices[0]?.message.content ?? '' };
}

async function responsesRoundTrip(
  origin: string,
  key: string,
  callModel: string,
  answerModel: string,
): Promise<RoundTrip> {
  const client = new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: 0 });
  const tools = [
    {
      type: 'function' as const,
      name: 'get_weather',
      description: 'Current weather',
      parameters: SCHEMA,
      strict: false,
    },
  ];
  const first = await client.responses.create({ model: callModel, input: QUESTION, tools });
  const call = first.output.find((item) => item.type === 'function_call');
  if (call?.type !== 'function_call') throw new Error('no tool call came back');
  const second = await client.responses.create({
    model: answerModel,
    tools,
    input: [
      { role: 'user', content: QUESTION },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(RESULT) },
    ],
  });
  return { calledTool: call.name, finalText: second.output_text };
}

async function messagesRoundTrip(
  origin: string,
  key: string,
  callModel: string,
  answerModel: string,
): Promise<RoundTrip> {
  const client = new Anthropic({ apiKey: key, baseURL: origin, maxRetries: 0 });
  const tools = [{ name: 'get_weather', description: 'Current weather', input_schema: SCHEMA }];
  const first = await client.messages.create({
    model: callModel,
    max_tokens: 1024,
    tools,
    messages: [{ role: 'user', content: QUESTION }],
  });
  const call = first.content.find((block) => block.type === 'tool_use');
  if (call?.type !== 'tool_use') throw new Error('no tool call came back');
  const second = await client.messages.create({
    model: answerModel,
    max_tokens: 1024,
    tools,
    messages: [
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: JSON.stringify(RESULT) }] },
    ],
  });
  const text = second.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  return { calledTool: call.name, finalText: text };
}

async function geminiRoundTrip(
  origin: string,
  key: string,
  callModel: string,
  answerModel: string,
): Promise<RoundTrip> {
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: origin } });
  const config = {
    tools: [
      { functionDeclarations: [{ name: 'get_weather', description: 'Current weather', parametersJsonSchema: SCHEMA }] },
    ],
  };
  const question: Content = { role: 'user', parts: [{ text: QUESTION }] };
  const first = await ai.models.generateContent({ model: callModel, contents: [question], config });
  const modelTurn = first.candidates?.[0]?.content;
  const call = first.functionCalls?.[0];
  if (!modelTurn || !call?.name) throw new Error('no tool call came back');
  const second = await ai.models.generateContent({
    model: answerModel,
    config,
    contents: [
      question,
      modelTurn,
      {
        role: 'user',
        parts: [{ functionResponse: { name: call.name, ...(call.id ? { id: call.id } : {}), response: RESULT } }],
      },
    ],
  });
  return { calledTool: call.name, finalText: second.text ?? '' };
}

/**
 * A tool round trip of the SDK of `format` against the gateway at `origin`: `callModel` answers
 * the first request with a `get_weather` call, `answerModel` the second with text.
 * @throws Error when no tool call came back, or the SDK's own error for a refused request
 */
export function toolRoundTrip(
  format: ClientFormat,
  origin: string,
  key: string,
  callModel: string,
  answerModel: string,
): Promise<RoundTrip> {
  switch (format) {
    case 'openai-chat':
      return chatRoundTrip(origin, key, callModel, answerModel);
    case 'openai-responses':
      return responsesRoundTrip(origin, key, callModel, answerModel);
    case 'anthropic-messages':
      return messagesRoundTrip(origin, key, callModel, answerModel);
    case 'gemini':
      return geminiRoundTrip(origin, key, callModel, answerModel);
  }
}

/**
 * The client endpoints under attack: for each, its path, credential headers, a valid body, and
 * the error envelope its SDKs expect (OpenAI `{error:{message,type,param,code}}`, Anthropic
 * `{type:'error',error:{type,message}}`, Gemini `{error:{code,message,status}}`).
 */
import { expect } from 'vitest';

/** The three error envelopes. */
export type Envelope = 'openai' | 'anthropic' | 'gemini';

/** One POST endpoint and a body it accepts. */
export interface ClientEndpoint {
  readonly name: string;
  readonly path: string;
  readonly envelope: Envelope;
  readonly headers: (key: string) => Record<string, string>;
  readonly validBody: Record<string, unknown>;
}

/** Models of the test gateway: each served by a channel of its own protocol on the fixture upstream. */
export const MODELS = {
  chat: 'chat-model',
  responses: 'responses-model',
  anthropic: 'claude-model',
  gemini: 'gemini-model',
} as const;

const openaiAuth = (key: string) => ({ authorization: `Bearer ${key}` });
const anthropicAuth = (key: string) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' });
const geminiAuth = (key: string) => ({ 'x-goog-api-key': key });

const chatBody = {
  model: MODELS.chat,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'What is the weather?' }] },
  ],
  max_tokens: 16,
  temperature: 0.5,
  tools: [
    {
      type: 'function',
      function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ],
};

const responsesBody = {
  model: MODELS.responses,
  instructions: 'Be brief.',
  input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is the weather?' }] }],
  max_output_tokens: 16,
  tools: [
    { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  ],
};

const anthropicBody = {
  model: MODELS.anthropic,
  max_tokens: 16,
  system: 'Be brief.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the weather?' }] }],
  tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
};

const geminiBody = {
  contents: [{ role: 'user', parts: [{ text: 'What is the weather?' }] }],
  systemInstruction: { parts: [{ text: 'Be brief.' }] },
  generationConfig: { maxOutputTokens: 16, temperature: 0.5 },
  tools: [
    {
      functionDeclarations: [
        { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } },
      ],
    },
  ],
};

/** Every POST client endpoint with a valid body. */
export const CLIENT_ENDPOINTS: ReadonlyArray<ClientEndpoint> = [
  {
    name: 'chat completions',
    path: '/v1/chat/completions',
    envelope: 'openai',
    headers: openaiAuth,
    validBody: chatBody,
  },
  { name: 'responses', path: '/v1/responses', envelope: 'openai', headers: openaiAuth, validBody: responsesBody },
  {
    name: 'responses input_tokens',
    path: '/v1/responses/input_tokens',
    envelope: 'openai',
    headers: openaiAuth,
    validBody: responsesBody,
  },
  {
    name: 'responses compact',
    path: '/v1/responses/compact',
    envelope: 'openai',
    headers: openaiAuth,
    validBody: { model: MODELS.chat, input: responsesBody.input },
  },
  { name: 'messages', path: '/v1/messages', envelope: 'anthropic', headers: anthropicAuth, validBody: anthropicBody },
  {
    name: 'messages count_tokens',
    path: '/v1/messages/count_tokens',
    envelope: 'anthropic',
    headers: anthropicAuth,
    validBody: { model: anthropicBody.model, messages: anthropicBody.messages, system: anthropicBody.system },
  },
  {
    name: 'gemini generateContent',
    path: `/v1beta/models/${MODELS.gemini}:generateContent`,
    envelope: 'gemini',
    headers: geminiAuth,
    validBody: geminiBody,
  },
  {
    name: 'gemini streamGenerateContent',
    path: `/v1beta/models/${MODELS.gemini}:streamGenerateContent?alt=sse`,
    envelope: 'gemini',
    headers: geminiAuth,
    validBody: geminiBody,
  },
  {
    name: 'gemini countTokens',
    path: `/v1beta/models/${MODELS.gemini}:countTokens`,
    envelope: 'gemini',
    headers: geminiAuth,
    validBody: { contents: geminiBody.contents },
  },
  {
    name: 'gemini countTokens (v1, translated)',
    path: `/v1/models/${MODELS.chat}:countTokens`,
    envelope: 'gemini',
    headers: geminiAuth,
    validBody: { contents: geminiBody.contents },
  },
];

/** Asserts that `body` is an error in `envelope`'s shape for HTTP `status`. */
export function expectErrorEnvelope(envelope: Envelope, status: number, body: unknown): void {
  const value = body as Record<string, any>;
  switch (envelope) {
    case 'openai':
      expect(Object.keys(value)).toEqual(['error']);
      expect(Object.keys(value.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(typeof value.error.message).toBe('string');
      expect(typeof value.error.type).toBe('string');
      return;
    case 'anthropic':
      expect(value.type).toBe('error');
      expect(typeof value.error.type).toBe('string');
      expect(typeof value.error.message).toBe('string');
      return;
    case 'gemini':
      expect(value.error.code).toBe(status);
      expect(typeof value.error.message).toBe('string');
      expect(typeof value.error.status).toBe('string');
      return;
  }
}

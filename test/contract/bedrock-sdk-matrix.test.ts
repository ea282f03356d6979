/**
 * Contract: the official JS SDKs of every client format (OpenAI Responses and Chat, Anthropic,
 * Gemini), pointed at the gateway, reach models on Amazon Bedrock through the fake Bedrock
 * Runtime (test/support/bedrock-upstream.ts): a Converse channel signed with SigV4 and a Claude
 * InvokeModel channel with a Bedrock API key, each scenario (text, tool call, reasoning) streamed
 * and not, then a tool round trip (the tool's result sent back) on both. A channel whose secret
 * is wrong fails over to a healthy one with a warning that never shows the secret.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIRE_FORMATS } from '../../gateway/canonical/formats.ts';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_API_KEY,
  BEDROCK_TEST_CREDENTIALS,
  startBedrockUpstream,
  type BedrockUpstream,
} from '../support/bedrock-upstream.ts';
import { FIXTURE_ROOT } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';
import { callWithSdk, expectedFinish } from './sdk-clients.ts';

const SCENARIOS = ['text', 'tool-call', 'reasoning'] as const;
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const SIGV4_KEY = `${BEDROCK_TEST_CREDENTIALS.accessKeyId}:${BEDROCK_TEST_CREDENTIALS.secretAccessKey}`;
const WRONG_SECRET = 'wrongSecretKeyThatMustNeverBeLogged0000000';

/** The two Bedrock surfaces under test: channel id prefix, protocol, expectation folder. */
const SURFACES = [
  { name: 'converse', protocol: 'bedrock-converse', expectations: 'bedrock-converse' },
  { name: 'invoke', protocol: 'anthropic-messages', expectations: 'anthropic-messages' },
] as const;

interface Expectation {
  text: string;
  reasoning: string;
  toolCalls: Array<{ name: string; arguments: unknown }>;
  finish: string;
  usage: { inputTotal: number; outputTotal: number };
}

function expectation(folder: string, scenario: string): Expectation {
  return JSON.parse(readFileSync(`${FIXTURE_ROOT}${folder}/${scenario}.expect.json`, 'utf8')) as Expectation;
}

const modelMap = (surface: string) =>
  Object.fromEntries(SCENARIOS.map((scenario) => [`${surface}--${scenario}`, `${CLAUDE}--${scenario}`]));

let fake: BedrockUpstream;
let gateway: TestGateway;
const logLines: string[] = [];

beforeAll(async () => {
  fake = await startBedrockUpstream();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const channel = (id: string, protocol: string, auth: 'sigv4' | 'api-key', apiKey: string, extra = {}) => ({
    id,
    provider: 'bedrock',
    protocol,
    baseUrl: fake.origin,
    apiKey,
    cloud: { auth, region: BEDROCK_FAKE_REGION },
    ...extra,
  });
  gateway = await startTestGateway(
    {
      channels: [
        channel('converse-sigv4', 'bedrock-converse', 'sigv4', SIGV4_KEY, { modelMap: modelMap('converse') }),
        channel('invoke-api-key', 'anthropic-messages', 'api-key', BEDROCK_TEST_API_KEY, {
          modelMap: modelMap('invoke'),
        }),
        channel('converse-api-key', 'bedrock-converse', 'api-key', BEDROCK_TEST_API_KEY, {
          modelMap: { 'converse-key--text': `${CLAUDE}--text` },
        }),
        channel('invoke-sigv4', 'anthropic-messages', 'sigv4', SIGV4_KEY, {
          modelMap: { 'invoke-sigv4--text': `${CLAUDE}--text` },
        }),
        channel('bad-secret', 'bedrock-converse', 'sigv4', `${BEDROCK_TEST_CREDENTIALS.accessKeyId}:${WRONG_SECRET}`, {
          priority: 1,
          modelMap: { 'failover--text': `${CLAUDE}--text` },
        }),
        channel('healthy', 'bedrock-converse', 'sigv4', SIGV4_KEY, {
          priority: 0,
          modelMap: { 'failover--text': `${CLAUDE}--text` },
        }),
      ],
    },
    { logger: pino({ level: 'info' }, sink) },
  );
});

afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

describe.each(WIRE_FORMATS)('client %s', (client) => {
  describe.each(SURFACES)('→ Bedrock $name', (surface) => {
    for (const scenario of SCENARIOS) {
      for (const stream of [false, true]) {
        it(`${scenario}, ${stream ? 'streamed' : 'not streamed'}`, async () => {
          const expected = expectation(surface.expectations, scenario);
          const result = await callWithSdk(client, gateway.origin, TEST_KEY, `${surface.name}--${scenario}`, {
            stream,
            withTools: scenario === 'tool-call',
          });
          expect(result.text).toBe(expected.text);
          expect(result.toolCalls).toEqual(expected.toolCalls);
          if (expected.reasoning) expect(result.reasoning).toBe(expected.reasoning);
          expect(result.finish).toBe(expectedFinish(client, expected.finish));
          expect(result.inputTotal).toBe(expected.usage.inputTotal);
          expect(result.outputTotal).toBe(expected.usage.outputTotal);
        });
      }
    }
  });
});

describe('tool round trip: the tool result goes back to Bedrock', () => {
  const weather = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

  it.each(SURFACES)('OpenAI Chat → Bedrock $name', async (surface) => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({
      model: `${surface.name}--text`,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }],
      messages: [
        { role: 'user', content: 'What is the weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'tooluse_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'tooluse_1', content: '4°C, cloudy' },
      ],
    });
    expect(answer.choices[0]?.message.content).toBe('Hello! How can I help you today?');
    const sent = JSON.parse(fake.requests.at(-1)?.body ?? '{}') as { messages: Array<{ content: unknown[] }> };
    expect(JSON.stringify(sent.messages.at(-1)?.content)).toContain('4°C, cloudy');
  });

  it.each(SURFACES)('Anthropic → Bedrock $name, streamed', async (surface) => {
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const message = await anthropic.messages
      .stream({
        model: `${surface.name}--text`,
        max_tokens: 512,
        tools: [{ name: 'get_weather', input_schema: weather }],
        messages: [
          { role: 'user', content: 'What is the weather in Oslo?' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '4°C, cloudy' }] },
        ],
      })
      .finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello! How can I help you today?' });
  });

  it.each(SURFACES)('Gemini → Bedrock $name', async (surface) => {
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin } });
    const answer = await ai.models.generateContent({
      model: `${surface.name}--text`,
      config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weather }] }] },
      contents: [
        { role: 'user', parts: [{ text: 'What is the weather in Oslo?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '4°C, cloudy' } } }] },
      ],
    });
    expect(answer.text).toBe('Hello! How can I help you today?');
  });
});

describe('credentials', () => {
  it('signs Converse with SigV4 and sends the Bedrock API key as a bearer token on InvokeModel, and the other way round', async () => {
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    for (const model of ['converse--text', 'invoke--text', 'converse-key--text', 'invoke-sigv4--text']) {
      const message = await anthropic.messages.create({
        model,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello! How can I help you today?' });
      const authorization = String(fake.requests.at(-1)?.headers.authorization);
      expect(
        authorization.startsWith(model.includes('key') || model === 'invoke--text' ? 'Bearer ' : 'AWS4-HMAC-SHA256 '),
      ).toBe(true);
    }
  });

  it('fails over from a channel whose secret Bedrock refuses, with a warning that names the fault and not the secret', async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({
      model: 'failover--text',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(answer.choices[0]?.message.content).toBe('Hello! How can I help you today?');
    await waitFor(() => gateway.outcomes.some((outcome) => outcome.model === 'failover--text'));
    const warning = logLines.find((line) => line.includes('"msg":"failover"') && line.includes('bad-secret'));
    expect(warning).toBeDefined();
    expect(warning).toContain('InvalidSignatureException');
    expect(warning).toContain('"next":"healthy"');
    expect(logLines.join('\n')).not.toContain(WRONG_SECRET);
    expect(logLines.join('\n')).not.toContain(BEDROCK_TEST_CREDENTIALS.secretAccessKey);
    expect(JSON.stringify(gateway.outcomes)).not.toContain(WRONG_SECRET);
  });
});

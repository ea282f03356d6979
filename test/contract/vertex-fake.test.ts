/**
 * The fake Vertex AI (test/support/vertex-upstream.ts), checked by the official clients:
 * `@google/genai` in Vertex mode (vertexai, project, location, httpOptions.baseUrl,
 * googleAuthOptions with the test service-account key) and `@anthropic-ai/vertex-sdk` (baseURL,
 * region, projectId, googleAuth). Both get their tokens from the fake's token endpoint through
 * google-auth-library's JWT client; that client posts grants to https://oauth2.googleapis.com/token
 * whatever the key's `token_uri` says, so its transporter is pointed at the fake, as the
 * gateway's credential does. A fake that drifts from what these clients send or read fails here.
 */
import AnthropicVertex from '@anthropic-ai/vertex-sdk';
import { GoogleGenAI } from '@google/genai';
import { gaxios, GoogleAuth } from 'google-auth-library';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../support/fixture-upstream.ts';
import {
  makeServiceAccountKey,
  startVertexFake,
  type ServiceAccountKey,
  type VertexFake,
} from '../support/vertex-upstream.ts';

const PROJECT = 'my-project';
const LOCATION = 'us-east5';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

let fake: VertexFake;
let key: ServiceAccountKey;

beforeAll(async () => {
  fake = await startVertexFake({ project: PROJECT, location: LOCATION });
  key = makeServiceAccountKey(fake.tokenUri);
  fake.register(key);
});
afterAll(async () => fake?.close());

/** A Gaxios that sends Google's token grants to the fake's token endpoint. */
function toFakeTokenEndpoint(): gaxios.Gaxios {
  const transporter = new gaxios.Gaxios();
  transporter.interceptors.request.add({
    resolved: (config) => {
      if (config.url.href === 'https://oauth2.googleapis.com/token') config.url = new URL(fake.tokenUri);
      return Promise.resolve(config);
    },
  });
  return transporter;
}

function authOptions(json = key.json) {
  return {
    credentials: JSON.parse(json) as Record<string, string>,
    scopes: [SCOPE],
    clientOptions: { transporter: toFakeTokenEndpoint() },
  };
}

function expected(protocol: 'gemini' | 'anthropic-messages', scenario: string): { text: string; toolCalls: unknown[] } {
  return JSON.parse(readFileSync(fixturePath(protocol, scenario, 'expect.json')!, 'utf8')) as {
    text: string;
    toolCalls: unknown[];
  };
}

describe('@google/genai in Vertex mode against the fake', () => {
  const client = (json?: string) =>
    new GoogleGenAI({
      vertexai: true,
      project: PROJECT,
      location: LOCATION,
      httpOptions: { baseUrl: fake.origin },
      googleAuthOptions: authOptions(json),
    });

  it('generateContent and generateContentStream replay the Gemini fixtures', async () => {
    const ai = client();
    const answer = await ai.models.generateContent({ model: 'text', contents: 'Hi' });
    expect(answer.text).toBe(expected('gemini', 'text').text);
    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'text', contents: 'Hi' }))
      streamed += chunk.text ?? '';
    expect(streamed).toBe(expected('gemini', 'text').text);
    const last = fake.requests.at(-1)!;
    expect(last.path).toBe(
      `/v1beta1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/text:streamGenerateContent?alt=sse`,
    );
    expect(last.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
  });

  it('a tool call comes back as a function call', async () => {
    const answer = await client().models.generateContent({
      model: 'tool-call',
      contents: 'Weather in Oslo?',
      config: {
        tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object' } }] }],
      },
    });
    expect(answer.functionCalls?.map((call) => call.name)).toEqual(
      expected('gemini', 'tool-call').toolCalls.map((call) => (call as { name: string }).name),
    );
  });

  it('a key the token endpoint does not know gets no answer from the models', async () => {
    const stranger = makeServiceAccountKey(fake.tokenUri, 'stranger@my-project.iam.gserviceaccount.com');
    await expect(client(stranger.json).models.generateContent({ model: 'text', contents: 'Hi' })).rejects.toThrow(
      /invalid_grant/,
    );
  });

  it('an unknown field is refused like the Gemini API refuses it', async () => {
    await expect(
      client().models.generateContent({
        model: 'text',
        contents: 'Hi',
        config: { httpOptions: { extraBody: { bogusField: 1 } } },
      }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

describe('@anthropic-ai/vertex-sdk against the fake', () => {
  const client = () =>
    new AnthropicVertex({
      baseURL: `${fake.origin}/v1`,
      region: LOCATION,
      projectId: PROJECT,
      googleAuth: new GoogleAuth(authOptions()),
      maxRetries: 0,
    });

  it('messages.create and messages.stream replay the Anthropic fixtures through rawPredict and streamRawPredict', async () => {
    const anthropic = client();
    const message = await anthropic.messages.create({
      model: 'text@20250929',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')).toBe(
      expected('anthropic-messages', 'text').text,
    );
    const streamed = await anthropic.messages
      .stream({ model: 'tool-call', max_tokens: 256, messages: [{ role: 'user', content: 'Weather?' }] })
      .finalMessage();
    expect(streamed.stop_reason).toBe('tool_use');
    const last = fake.requests.at(-1)!;
    expect(last.path).toBe(
      `/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/anthropic/models/tool-call:streamRawPredict`,
    );
    const body = JSON.parse(last.body) as Record<string, unknown>;
    expect(body.model).toBeUndefined();
    expect(typeof body.anthropic_version).toBe('string');
  });

  it('countTokens goes to count-tokens:rawPredict', async () => {
    const counted = await client().messages.countTokens({ model: 'text', messages: [{ role: 'user', content: 'Hi' }] });
    expect(counted.input_tokens).toBe(11);
  });
});

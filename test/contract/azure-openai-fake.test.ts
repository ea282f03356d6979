/**
 * The fake Azure OpenAI resource and Entra ID tenant (test/support/azure-openai-upstream.ts),
 * checked by the official clients: the `openai` package's AzureOpenAI client (endpoint, apiKey,
 * apiVersion, deployment) on the dated surface, the plain OpenAI client on the v1 surface, and
 * `@azure/identity`'s ClientSecretCredential with a bearer token provider against the tenant. A
 * fake that drifts from what these clients send or read fails here.
 */
import { readFileSync } from 'node:fs';
import { ClientSecretCredential, getBearerTokenProvider } from '@azure/identity';
import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../support/fixture-upstream.ts';
import { startAzureOpenAiFake, type AzureOpenAiFake } from '../support/azure-openai-upstream.ts';

const SECRETS = { apiKey: 'azure-resource-key-1', clientSecret: 'entra-client-secret-1' };
const TENANT = '72f988bf-0000-4000-8000-00000000000a';
const CLIENT = 'c0ffee00-0000-4000-8000-00000000000b';

let fake: AzureOpenAiFake;

beforeAll(async () => {
  fake = await startAzureOpenAiFake({ ...SECRETS, tenantId: TENANT, clientId: CLIENT });
});
afterAll(async () => fake?.close());

function expectedText(protocol: 'openai-chat' | 'openai-responses', scenario: string): string {
  return (JSON.parse(readFileSync(fixturePath(protocol, scenario, 'expect.json')!, 'utf8')) as { text: string }).text;
}

function credential(secret = SECRETS.clientSecret): ClientSecretCredential {
  return new ClientSecretCredential(TENANT, CLIENT, secret, {
    authorityHost: fake.authorityHost,
    disableInstanceDiscovery: true,
    tlsOptions: { ca: fake.ca },
  });
}

describe('AzureOpenAI client (dated surface) against the fake', () => {
  it('Chat Completions with an api-key, streamed and not', async () => {
    const client = new AzureOpenAI({
      endpoint: fake.endpoint,
      apiKey: SECRETS.apiKey,
      apiVersion: '2024-10-21',
      deployment: 'text',
      maxRetries: 0,
    });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe(expectedText('openai-chat', 'text'));
    const streamed = await client.chat.completions
      .stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(streamed.choices[0]?.message.content).toBe(expectedText('openai-chat', 'text'));
    expect(fake.requests.at(-1)?.path).toBe('/openai/deployments/text/chat/completions?api-version=2024-10-21');
    expect(fake.requests.at(-1)?.headers['api-key']).toBe(SECRETS.apiKey);
  });

  it('Responses with an Entra ID token from the fake tenant', async () => {
    const client = new AzureOpenAI({
      endpoint: fake.endpoint,
      azureADTokenProvider: getBearerTokenProvider(credential(), 'https://cognitiveservices.azure.com/.default'),
      apiVersion: '2025-04-01-preview',
      maxRetries: 0,
    });
    const response = await client.responses.create({ model: 'text', input: 'Hi' });
    expect(response.output_text).toBe(expectedText('openai-responses', 'text'));
    expect(fake.requests.at(-1)?.path).toBe('/openai/responses?api-version=2025-04-01-preview');
    expect(fake.requests.at(-1)?.headers.authorization).toMatch(/^Bearer fake-entra-/);
  });

  it('refuses an unknown api-version, a wrong key and a missing deployment in Azure words', async () => {
    const client = (apiVersion: string, apiKey = SECRETS.apiKey, deployment = 'text') =>
      new AzureOpenAI({ endpoint: fake.endpoint, apiKey, apiVersion, deployment, maxRetries: 0 });
    const ask = (c: AzureOpenAI) =>
      c.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'Hi' }] });
    await expect(ask(client('2099-01-01'))).rejects.toMatchObject({
      status: 400,
      message: /API version not supported/,
    });
    await expect(ask(client('2024-10-21', 'wrong-key'))).rejects.toMatchObject({ status: 401 });
    await expect(ask(client('2024-10-21', SECRETS.apiKey, 'nope'))).rejects.toMatchObject({
      status: 404,
      code: 'DeploymentNotFound',
    });
    await expect(ask(client('2024-10-21', SECRETS.apiKey, 'content-filter'))).rejects.toMatchObject({
      status: 400,
      code: 'content_filter',
    });
  });

  it('the tenant refuses a wrong client secret as Entra does', async () => {
    await expect(credential('wrong-secret').getToken('https://cognitiveservices.azure.com/.default')).rejects.toThrow(
      /AADSTS7000215/,
    );
  });
});

describe('OpenAI client (v1 surface) against the fake', () => {
  it('Chat Completions and Responses with the key as a bearer token, the deployment as model', async () => {
    const client = new OpenAI({ baseURL: `${fake.endpoint}/openai/v1/`, apiKey: SECRETS.apiKey, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'tool-call',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    const response = await client.responses.stream({ model: 'reasoning', input: 'Think' }).finalResponse();
    expect(response.output_text).toBe(expectedText('openai-responses', 'reasoning'));
    expect(fake.requests.at(-1)?.path).toBe('/openai/v1/responses');
  });

  it('refuses a request field the API does not know', async () => {
    const client = new OpenAI({ baseURL: `${fake.endpoint}/openai/v1/`, apiKey: SECRETS.apiKey, maxRetries: 0 });
    await expect(
      client.chat.completions.create({
        model: 'text',
        messages: [{ role: 'user', content: 'Hi' }],
        // @ts-expect-error a field no OpenAI or Azure API defines
        bogus_field: 1,
      }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

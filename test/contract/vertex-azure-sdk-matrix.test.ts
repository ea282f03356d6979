/**
 * Contract: the official JS SDKs of every client format (openai Chat and Responses,
 * @anthropic-ai/sdk, @google/genai) reach models on Azure OpenAI and Google Vertex AI channels
 * through the gateway, each cloud played by its fake (test/support/azure-openai-upstream.ts,
 * test/support/vertex-upstream.ts, both checked by the clouds' own SDKs in azure-openai-fake.test.ts
 * and vertex-fake.test.ts): Azure's v1 Chat surface with an api-key, its dated Chat surface and its
 * Responses with Microsoft Entra ID tokens, Vertex Gemini and Vertex Claude with service-account
 * tokens. Text, tool calls and reasoning, streamed and not, must arrive as the fixtures' expectation
 * files say, and a tool round trip must come back with the model's answer. A channel whose
 * credential is refused (by the token endpoint, or by the model endpoint with a 401) fails over to
 * the next with a warning log line, and no secret reaches the logs or the client.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIRE_FORMATS, type ClientFormat, type WireFormat } from '../../gateway/canonical/formats.ts';
import { azureEntraIdCredentials } from '../../gateway/upstream/cloud-credentials/azure-entra-credential.ts';
import { startAzureOpenAiFake, type AzureOpenAiFake } from '../support/azure-openai-upstream.ts';
import { fixturePath } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';
import {
  makeServiceAccountKey,
  startVertexFake,
  type ServiceAccountKey,
  type VertexFake,
} from '../support/vertex-upstream.ts';
import { callWithSdk, expectedFinish } from './sdk-clients.ts';
import { toolRoundTrip } from './sdk-tool-round-trip.ts';

const SCENARIOS = ['text', 'tool-call', 'reasoning'] as const;
const AZURE = {
  apiKey: 'azure-resource-key-s3cr3t',
  tenantId: '72f988bf-0000-4000-8000-00000000000a',
  clientId: 'c0ffee00-0000-4000-8000-00000000000b',
  clientSecret: 'entra-client-s3cr3t',
};
const VERTEX = { project: 'my-project', location: 'us-east5' };

/** The surfaces under test: the channel id, and the protocol whose fixtures the fake replays. */
const SURFACES: ReadonlyArray<{ readonly id: string; readonly protocol: WireFormat }> = [
  { id: 'azure-v1-chat', protocol: 'openai-chat' },
  { id: 'azure-deployments-chat', protocol: 'openai-chat' },
  { id: 'azure-responses', protocol: 'openai-responses' },
  { id: 'vertex-gemini', protocol: 'gemini' },
  { id: 'vertex-claude', protocol: 'anthropic-messages' },
];

interface Expectation {
  text: string;
  reasoning: string;
  toolCalls: Array<{ name: string; arguments: unknown }>;
  finish: string;
  usage: { inputTotal: number; outputTotal: number };
}

function expectation(protocol: WireFormat, scenario: string): Expectation {
  return JSON.parse(readFileSync(fixturePath(protocol, scenario, 'expect.json')!, 'utf8')) as Expectation;
}

const modelMap = (surface: string, extra: Record<string, string> = {}) => ({
  ...Object.fromEntries(SCENARIOS.map((s) => [`${surface}--${s}`, s])),
  ...extra,
});

let azure: AzureOpenAiFake;
let vertex: VertexFake;
let serviceAccount: ServiceAccountKey;
let unknownAccount: ServiceAccountKey;
let gateway: TestGateway;
const logLines: string[] = [];

beforeAll(async () => {
  azure = await startAzureOpenAiFake(AZURE);
  vertex = await startVertexFake(VERTEX);
  serviceAccount = makeServiceAccountKey(vertex.tokenUri);
  unknownAccount = makeServiceAccountKey(vertex.tokenUri, 'revoked@my-project.iam.gserviceaccount.com');
  vertex.register(serviceAccount);
  const entra = { auth: 'entra-id', tenantId: AZURE.tenantId, clientId: AZURE.clientId };
  const vertexChannel = (id: string, protocol: WireFormat, apiKey: string, extra: Record<string, unknown>) => ({
    id,
    provider: 'vertex',
    protocol,
    baseUrl: vertex.origin,
    apiKey,
    cloud: { region: VERTEX.location, project: VERTEX.project },
    ...extra,
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  gateway = await startTestGateway(
    {
      channels: [
        {
          id: 'azure-v1-chat',
          provider: 'azure',
          protocol: 'openai-chat',
          baseUrl: `${azure.endpoint}/openai/v1`,
          apiKey: AZURE.apiKey,
          modelMap: modelMap('azure-v1-chat', { 'azure-filtered': 'filtered', 'azure-refused': 'content-filter' }),
        },
        {
          id: 'azure-deployments-chat',
          provider: 'azure',
          protocol: 'openai-chat',
          baseUrl: azure.endpoint,
          apiKey: AZURE.clientSecret,
          cloud: { ...entra, apiVersion: '2024-10-21' },
          modelMap: modelMap('azure-deployments-chat'),
        },
        {
          id: 'azure-responses',
          provider: 'azure',
          protocol: 'openai-responses',
          baseUrl: azure.endpoint,
          apiKey: AZURE.clientSecret,
          cloud: { ...entra, apiVersion: '2025-04-01-preview' },
          modelMap: modelMap('azure-responses'),
        },
        vertexChannel('vertex-gemini', 'gemini', serviceAccount.json, {
          modelMap: modelMap('vertex-gemini', { 'failover-expired': 'text' }),
        }),
        vertexChannel('vertex-claude', 'anthropic-messages', serviceAccount.json, {
          modelMap: modelMap('vertex-claude', { 'failover-token': 'text', 'failover-azure-key': 'text' }),
        }),
        // Higher tiers whose credentials are refused: by the token endpoint, by Vertex (401), by Azure (401).
        vertexChannel('vertex-revoked-key', 'anthropic-messages', unknownAccount.json, {
          priority: 1,
          modelMap: { 'failover-token': 'text' },
        }),
        vertexChannel('vertex-expired-token', 'gemini', serviceAccount.json, {
          priority: 1,
          modelMap: { 'failover-expired': 'unauthenticated' },
        }),
        {
          id: 'azure-wrong-key',
          provider: 'azure',
          protocol: 'openai-chat',
          baseUrl: azure.endpoint,
          apiKey: 'azure-wrong-key-s3cr3t',
          priority: 1,
          modelMap: { 'failover-azure-key': 'text' },
        },
      ],
    },
    {
      logger: pino({ level: 'info' }, sink),
      cloudCredentialFactories: {
        'azure/entra-id': azureEntraIdCredentials({ authorityHost: azure.authorityHost, trustedCa: azure.ca }),
      },
    },
  );
});

afterAll(async () => {
  await gateway?.close();
  await azure?.close();
  await vertex?.close();
});

describe.each(WIRE_FORMATS)('client %s', (client: ClientFormat) => {
  describe.each(SURFACES)('→ $id', ({ id, protocol }) => {
    for (const scenario of SCENARIOS) {
      for (const stream of [false, true]) {
        it(`${scenario}, ${stream ? 'streamed' : 'not streamed'}`, async () => {
          const expected = expectation(protocol, scenario);
          const result = await callWithSdk(client, gateway.origin, TEST_KEY, `${id}--${scenario}`, {
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

    it('a tool round trip comes back with the answer', async () => {
      const trip = await toolRoundTrip(client, gateway.origin, TEST_KEY, `${id}--tool-call`, `${id}--text`);
      expect(trip.calledTool).toBe('get_weather');
      expect(trip.finalText).toBe(expectation(protocol, 'text').text);
    });
  });
});

describe('what reached the clouds', () => {
  it('Azure got api-key on the v1 surface and Entra ID bearer tokens on the dated one', () => {
    const v1 = azure.requests.find((r) => r.path === '/openai/v1/chat/completions');
    expect(v1?.headers['api-key']).toBe(AZURE.apiKey);
    const dated = azure.requests.find((r) => r.path.startsWith('/openai/deployments/text/chat/completions'));
    expect(dated?.path).toBe('/openai/deployments/text/chat/completions?api-version=2024-10-21');
    expect(dated?.headers.authorization).toMatch(/^Bearer fake-entra-/);
    expect(dated?.headers['api-key']).toBeUndefined();
    // One token for both Entra channels' many calls... per channel (each channel keeps its own client).
    expect(azure.tokenRequests.length).toBeLessThanOrEqual(2);
  });

  it('Vertex got bearer tokens from the service account and Claude bodies without model', () => {
    const claude = vertex.requests.find((r) => r.path.includes('/publishers/anthropic/models/text:rawPredict'));
    expect(claude?.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    const body = JSON.parse(claude!.body) as Record<string, unknown>;
    expect(body.model).toBeUndefined();
    expect(body.anthropic_version).toBe('vertex-2023-10-16');
  });
});

describe('Azure content filter', () => {
  it("a filtered completion arrives with the client's content-filter stop reason", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'azure-filtered',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.finish_reason).toBe('content_filter');
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const message = await anthropic.messages
      .stream({ model: 'azure-filtered', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();
    expect(message.stop_reason).toBe('refusal');
  });

  it("a refused prompt is the client's 400 content-policy error, in each client's shape", async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    await expect(
      openai.chat.completions.create({ model: 'azure-refused', messages: [{ role: 'user', content: 'Hi' }] }),
    ).rejects.toMatchObject({ status: 400, code: 'content_filter' });
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    await expect(
      anthropic.messages.create({
        model: 'azure-refused',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toMatchObject({ status: 400, error: { error: { type: 'invalid_request_error' } } });
  });
});

describe('refused credentials fail over', () => {
  it.each<[string, string, string, WireFormat, RegExp]>([
    [
      'failover-token',
      'vertex-revoked-key',
      'vertex-claude',
      'anthropic-messages',
      /could not obtain a service-account credential/,
    ],
    [
      'failover-expired',
      'vertex-expired-token',
      'vertex-gemini',
      'gemini',
      /Vertex AI refused the channel's credentials/,
    ],
    [
      'failover-azure-key',
      'azure-wrong-key',
      'vertex-claude',
      'anthropic-messages',
      /Azure OpenAI refused the channel's credentials/,
    ],
  ])('%s: %s fails over to %s with a clear warning', async (model, bad, good, goodProtocol, reason) => {
    const before = logLines.length;
    const result = await callWithSdk('anthropic-messages', gateway.origin, TEST_KEY, model, {
      stream: false,
      withTools: false,
    });
    expect(result.text).toBe(expectation(goodProtocol, 'text').text);
    const failover = logLines
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'failover');
    expect(failover).toMatchObject({ channel: bad, next: good, level: 40 });
    expect(String(failover?.reason)).toMatch(reason);
  });

  it('a request no channel can serve gets a clear 502 without secrets, and no log line holds a secret', async () => {
    const gatewayOnly = await startTestGateway({
      channels: [
        {
          id: 'only-revoked',
          provider: 'vertex',
          protocol: 'gemini',
          baseUrl: vertex.origin,
          apiKey: unknownAccount.json,
          cloud: { region: VERTEX.location, project: VERTEX.project },
          models: ['lonely'],
        },
      ],
    });
    try {
      const lonely = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gatewayOnly.origin}/v1`, maxRetries: 0 });
      const failure = (await lonely.chat.completions
        .create({ model: 'lonely', messages: [{ role: 'user', content: 'Hi' }] })
        .then(
          () => ({ status: 200, message: '' }),
          (e: unknown) => e,
        )) as { status: number; message: string };
      expect(failure.status).toBe(502);
      expect(failure.message).toMatch(/Channel only-revoked: could not obtain a service-account credential/);
      expect(failure.message).not.toMatch(/PRIVATE KEY|s3cr3t/);
    } finally {
      await gatewayOnly.close();
    }
    const secrets = [
      AZURE.apiKey,
      AZURE.clientSecret,
      'azure-wrong-key-s3cr3t',
      'PRIVATE KEY',
      'ya29.fake-',
      'fake-entra-',
    ];
    for (const line of logLines) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});

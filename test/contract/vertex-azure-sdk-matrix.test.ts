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
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIRE_FORMATS, type ClientFormat, type WireFormat } from '../../gateway/canonical/formats.ts';
import {
  AZURE_SECRETS,
  CLOUD_SCENARIOS,
  CLOUD_SURFACES_UNDER_TEST,
  startCloudSurfaces,
  VERTEX_PROJECT,
  type CloudSurfaces,
} from '../support/cloud-surfaces.ts';
import { fixturePath } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY } from '../support/start-gateway.ts';
import { callWithSdk, expectedFinish } from './sdk-clients.ts';
import { toolRoundTrip } from './sdk-tool-round-trip.ts';

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

let clouds: CloudSurfaces;

beforeAll(async () => {
  clouds = await startCloudSurfaces();
});

afterAll(async () => clouds?.close());

describe.each(WIRE_FORMATS)('client %s', (client: ClientFormat) => {
  describe.each(CLOUD_SURFACES_UNDER_TEST)('→ $id', ({ id, protocol }) => {
    for (const scenario of CLOUD_SCENARIOS) {
      for (const stream of [false, true]) {
        it(`${scenario}, ${stream ? 'streamed' : 'not streamed'}`, async () => {
          const expected = expectation(protocol, scenario);
          const result = await callWithSdk(client, clouds.gateway.origin, TEST_KEY, `${id}--${scenario}`, {
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
      const trip = await toolRoundTrip(client, clouds.gateway.origin, TEST_KEY, `${id}--tool-call`, `${id}--text`);
      expect(trip.calledTool).toBe('get_weather');
      expect(trip.finalText).toBe(expectation(protocol, 'text').text);
    });
  });
});

describe('what reached the clouds', () => {
  it('Azure got api-key on the v1 surface and Entra ID bearer tokens on the dated one', () => {
    const v1 = clouds.azure.requests.find((r) => r.path === '/openai/v1/chat/completions');
    expect(v1?.headers['api-key']).toBe(AZURE_SECRETS.apiKey);
    const dated = clouds.azure.requests.find((r) => r.path.startsWith('/openai/deployments/text/chat/completions'));
    expect(dated?.path).toBe('/openai/deployments/text/chat/completions?api-version=2024-10-21');
    expect(dated?.headers.authorization).toMatch(/^Bearer fake-entra-/);
    expect(dated?.headers['api-key']).toBeUndefined();
    // One token for both Entra channels' many calls... per channel (each channel keeps its own client).
    expect(clouds.azure.tokenRequests.length).toBeLessThanOrEqual(2);
  });

  it('Vertex got bearer tokens from the service account and Claude bodies without model', () => {
    const claude = clouds.vertex.requests.find((r) => r.path.includes('/publishers/anthropic/models/text:rawPredict'));
    expect(claude?.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    const body = JSON.parse(claude!.body) as Record<string, unknown>;
    expect(body.model).toBeUndefined();
    expect(body.anthropic_version).toBe('vertex-2023-10-16');
  });
});

describe('Azure content filter', () => {
  it("a filtered completion arrives with the client's content-filter stop reason", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${clouds.gateway.origin}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'azure-filtered',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.finish_reason).toBe('content_filter');
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: clouds.gateway.origin, maxRetries: 0 });
    const message = await anthropic.messages
      .stream({ model: 'azure-filtered', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();
    expect(message.stop_reason).toBe('refusal');
  });

  it("a refused prompt is the client's 400 content-policy error, in each client's shape", async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${clouds.gateway.origin}/v1`, maxRetries: 0 });
    await expect(
      openai.chat.completions.create({ model: 'azure-refused', messages: [{ role: 'user', content: 'Hi' }] }),
    ).rejects.toMatchObject({ status: 400, code: 'content_filter' });
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: clouds.gateway.origin, maxRetries: 0 });
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
    const before = clouds.logLines.length;
    const result = await callWithSdk('anthropic-messages', clouds.gateway.origin, TEST_KEY, model, {
      stream: false,
      withTools: false,
    });
    expect(result.text).toBe(expectation(goodProtocol, 'text').text);
    const failover = clouds.logLines
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
          baseUrl: clouds.vertex.origin,
          apiKey: clouds.unknownAccount.json,
          cloud: { region: VERTEX_PROJECT.location, project: VERTEX_PROJECT.project },
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
      AZURE_SECRETS.apiKey,
      AZURE_SECRETS.clientSecret,
      AZURE_SECRETS.wrongApiKey,
      'PRIVATE KEY',
      'ya29.fake-',
      'fake-entra-',
    ];
    for (const line of clouds.logLines) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});

/**
 * Through the real `POST /v1/responses` route: a Codex request (tools only in an
 * `additional_tools` input item, namespaced and custom tools) reaches an OpenAI Chat upstream
 * with all its tools.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureUpstream, type FixtureUpstream } from '../../../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../../support/start-gateway.ts';
import { codexBody } from './codex-tools-fixture.ts';

let upstream: FixtureUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  gateway = await startTestGateway({
    channels: [
      {
        id: 'fake',
        provider: 'deepseek',
        protocol: 'openai-chat',
        baseUrl: upstream.baseUrl('openai-chat'),
        apiKey: 'k',
        modelMap: { 'gw-model': 'text' },
      },
    ],
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function post(body: unknown): Promise<{ status: number; body: any }> {
  const response = await request(`${gateway.origin}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, body: await response.body.json() };
}

describe('POST /v1/responses with Codex tool kinds', () => {
  it('sends every Codex tool upstream', async () => {
    const before = upstream.requests.length;
    const answer = await post(codexBody({ stream: false }));
    expect(answer.status).toBe(200);
    const sent = JSON.parse(upstream.requests.at(-1)?.body ?? '{}');
    expect(upstream.requests.length).toBe(before + 1);
    expect(sent.tools.map((t: any) => t.function.name)).toEqual(['exec', 'wait', 'collaboration__spawn_agent']);
  });
});

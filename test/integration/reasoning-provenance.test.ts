/**
 * Replayed reasoning goes back only to the provider that minted it: a signature from Anthropic
 * never reaches OpenAI or Gemini (which reject it with a 400), while the same provider gets it
 * back exactly as it issued it — through the real routes, with recorded upstream answers.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFormat as UpstreamProtocol } from '../../gateway/canonical/formats.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';

let upstream: FixtureUpstream;
let gateway: TestGateway;

const PROVIDERS: Record<UpstreamProtocol, string> = {
  'openai-chat': 'deepseek',
  'openai-responses': 'openai',
  'anthropic-messages': 'anthropic',
  gemini: 'gemini',
};

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  const channels = (['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'] as const).map((protocol) => ({
    id: protocol,
    provider: PROVIDERS[protocol],
    protocol,
    baseUrl: upstream.baseUrl(protocol),
    apiKey: 'k',
    modelMap: { [`via-${protocol}`]: 'reasoning' },
  }));
  gateway = await startTestGateway({ channels });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function post(
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const response = await request(`${gateway.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, body: await response.body.json() };
}

const anthropicHeaders = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };
const geminiHeaders = { 'x-goog-api-key': TEST_KEY };
const ANTHROPIC_SIGNATURE = 'ErUvImZaYMEtKJGF2VDuiBNgkWb2sRPReNbA';

function lastUpstreamBody(): string {
  return upstream.requests.at(-1)?.body ?? '';
}

describe('reasoning stays with its provider', () => {
  it('an Anthropic signature replayed by an Anthropic client never reaches an OpenAI or Gemini upstream', async () => {
    const messages = [
      { role: 'user', content: 'Think, then answer.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Considering.', signature: ANTHROPIC_SIGNATURE },
          { type: 'text', text: 'Done.' },
        ],
      },
      { role: 'user', content: 'And again?' },
    ];
    for (const protocol of ['openai-responses', 'gemini', 'openai-chat'] as const) {
      const answer = await post('/v1/messages', anthropicHeaders, {
        model: `via-${protocol}`,
        max_tokens: 200,
        messages,
      });
      expect(answer.status, protocol).toBe(200);
      expect(upstream.requests.at(-1)?.protocol).toBe(protocol);
      expect(lastUpstreamBody(), protocol).not.toContain(ANTHROPIC_SIGNATURE);
    }
    // To Anthropic itself the client's body passes through unchanged, signature included.
    await post('/v1/messages', anthropicHeaders, { model: 'via-anthropic-messages', max_tokens: 200, messages });
    expect(lastUpstreamBody()).toContain(ANTHROPIC_SIGNATURE);
  });

  it('a signature handed to a Gemini client by an Anthropic upstream goes back to Anthropic only, as Anthropic issued it', async () => {
    const first = await post('/v1beta/models/via-anthropic-messages:generateContent', geminiHeaders, {
      contents: [{ role: 'user', parts: [{ text: 'Think.' }] }],
    });
    expect(first.status).toBe(200);
    const modelTurn = first.body.candidates[0].content;
    const signed = modelTurn.parts.find((part: { thoughtSignature?: string }) => part.thoughtSignature);
    expect(signed).toBeDefined();
    // The client sees an opaque value, not the provider's own signature.
    const clientSignature: string = signed.thoughtSignature;
    expect(Buffer.from(clientSignature, 'base64').toString('base64')).toBe(clientSignature);
    const replay = {
      contents: [
        { role: 'user', parts: [{ text: 'Think.' }] },
        modelTurn,
        { role: 'user', parts: [{ text: 'More.' }] },
      ],
    };

    await post('/v1beta/models/via-anthropic-messages:generateContent', geminiHeaders, replay);
    const toAnthropic = JSON.parse(lastUpstreamBody());
    const thinking = toAnthropic.messages[1].content.find((block: { type: string }) => block.type === 'thinking');
    expect(thinking.signature).toMatch(/^Er/);
    expect(thinking.signature).not.toBe(signed.thoughtSignature);

    // To a Gemini channel the same Gemini-format body is not passed through: the Anthropic signature is left out.
    await post('/v1beta/models/via-gemini:generateContent', geminiHeaders, replay);
    expect(upstream.requests.at(-1)?.protocol).toBe('gemini');
    expect(lastUpstreamBody()).not.toContain(signed.thoughtSignature);
    expect(lastUpstreamBody()).not.toContain(thinking.signature);
  });
});

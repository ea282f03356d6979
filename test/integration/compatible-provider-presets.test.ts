/**
 * The OpenAI- and Anthropic-compatible presets (gateway/providers/presets.ts) on the wire: the
 * official `openai` SDK sends a chat request through a channel of each preset, its base URL
 * pointed at a fake upstream, and the fake checks the path, the credential header (none for the
 * keyless local servers), the preset's quirks (fields dropped, the output cap's field) and a
 * channel's extra headers (OpenRouter's attribution headers).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getProviderPreset } from '../../gateway/providers/presets.ts';
import type { ProviderId } from '../../gateway/providers/provider-preset.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';

/** Presets whose default protocol is Chat Completions and that need a key. */
const KEYED: ProviderId[] = [
  'openai-compatible',
  'openrouter',
  'groq',
  'mistral',
  'xai',
  'together',
  'fireworks',
  'volcengine-ark',
  'siliconflow',
];
/** Local servers: no key. */
const KEYLESS: ProviderId[] = ['ollama', 'vllm', 'lmstudio'];

/** OpenRouter's app attribution headers, set on its channel. */
const OPENROUTER_ATTRIBUTION = { 'HTTP-Referer': 'https://tollgate.example.org', 'X-Title': 'Tollgate test' };

let upstream: FixtureUpstream;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  const chatChannel = (provider: ProviderId, keyed: boolean) => ({
    id: provider,
    provider,
    protocol: 'openai-chat',
    baseUrl: upstream.baseUrl('openai-chat'),
    ...(keyed ? { apiKey: `key-${provider}` } : {}),
    modelMap: { [`via-${provider}`]: 'text' },
    // https://openrouter.ai/docs/app-attribution
    ...(provider === 'openrouter' ? { headers: OPENROUTER_ATTRIBUTION } : {}),
  });
  gateway = await startTestGateway({
    channels: [
      ...KEYED.map((provider) => chatChannel(provider, true)),
      ...KEYLESS.map((provider) => chatChannel(provider, false)),
      {
        id: 'anthropic-compatible',
        provider: 'anthropic-compatible',
        baseUrl: upstream.baseUrl('anthropic-messages'),
        apiKey: 'key-anthropic-compatible',
        modelMap: { 'via-anthropic-compatible': 'text' },
      },
    ],
  });
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Sends one chat request for `model` and returns what the fake upstream received. */
async function sendThrough(model: string) {
  const before = upstream.requests.length;
  const answer = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'Say hello' }],
    max_completion_tokens: 64,
    store: false,
  });
  expect(answer.choices[0]?.message.content).toBeTruthy();
  expect(upstream.requests.length).toBe(before + 1);
  const request = upstream.requests[before]!;
  return { ...request, json: JSON.parse(request.body) as Record<string, unknown> };
}

describe('compatible provider presets through the openai SDK', () => {
  it.each(KEYED)('%s: Bearer key, output cap field and dropped fields per its preset', async (provider) => {
    const seen = await sendThrough(`via-${provider}`);
    const quirks = getProviderPreset(provider).quirks;
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.headers.authorization).toBe(`Bearer key-${provider}`);
    const capField = quirks.maxTokensField ?? 'max_tokens';
    expect(seen.json[capField]).toBe(64);
    if (capField === 'max_tokens') expect(seen.json).not.toHaveProperty('max_completion_tokens');
    if (quirks.dropFields?.includes('store')) expect(seen.json).not.toHaveProperty('store');
  });

  it.each(KEYLESS)('%s: no credential header, max_tokens, no store', async (provider) => {
    const seen = await sendThrough(`via-${provider}`);
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(seen.json.max_tokens).toBe(64);
    expect(seen.json).not.toHaveProperty('max_completion_tokens');
    expect(seen.json).not.toHaveProperty('store');
  });

  it("a channel's extra headers reach its upstream (OpenRouter attribution), and only that channel's", async () => {
    const seen = await sendThrough('via-openrouter');
    expect(seen.headers['http-referer']).toBe(OPENROUTER_ATTRIBUTION['HTTP-Referer']);
    expect(seen.headers['x-title']).toBe(OPENROUTER_ATTRIBUTION['X-Title']);
    expect(seen.headers.authorization).toBe('Bearer key-openrouter');
    const other = await sendThrough('via-groq');
    expect(other.headers['http-referer']).toBeUndefined();
    expect(other.headers['x-title']).toBeUndefined();
  });

  it('anthropic-compatible: Messages at the channel base URL with both key headers', async () => {
    const seen = await sendThrough('via-anthropic-compatible');
    expect(seen.path).toBe('/v1/messages');
    expect(seen.headers.authorization).toBe('Bearer key-anthropic-compatible');
    expect(seen.headers['x-api-key']).toBe('key-anthropic-compatible');
    expect(seen.json.max_tokens).toBe(64);
  });
});

/**
 * Usage is recorded for every outcome: an upstream silent on usage is estimated with the local
 * tokenizer (source `estimated`), a provider's explicit zero stays zero (source `reported`).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTextTokens } from '../../gateway/tokenize/estimate-tokens.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

let upstream: FixtureUpstream;
let gateway: TestGateway;
const ANSWER = 'Hello! How can I help you today?';

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
        modelMap: { silent: 'no-usage', free: 'zero-usage' },
      },
    ],
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function outcomeOf(model: string, stream: boolean) {
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
  const before = gateway.outcomes.length;
  const text = stream
    ? (
        await client.chat.completions
          .stream({ model, messages: [{ role: 'user', content: 'Say hello to me' }] })
          .finalChatCompletion()
      ).choices[0]?.message.content
    : (await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello to me' }] }))
        .choices[0]?.message.content;
  expect(text).toBe(ANSWER);
  await waitFor(() => gateway.outcomes.length > before);
  return gateway.outcomes[gateway.outcomes.length - 1];
}

describe('usage sources', () => {
  it.each([false, true])('an upstream silent on usage is estimated (stream: %s)', async (stream) => {
    const outcome = await outcomeOf('silent', stream);
    expect(outcome?.usage?.source).toBe('estimated');
    expect(outcome?.usage?.output.total).toBe(countTextTokens(ANSWER));
    expect(outcome?.usage?.input.total).toBeGreaterThan(countTextTokens('Say hello to me'));
  });

  it("keeps a provider's explicit zero as zero", async () => {
    const outcome = await outcomeOf('free', false);
    expect(outcome?.usage).toEqual({
      input: { total: 0, cacheRead: 0, cacheWrite: 0 },
      output: { total: 0, reasoning: 0 },
      source: 'reported',
    });
  });
});

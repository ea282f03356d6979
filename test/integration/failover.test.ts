/**
 * Failover: a retryable failure before the first byte moves to the next channel
 * serving the model — the rest of the tier, then lower tiers; a non-retryable one does not; after
 * the first byte, the stream ends with the format's own error event.
 */
import { createServer } from 'node:net';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureUpstream, type FixtureUpstream } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

/** A loopback port with nothing listening (connections are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let upstream: FixtureUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  const refused = `http://127.0.0.1:${await closedPort()}/v1`;
  const chat = (
    id: string,
    priority: number,
    modelMap: Record<string, string>,
    baseUrl = upstream.baseUrl('openai-chat'),
  ) => ({ id, provider: 'deepseek', protocol: 'openai-chat', baseUrl, apiKey: 'k', priority, modelMap });
  gateway = await startTestGateway({
    channels: [
      // model "after-500": the primary tier answers 500, the backup tier serves.
      chat('primary-500', 10, { 'after-500': 'fail-500' }),
      chat('backup-ok', 0, { 'after-500': 'text', 'after-refused': 'text', 'after-429': 'text' }),
      // model "after-refused": the primary refuses connections.
      chat('primary-refused', 10, { 'after-refused': 'text' }, refused),
      // model "after-429": primary rate-limited upstream.
      chat('primary-429', 10, { 'after-429': 'fail-429' }),
      // model "bad-request": a 400 from upstream is the request's fault: no failover.
      chat('primary-400', 10, { 'bad-request': 'fail-400' }),
      chat('backup-400', 0, { 'bad-request': 'text' }),
      // model "all-down": every channel fails.
      chat('down-1', 0, { 'all-down': 'fail-503' }),
      chat('down-2', 0, { 'all-down': 'fail-502' }),
      // Anthropic stream cut mid-way (after the first byte).
      {
        id: 'truncated',
        provider: 'anthropic',
        protocol: 'anthropic-messages',
        baseUrl: upstream.baseUrl('anthropic-messages'),
        apiKey: 'k',
        modelMap: { truncated: 'truncated' },
      },
    ],
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const openai = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });

describe('failover before the first byte', () => {
  it.each([
    ['after-500', 'primary-500', 'upstream-unavailable', 500],
    ['after-refused', 'primary-refused', 'upstream-unavailable', undefined],
    ['after-429', 'primary-429', 'upstream-rate-limited', 429],
  ])('%s: %s fails, backup-ok serves', async (model, failedChannel, errorKind, upstreamStatus) => {
    for (const stream of [false, true]) {
      const before = gateway.outcomes.length;
      const text = stream
        ? (
            await openai()
              .chat.completions.stream({ model, messages: [{ role: 'user', content: 'hi' }] })
              .finalChatCompletion()
          ).choices[0]?.message.content
        : (await openai().chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })).choices[0]
            ?.message.content;
      expect(text).toBe('Hello! How can I help you today?');
      await waitFor(() => gateway.outcomes.length > before);
      const outcome = gateway.outcomes[gateway.outcomes.length - 1];
      expect(outcome).toMatchObject({ status: 'completed', channelId: 'backup-ok', attempts: 2 });
      expect(outcome?.failovers).toEqual([
        {
          channelId: failedChannel,
          errorKind,
          latencyMs: expect.any(Number),
          nextChannelId: 'backup-ok',
          ...(upstreamStatus ? { upstreamStatus } : {}),
        },
      ]);
    }
  });

  it('does not fail over on a 400 from upstream: the client gets the 400', async () => {
    const error = await openai()
      .chat.completions.create({ model: 'bad-request', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('fake upstream failure 400');
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'bad-request'));
    expect(gateway.outcomes.find((o) => o.model === 'bad-request')).toMatchObject({
      status: 'failed',
      channelId: 'primary-400',
      attempts: 1,
      errorKind: 'upstream-rejected',
    });
  });

  it('answers the last error when every channel fails', async () => {
    const error = await openai()
      .chat.completions.create({ model: 'all-down', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'all-down'));
    expect(gateway.outcomes.find((o) => o.model === 'all-down')).toMatchObject({ status: 'failed', attempts: 2 });
  });
});

describe('failure after the first byte', () => {
  it('ends an Anthropic stream with a native error event the SDK raises', async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'truncated',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    await expect(stream.finalMessage()).rejects.toThrow(/ended before completion|stream ended|incomplete/i);
    expect(text.length).toBeGreaterThan(0);
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'truncated'));
    const outcome = gateway.outcomes.find((o) => o.model === 'truncated');
    expect(outcome).toMatchObject({ status: 'failed', httpStatus: 200, errorKind: 'upstream-malformed' });
    expect(outcome?.usage?.source).toBe('partial');
  });
});

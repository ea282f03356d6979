/**
 * Liveness under hostile token counting: 4 MiB runs of one character sent to
 * `/v1/messages/count_tokens`, `/v1/responses/input_tokens`, Gemini `:countTokens` and a chat
 * completion on a key and a channel with TPM limits (both need a token estimate at admission),
 * while a small chat completion is sent again and again. The small requests must be answered
 * while the big ones are in flight, and the big ones must finish too.
 *
 * The gateway runs as a child process (the real entry point, infra/processes/tollgate-server.ts):
 * a gateway in this process would share the test's event loop, so a stalled loop would stall the
 * measurement with it. The fake upstream (test/support/fixture-upstream.ts) has no count
 * endpoints, so all three counts fall back to the gateway's local counting.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { spawnGateway, type GatewayProcess } from '../../support/spawn-gateway.ts';

const ADMIN_TOKEN = 'liveness-admin-token-0000000000';
const RUN_BYTES = 4 * 1024 * 1024;
/** A small request must be answered within this while the big ones are in flight (today's code: minutes). */
const SMALL_ANSWER_LIMIT_MS = 2000;
/** Each big request must be answered within this. */
const BIG_ANSWER_LIMIT_MS = 20_000;

let upstream: FixtureUpstream;
let gateway: GatewayProcess;
let apiKey = '';
let dataDir = '';

async function admin(method: 'PUT' | 'POST', path: string, body: unknown): Promise<any> {
  const response = await request(`${gateway.origin}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.body.json()) as any;
  if (response.statusCode >= 300)
    throw new Error(`admin ${method} ${path}: ${response.statusCode} ${JSON.stringify(json)}`);
  return json;
}

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  dataDir = mkdtempSync(join(tmpdir(), 'tollgate-liveness-'));
  const configPath = join(dataDir, 'tollgate.json');
  writeFileSync(configPath, JSON.stringify({ channels: [], keys: [] }));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    TOLLGATE_DATA_DIR: dataDir,
    TOLLGATE_CONFIG: configPath,
    TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    TOLLGATE_CONSUMERS: 'off',
  };
  for (const name of ['KAFKA_BROKERS', 'REDIS_URL', 'CLICKHOUSE_URL']) delete env[name];
  gateway = await spawnGateway(env, 60_000);
  const channels = [
    { id: 'live-anthropic', provider: 'anthropic', protocol: 'anthropic-messages', model: 'claude-live' },
    { id: 'live-responses', provider: 'openai', protocol: 'openai-responses', model: 'responses-live' },
    { id: 'live-gemini', provider: 'gemini', protocol: 'gemini', model: 'gemini-live' },
    { id: 'live-chat', provider: 'openai', protocol: 'openai-chat', model: 'chat-live' },
  ] as const;
  for (const channel of channels) {
    await admin('PUT', `/channels/${channel.id}`, {
      provider: channel.provider,
      protocol: channel.protocol,
      baseUrl: upstream.baseUrl(channel.protocol),
      apiKey: 'upstream-key',
      modelMap: { [channel.model]: 'text' },
      tpm: 900_000_000,
    });
  }
  apiKey = (await admin('POST', '/keys', { name: 'liveness', tpm: 900_000_000 })).apiKey as string;
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly body: any;
  readonly ms: number;
}

/** POSTs `body` and reads the answer; gives up (throws) after `limitMs`. */
async function post(path: string, headers: Record<string, string>, body: string, limitMs: number): Promise<Answer> {
  const started = performance.now();
  const response = await request(`${gateway.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(limitMs),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: JSON.parse(text), ms: performance.now() - started };
}

function bigRequests(): Array<{ name: string; send: () => Promise<Answer> }> {
  const run = 'a'.repeat(RUN_BYTES);
  const bearer = { authorization: `Bearer ${apiKey}` };
  const messages = JSON.stringify({ model: 'claude-live', messages: [{ role: 'user', content: run }] });
  return [
    {
      name: 'anthropic count_tokens',
      send: () =>
        post(
          '/v1/messages/count_tokens',
          { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
          messages,
          BIG_ANSWER_LIMIT_MS,
        ),
    },
    {
      name: 'responses input_tokens',
      send: () =>
        post(
          '/v1/responses/input_tokens',
          bearer,
          JSON.stringify({ model: 'responses-live', input: run }),
          BIG_ANSWER_LIMIT_MS,
        ),
    },
    {
      name: 'gemini countTokens',
      send: () =>
        post(
          '/v1beta/models/gemini-live:countTokens',
          { 'x-goog-api-key': apiKey },
          JSON.stringify({ contents: [{ role: 'user', parts: [{ text: run }] }] }),
          BIG_ANSWER_LIMIT_MS,
        ),
    },
    {
      name: 'chat completion (key and channel TPM)',
      send: () =>
        post(
          '/v1/chat/completions',
          bearer,
          JSON.stringify({ model: 'chat-live', messages: [{ role: 'user', content: run }] }),
          BIG_ANSWER_LIMIT_MS,
        ),
    },
  ];
}

function smallRequest(): Promise<Answer> {
  return post(
    '/v1/chat/completions',
    { authorization: `Bearer ${apiKey}` },
    JSON.stringify({ model: 'chat-live', messages: [{ role: 'user', content: 'Hello' }] }),
    SMALL_ANSWER_LIMIT_MS,
  );
}

describe('token counting on 4 MiB runs of one character', () => {
  it('leaves the node answering small requests while the big ones are in flight, and answers the big ones', async () => {
    expect((await smallRequest()).status).toBe(200);
    let inFlight = 0;
    const smallDuringBig: Answer[] = [];
    const requests = bigRequests();
    const big = requests.map(({ name, send }) => {
      inFlight++;
      return send()
        .then((answer) => ({ name, answer }))
        .finally(() => inFlight--);
    });
    const allBig = Promise.allSettled(big);
    // Small requests one after another until every big one is answered (or one small one is not).
    while (inFlight > 0) {
      const small = await smallRequest().catch((error: Error) => ({
        status: 0,
        body: { error: error.message },
        ms: SMALL_ANSWER_LIMIT_MS,
      }));
      if (inFlight > 0) smallDuringBig.push(small);
      expect(small.status, `a small request while big ones were in flight: ${JSON.stringify(small.body)}`).toBe(200);
      expect(small.ms).toBeLessThan(SMALL_ANSWER_LIMIT_MS);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(smallDuringBig.length).toBeGreaterThan(0);

    const results = await allBig;
    const answers = Object.fromEntries(
      results.map((result, i) => [
        requests[i]!.name,
        result.status === 'fulfilled' ? result.value.answer : result.reason,
      ]),
    );
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer, name).toMatchObject({ status: 200 });
      expect((answer as Answer).ms, name).toBeLessThan(BIG_ANSWER_LIMIT_MS);
    }
    // 'a' × 8 is one o200k token: about 524,288 tokens, counted exactly up to the budget and estimated beyond.
    const near = (tokens: number): boolean => Math.abs(tokens - RUN_BYTES / 8) < RUN_BYTES / 8 / 20;
    expect(near((answers['anthropic count_tokens'] as Answer).body.input_tokens)).toBe(true);
    expect(near((answers['responses input_tokens'] as Answer).body.input_tokens)).toBe(true);
    expect(near((answers['gemini countTokens'] as Answer).body.totalTokens)).toBe(true);
  }, 120_000);
});

/**
 * Hostile clients: every malformed request to a client endpoint gets a 4xx (never a 5xx) in that
 * client's own error envelope, and no answer quotes a credential (the API key, a `?key=` query,
 * the upstream's key). Bodies come from a seeded generator (hostile-body-generator.ts): a
 * wrong-typed value at every field of a valid body, and raw damage (truncation, invalid UTF-8,
 * deep nesting, too many members, over-long strings); plus malformed URLs, content types,
 * raw HTTP and unknown routes.
 */
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFormat } from '../../../gateway/canonical/formats.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../support/start-gateway.ts';
import { RawConnection } from '../responses-websocket/websocket-client.ts';
import { CLIENT_ENDPOINTS, expectErrorEnvelope, MODELS, type Envelope } from './client-endpoints.ts';
import { seededRandom } from '../../support/seeded-random.ts';
import { damagedBodies, nestedArrays, wrongTypeBodies, type HostileBody } from './hostile-body-generator.ts';

/** The seed of every generated body; change it to explore, keep it to replay. */
const SEED = 0x7011_6a7e;
const QUERY_SECRET = 'sk-query-secret-4f1c9e0b7d2a';
const UPSTREAM_SECRET = 'sk-upstream-secret-8e3b5a1c6f90';
const SECRETS = [TEST_KEY, QUERY_SECRET, UPSTREAM_SECRET];

let upstream: FixtureUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  const channel = (id: string, provider: string, protocol: WireFormat, model: string) => ({
    id,
    provider,
    protocol,
    baseUrl: upstream.baseUrl(protocol),
    apiKey: UPSTREAM_SECRET,
    models: [model],
    modelMap: { [model]: 'text' },
  });
  gateway = await startTestGateway({
    channels: [
      channel('chat', 'deepseek', 'openai-chat', MODELS.chat),
      channel('responses', 'openai', 'openai-responses', MODELS.responses),
      channel('anthropic', 'anthropic', 'anthropic-messages', MODELS.anthropic),
      channel('gemini', 'gemini', 'gemini', MODELS.gemini),
    ],
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** One answer, read to the end. */
interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** `path` with `?key=<QUERY_SECRET>` appended, as a Gemini client may send it. */
function withQueryKey(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}key=${QUERY_SECRET}`;
}

async function send(
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<Answer> {
  const response = await request(`${gateway.origin}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: response.statusCode,
    contentType: String(response.headers['content-type'] ?? ''),
    text: await response.body.text(),
  };
}

/**
 * What is wrong with `answer` (undefined: nothing): a 5xx, a 2xx/3xx where a refusal is due, an
 * error that is not JSON in `envelope`'s shape, or a credential anywhere in the body.
 */
function problemWith(answer: Answer, envelope: Envelope, mustRefuse: boolean): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (mustRefuse && answer.status < 400) return `accepted with ${answer.status}`;
  const secret = SECRETS.find((s) => answer.text.includes(s));
  if (secret) return `the answer quotes a credential: ${answer.text.slice(0, 200)}`;
  if (answer.status < 400) return undefined;
  if (!answer.contentType.startsWith('application/json')) return `error content-type ${answer.contentType}`;
  try {
    expectErrorEnvelope(envelope, answer.status, JSON.parse(answer.text));
  } catch (error) {
    return `not a ${envelope} error envelope: ${answer.text.slice(0, 200)} (${(error as Error).message.split('\n')[0]})`;
  }
  return undefined;
}

/** Runs `tasks` with at most `concurrency` in flight; returns the labelled problems found. */
async function runAll(
  tasks: ReadonlyArray<{ label: string; run: () => Promise<string | undefined> }>,
  concurrency = 8,
): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      const problem = await task.run().catch((error: unknown) => `request failed: ${(error as Error).message}`);
      if (problem) problems.push(`${task.label}: ${problem}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return problems;
}

function bodyTasks(
  endpoint: (typeof CLIENT_ENDPOINTS)[number],
  bodies: ReadonlyArray<HostileBody>,
  contentType = 'application/json',
) {
  return bodies.map((hostile) => ({
    label: `${endpoint.name} ← ${hostile.label}`,
    run: async () =>
      problemWith(
        await send(
          'POST',
          withQueryKey(endpoint.path),
          { 'content-type': contentType, ...endpoint.headers(TEST_KEY) },
          hostile.body,
        ),
        endpoint.envelope,
        hostile.mustRefuse,
      ),
  }));
}

describe.each(CLIENT_ENDPOINTS)('$name under hostile bodies', (endpoint) => {
  it('serves the valid body (control)', async () => {
    const answer = await send(
      'POST',
      endpoint.path,
      { 'content-type': 'application/json', ...endpoint.headers(TEST_KEY) },
      Buffer.from(JSON.stringify(endpoint.validBody)),
    );
    expect(answer.status, answer.text).toBe(200);
  });

  it('answers a wrong-typed value at every field without a 5xx', async () => {
    const bodies = wrongTypeBodies(endpoint.validBody as never, seededRandom(SEED));
    expect(bodies.length).toBeGreaterThan(20);
    expect(await runAll(bodyTasks(endpoint, bodies))).toEqual([]);
  });

  it('refuses damaged JSON (truncated, invalid UTF-8, deep, too many members) with a 4xx in its envelope', async () => {
    expect(await runAll(bodyTasks(endpoint, damagedBodies(endpoint.validBody as never, seededRandom(SEED))))).toEqual(
      [],
    );
  });

  it('answers odd content types in its envelope', async () => {
    const valid = Buffer.from(JSON.stringify(endpoint.validBody));
    const tasks = [
      'text/plain',
      'application/x-www-form-urlencoded',
      'garbage',
      ';;;',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
    ].map((type) => ({
      label: `${endpoint.name} as ${type}`,
      run: async () =>
        problemWith(
          await send(
            'POST',
            withQueryKey(endpoint.path),
            { 'content-type': type, ...endpoint.headers(TEST_KEY) },
            valid,
          ),
          endpoint.envelope,
          false,
        ),
    }));
    tasks.push({
      label: `${endpoint.name} without a body`,
      run: async () =>
        problemWith(
          await send('POST', withQueryKey(endpoint.path), endpoint.headers(TEST_KEY)),
          endpoint.envelope,
          true,
        ),
    });
    expect(await runAll(tasks)).toEqual([]);
  });
});

describe('limits checked before parsing', () => {
  it.each(CLIENT_ENDPOINTS)('$name: nesting beyond 128 levels is a 400 naming the limit', async (endpoint) => {
    const body = Buffer.from(`${JSON.stringify(endpoint.validBody).slice(0, -1)},"deep":${nestedArrays(5000)}}`);
    const answer = await send(
      'POST',
      endpoint.path,
      { 'content-type': 'application/json', ...endpoint.headers(TEST_KEY) },
      body,
    );
    expect(answer.status, answer.text).toBe(400);
    expectErrorEnvelope(endpoint.envelope, 400, JSON.parse(answer.text));
    expect(answer.text).toContain('128 levels');
  });

  it('a body nested exactly 128 levels deep passes the scan', async () => {
    const endpoint = CLIENT_ENDPOINTS[0]!;
    // The top-level object is level 1, the member adds 127.
    const body = Buffer.from(`${JSON.stringify(endpoint.validBody).slice(0, -1)},"deep":${nestedArrays(127)}}`);
    const answer = await send(
      'POST',
      endpoint.path,
      { 'content-type': 'application/json', ...endpoint.headers(TEST_KEY) },
      body,
    );
    expect(answer.text).not.toContain('json_too_deep');
    expect(answer.status).toBeLessThan(500);
  });

  it.each(['/v1/chat/completions', '/v1/messages', `/v1beta/models/${MODELS.gemini}:generateContent`])(
    '%s: a string over 16 MiB is a 413 in the client envelope',
    async (path) => {
      const endpoint = CLIENT_ENDPOINTS.find((e) => e.path === path)!;
      const body = Buffer.from(
        `${JSON.stringify(endpoint.validBody).slice(0, -1)},"huge":"${'a'.repeat(16 * 1024 * 1024 + 1)}"}`,
      );
      const answer = await send(
        'POST',
        endpoint.path,
        { 'content-type': 'application/json', ...endpoint.headers(TEST_KEY) },
        body,
      );
      expect(answer.status, answer.text.slice(0, 200)).toBe(413);
      expectErrorEnvelope(endpoint.envelope, 413, JSON.parse(answer.text));
      expect(answer.text).toContain('16777216 bytes');
    },
  );
});

describe('token counting of special-token text', () => {
  it.each(CLIENT_ENDPOINTS.filter((e) => /count|input_tokens/i.test(e.name)))(
    '$name counts "<|endoftext|>" as text (was a 500)',
    async (endpoint) => {
      const body = JSON.stringify(endpoint.validBody).replace(
        'What is the weather?',
        '<|endoftext|> and <|endofprompt|>',
      );
      const answer = await send(
        'POST',
        endpoint.path,
        { 'content-type': 'application/json', ...endpoint.headers(TEST_KEY) },
        Buffer.from(body),
      );
      expect(answer.status, answer.text).toBe(200);
    },
  );
});

describe('malformed URLs and unknown routes', () => {
  // A `?key=` is appended to every path (the listing at /v1/models would take it for a Gemini
  // client's key, so those cases go without: `query: false`).
  const geminiBody = JSON.stringify(CLIENT_ENDPOINTS.find((e) => e.envelope === 'gemini')!.validBody);
  const cases: ReadonlyArray<{
    method: 'GET' | 'POST';
    path: string;
    headers: Record<string, string>;
    envelope: Envelope;
    status: number;
    body?: string;
    query?: false;
  }> = [
    // `%25ZZ` is a well-formed escape of the model name `%ZZ`: an unknown model, never a throw.
    {
      method: 'POST',
      path: `/v1beta/models/%25ZZ:generateContent`,
      headers: { 'x-goog-api-key': TEST_KEY },
      envelope: 'gemini',
      status: 404,
      body: geminiBody,
    },
    {
      method: 'POST',
      path: `/v1beta/models/%ZZ:generateContent`,
      headers: { 'x-goog-api-key': TEST_KEY },
      envelope: 'gemini',
      status: 400,
    },
    {
      method: 'POST',
      path: `/v1/models/%E0%A4%A:countTokens`,
      headers: { 'x-goog-api-key': TEST_KEY },
      envelope: 'gemini',
      status: 400,
    },
    {
      method: 'GET',
      path: '/v1/models/%25ZZ',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      envelope: 'openai',
      status: 404,
      query: false,
    },
    {
      method: 'GET',
      path: '/v1/models/%ZZ',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      envelope: 'openai',
      status: 400,
      query: false,
    },
    {
      method: 'GET',
      path: '/v1/models/%ZZ',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
      envelope: 'anthropic',
      status: 400,
      query: false,
    },
    { method: 'GET', path: '/v1/models/%ZZ', headers: {}, envelope: 'gemini', status: 400 },
    {
      method: 'GET',
      path: '/v1beta/models/%25ZZ',
      headers: { 'x-goog-api-key': TEST_KEY },
      envelope: 'gemini',
      status: 404,
    },
    {
      method: 'POST',
      path: '/v1/chat/completions%ZZ',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      envelope: 'openai',
      status: 400,
    },
    {
      method: 'POST',
      path: '/v1/responses%ZZ',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      envelope: 'openai',
      status: 400,
    },
    { method: 'POST', path: '/v1/messages%ZZ', headers: { 'x-api-key': TEST_KEY }, envelope: 'anthropic', status: 400 },
    {
      method: 'POST',
      path: '/v1/messages/count_tokens%C3',
      headers: { 'x-api-key': TEST_KEY },
      envelope: 'anthropic',
      status: 400,
    },
    {
      method: 'GET',
      path: '/v1/responses/%ZZ',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      envelope: 'openai',
      status: 400,
    },
    {
      method: 'GET',
      path: `/v1/responses/resp_${'x'.repeat(300)}`,
      headers: { authorization: `Bearer ${TEST_KEY}` },
      envelope: 'openai',
      status: 414,
    },
    {
      method: 'GET',
      path: '/v1/responses/resp_unknown',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      envelope: 'openai',
      status: 404,
    },
    {
      method: 'POST',
      path: '/v1/nothing-here',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      envelope: 'openai',
      status: 404,
    },
    {
      method: 'POST',
      path: '/v1/messages/nothing-here',
      headers: { 'x-api-key': TEST_KEY },
      envelope: 'anthropic',
      status: 404,
    },
    {
      method: 'POST',
      path: '/v1beta/nothing-here',
      headers: { 'x-goog-api-key': TEST_KEY },
      envelope: 'gemini',
      status: 404,
    },
    { method: 'GET', path: '/v1/models', headers: {}, envelope: 'openai', status: 401, query: false },
    { method: 'GET', path: '/v1/models', headers: {}, envelope: 'gemini', status: 401 },
    {
      method: 'GET',
      path: '/v1beta/models',
      headers: { 'x-goog-api-key': 'sk-wrong-key-000000' },
      envelope: 'gemini',
      status: 401,
    },
  ];

  it.each(cases)(
    '$method $path → $status ($envelope), never quoting ?key=',
    async ({ method, path, headers, envelope, status, body, query }) => {
      const answer = await send(
        method,
        query === false ? path : withQueryKey(path),
        { 'content-type': 'application/json', ...headers },
        method === 'POST' ? Buffer.from(body ?? '{}') : undefined,
      );
      expect(problemWith(answer, envelope, true)).toBeUndefined();
      expect(answer.status, answer.text).toBe(status);
    },
  );

  it('GET listings still answer with a key in the query', async () => {
    expect((await send('GET', `/v1/models?key=${TEST_KEY}`, {})).status).toBe(200);
    expect((await send('GET', `/v1beta/models?key=${TEST_KEY}`, {})).status).toBe(200);
  });
});

/** Sends raw bytes on a fresh socket and returns the status and body of the answer. */
function sendRaw(bytes: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(gateway.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: rest.join('\r\n\r\n') });
    });
  });
}

describe('malformed HTTP on the socket', () => {
  it.each([
    ['/v1/messages', 'anthropic'],
    [`/v1beta/models/${MODELS.gemini}:generateContent`, 'gemini'],
    ['/v1/chat/completions', 'openai'],
  ] as const)('a header with a control character on %s → 400 in the %s envelope', async (path, envelope) => {
    const answer = await sendRaw(
      `POST ${path}?key=${QUERY_SECRET} HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect(answer.status).toBe(400);
    expectErrorEnvelope(envelope, 400, JSON.parse(answer.body));
    expect(answer.body).not.toContain(QUERY_SECRET);
  });

  it('headers over the size limit → 431 in the client envelope', async () => {
    const answer = await sendRaw(`POST /v1/messages HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expectErrorEnvelope('anthropic', 431, JSON.parse(answer.body));
  });
});

describe('Responses WebSocket mode', () => {
  it('a message nested 5,000 levels deep gets an error event and the connection stays usable', async () => {
    const raw = await RawConnection.open(gateway.origin, TEST_KEY);
    raw.socket.send(`{"type":"response.create","model":"${MODELS.chat}","input":"hi","deep":${nestedArrays(5000)}}`);
    expect(await raw.nextTurn()).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({ code: 'json_too_deep' }),
      }),
    ]);
    raw.socket.send(JSON.stringify({ type: 'response.create', model: MODELS.chat, input: 'hi' }));
    expect((await raw.nextTurn()).at(-1)).toMatchObject({ type: 'response.completed' });
    raw.socket.close();
  });
});

/**
 * Bad input on prices over HTTP against a real gateway (in-process app on loopback, its
 * in-memory control plane): the admin API (`PUT /admin/api/prices` and `/prices/:priceId`), the
 * console API (an admin signed in, with the CSRF token) and the `tollgate` CLI — in-process and
 * as a real child process — each refuse a negative, non-numeric, non-finite or over-precise
 * price, an `effectiveFrom` that is not ISO-8601, an unknown channel and an unknown field with a
 * 400 `{error:{message, field}}` naming the field (the CLI: the error, a non-zero exit), and the
 * control plane holds no new event. A price for a model no channel serves is accepted and listed.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../gateway/cli/run-cli.ts';
import { parseConfigFile } from '../../../gateway/config/load-config.ts';
import { createLocalControlPlane, type ControlPlane } from '../../../gateway/control-plane/local-control-plane.ts';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../support/start-gateway.ts';

const ADMIN_TOKEN = `price-it-${randomBytes(8).toString('hex')}`;
const CLI = join(import.meta.dirname, '../../../infra/processes/tollgate-cli.ts');
const CONFIG = {
  keys: [{ name: 'test', key: TEST_KEY }],
  channels: [{ id: 'mock-a', provider: 'mock', protocol: 'openai-chat', models: ['mock-1'] }],
};
const ENV = { LOG_LEVEL: 'silent', TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN } as const;
const GOOD = '"model":"mock-1","inputPerMTok":0.27,"outputPerMTok":1.1';
const ISO_HINT = 'must be an ISO-8601 date or date-time with a time zone, e.g. 2025-01-01 or 2025-01-01T00:00:00Z';

let gateway: TestGateway;
let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let controlPlane: ControlPlane;
/** Events appended to the control plane since the gateway started. */
let appended = 0;
let consoleCookie = '';
let consoleCsrf = '';

/** What the control plane holds: appended events, applied history, prices. */
function snapshot(): { appended: number; history: number; version: number; prices: unknown } {
  return {
    appended,
    history: controlPlane.view.history().length,
    version: controlPlane.view.version,
    prices: structuredClone(controlPlane.view.prices()),
  };
}

/** A PUT with a raw JSON body (so `1e309` reaches the server as written). */
async function put(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const adminHeaders = (): Record<string, string> => ({ authorization: `Bearer ${ADMIN_TOKEN}` });
const consoleHeaders = (): Record<string, string> => ({ cookie: consoleCookie, 'x-csrf-token': consoleCsrf });

/** Runs the CLI in-process against the gateway; returns its exit code and output lines. */
async function cli(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: { TOLLGATE_URL: gateway.origin, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
    stdout: (l) => out.push(...l.split('\n')),
    stderr: (l) => err.push(...l.split('\n')),
  });
  return { code, out, err };
}

/** Spawns `node --import tsx infra/processes/tollgate-cli.ts …args` against the gateway. */
function tollgate(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, TOLLGATE_URL: gateway.origin, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  mock = await startMockUpstream();
  const local = createLocalControlPlane(parseConfigFile(CONFIG, ENV));
  controlPlane = {
    view: local.view,
    secrets: local.secrets,
    append: async (events) => {
      appended += events.length;
      await local.append(events);
    },
  };
  gateway = await startTestGateway(CONFIG, { mockBaseUrl: mock.baseUrl, controlPlane }, ENV);
  const created = await fetch(`${gateway.origin}/admin/api/users`, {
    method: 'POST',
    headers: { ...adminHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Pat Prices', role: 'admin', login: 'pat', password: 'pat-password-1' }),
  });
  expect(created.status).toBe(201);
  const signIn = await fetch(`${gateway.origin}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: 'pat', password: 'pat-password-1' }),
  });
  expect(signIn.status).toBe(200);
  consoleCookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  consoleCsrf = ((await signIn.json()) as { csrfToken: string }).csrfToken;
});

afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

/** Each bad body (raw JSON), the field it must name and the whole message. */
const BAD_BODIES: ReadonlyArray<readonly [string, string, string]> = [
  [`{${GOOD},"inputPerMTok":-1}`, 'inputPerMTok', 'inputPerMTok: must be ≥ 0'],
  [`{${GOOD},"cacheWritePerMTok":-0.5}`, 'cacheWritePerMTok', 'cacheWritePerMTok: must be ≥ 0'],
  [`{${GOOD},"outputPerMTok":"abc"}`, 'outputPerMTok', 'outputPerMTok: expected number, got string'],
  [`{${GOOD},"inputPerMTok":"1e3"}`, 'inputPerMTok', 'inputPerMTok: expected number, got string'],
  [`{${GOOD},"cacheReadPerMTok":1e309}`, 'cacheReadPerMTok', 'cacheReadPerMTok: must be a finite number'],
  [`{${GOOD},"outputPerMTok":-1e309}`, 'outputPerMTok', 'outputPerMTok: must be a finite number'],
  [
    `{${GOOD},"cacheReadPerMTok":0.1234567891}`,
    'cacheReadPerMTok',
    'cacheReadPerMTok: must have at most 9 decimal places',
  ],
  [`{${GOOD},"channel":"ghost"}`, 'channel', "channel: unknown channel 'ghost'"],
  [`{${GOOD},"effectiveFrom":"yesterday"}`, 'effectiveFrom', `effectiveFrom: ${ISO_HINT}`],
  [`{${GOOD},"effectiveFrom":"2026-13-45"}`, 'effectiveFrom', `effectiveFrom: ${ISO_HINT}`],
  [`{${GOOD},"effectiveFrom":1767225600000}`, 'effectiveFrom', `effectiveFrom: ${ISO_HINT}`],
  [`{${GOOD},"currency":"EUR"}`, 'currency', "unknown field 'currency'"],
];

describe('admin API: PUT /admin/api/prices', () => {
  it.each(BAD_BODIES)('%s → 400 naming %s, nothing appended', async (body, field, message) => {
    const before = snapshot();
    expect(await put(`${gateway.origin}/admin/api/prices`, body, adminHeaders())).toEqual({
      status: 400,
      body: { error: { message, field } },
    });
    expect(await put(`${gateway.origin}/admin/api/prices/promo`, body, adminHeaders())).toEqual({
      status: 400,
      body: { error: { message, field } },
    });
    expect(snapshot()).toEqual(before);
  });
});

describe('console API: PUT /console/api/prices as a signed-in admin', () => {
  it.each(BAD_BODIES)('%s → 400 naming %s, nothing appended', async (body, field, message) => {
    const before = snapshot();
    expect(await put(`${gateway.origin}/console/api/prices`, body, consoleHeaders())).toEqual({
      status: 400,
      body: { error: { message, field } },
    });
    expect(snapshot()).toEqual(before);
  });
});

describe('tollgate prices set', () => {
  const SET = ['prices', 'set', '--model', 'mock-1'];

  it.each([
    [
      [...SET, '--input', 'abc', '--output', '1'],
      "usage error: --input: 'abc' is not a number: give USD per million tokens as a decimal, e.g. 0.27",
    ],
    [
      [...SET, '--input', '1', '--output', '1e3'],
      "usage error: --output: '1e3' is not a number: give USD per million tokens as a decimal, e.g. 0.27",
    ],
    [
      [...SET, '--input', '1', '--output', '1', '--cache-read', '1e309'],
      "usage error: --cache-read: '1e309' is not a number: give USD per million tokens as a decimal, e.g. 0.27",
    ],
    [
      [...SET, '--input', '1', '--output', '1', '--cache-write', '0.1234567891'],
      "usage error: --cache-write: '0.1234567891' has more than 9 decimal places",
    ],
  ])('%j → exit 2, refused by the CLI naming the flag', async (argv, first) => {
    const before = snapshot();
    const { code, out, err } = await cli(argv);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err[0]).toBe(first);
    expect(snapshot()).toEqual(before);
  });

  it.each([
    [[...SET, '--input=-1', '--output', '1'], 'error: inputPerMTok: must be ≥ 0 (field: inputPerMTok) [HTTP 400]'],
    [
      [...SET, '--input', '1', '--output', '1', '--channel', 'ghost'],
      "error: channel: unknown channel 'ghost' (field: channel) [HTTP 400]",
    ],
    [
      [...SET, '--input', '1', '--output', '1', '--from', 'yesterday'],
      `error: effectiveFrom: ${ISO_HINT} (field: effectiveFrom) [HTTP 400]`,
    ],
    [
      [...SET, '--input', '1', '--output', '1', '--effective-from', '2026-13-45'],
      `error: effectiveFrom: ${ISO_HINT} (field: effectiveFrom) [HTTP 400]`,
    ],
  ])('%j → exit 1 with the API error naming the field', async (argv, message) => {
    const before = snapshot();
    expect(await cli(argv)).toEqual({ code: 1, out: [], err: [message] });
    expect(snapshot()).toEqual(before);
  });

  it('as a child process: a non-numeric price exits 2, an unknown channel exits 1, each naming its field', async () => {
    const before = snapshot();
    const text = await tollgate([...SET, '--input', 'abc', '--output', '1']);
    expect(text.code).toBe(2);
    expect(text.stderr.split('\n')[0]).toBe(
      "usage error: --input: 'abc' is not a number: give USD per million tokens as a decimal, e.g. 0.27",
    );
    const ghost = await tollgate([...SET, '--input', '1', '--output', '1', '--channel', 'ghost']);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr.trim()).toBe("error: channel: unknown channel 'ghost' (field: channel) [HTTP 400]");
    expect(snapshot()).toEqual(before);
  });
});

describe('a price for a model no channel serves', () => {
  it('is accepted on the admin API, the console API and the CLI, and listed by each', async () => {
    const before = snapshot();
    // Without effectiveFrom a price starts when it is set: its derived id carries that time.
    const admin = await put(
      `${gateway.origin}/admin/api/prices`,
      '{"model":"unserved-a","inputPerMTok":1,"outputPerMTok":2}',
      adminHeaders(),
    );
    expect(admin).toMatchObject({
      status: 201,
      body: {
        created: true,
        price: { priceId: expect.stringMatching(/^unserved-a\|\*\|\d{4}-/), model: 'unserved-a', status: 'in force' },
      },
    });
    const onConsole = await put(
      `${gateway.origin}/console/api/prices`,
      '{"model":"unserved-b","inputPerMTok":0.5,"outputPerMTok":0.75,"effectiveFrom":"2026-01-01"}',
      consoleHeaders(),
    );
    expect(onConsole).toMatchObject({
      status: 201,
      body: { created: true, price: { priceId: 'unserved-b|*|2026-01-01T00:00:00.000Z' } },
    });
    const set = await cli(['prices', 'set', '--model', 'unserved-c', '--input', '3', '--output', '15']);
    expect(set.code).toBe(0);
    expect(set.out[0]).toMatch(/^set price unserved-c\|\*\|\d{4}-/);
    const onKnownChannel = await cli([
      'prices',
      'set',
      '--model',
      'mock-1',
      '--input',
      '1',
      '--output',
      '1',
      '--channel',
      'mock-a',
    ]);
    expect(onKnownChannel.out[0]).toMatch(/^set price mock-1\|mock-a\|\d{4}-/);

    expect(snapshot().appended).toBe(before.appended + 4);
    expect(snapshot().history).toBe(before.history + 4);

    const listed = await fetch(`${gateway.origin}/admin/api/prices`, { headers: adminHeaders() });
    const ids = ((await listed.json()) as { prices: Array<{ priceId: string }> }).prices.map((p) => p.priceId);
    for (const id of [
      admin.body.price.priceId,
      'unserved-b|*|2026-01-01T00:00:00.000Z',
      set.out[0]!.slice('set price '.length),
      onKnownChannel.out[0]!.slice('set price '.length),
    ])
      expect(ids).toContain(id);
    const onConsoleList = await fetch(`${gateway.origin}/console/api/prices`, { headers: consoleHeaders() });
    expect(((await onConsoleList.json()) as { prices: Array<{ model: string }> }).prices.map((p) => p.model)).toEqual(
      expect.arrayContaining(['unserved-a', 'unserved-b', 'unserved-c']),
    );
    const list = await cli(['prices', 'list']);
    expect(list.code).toBe(0);
    for (const model of ['unserved-a', 'unserved-b', 'unserved-c'])
      expect(list.out.some((line) => line.startsWith(`${model} `))).toBe(true);
  });
});

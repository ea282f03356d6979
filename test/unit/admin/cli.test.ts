/**
 * The CLI in-process (runCli with captured output) against a listening admin app: usage errors
 * exit 2 with a clear message and the command's help, API errors exit 1 with the API's message
 * and field, and every command's happy path prints what it should — create and rotate print the
 * new key alone on the last line.
 */
import { verifyPassword } from '../../../gateway/control-plane/password-hash.ts';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../../gateway/control-plane/key-material.ts';
import { runCli } from '../../../gateway/cli/run-cli.ts';
import { ADMIN_TOKEN, buildAdminTestApp, HMAC_SECRET, type AdminTestApp } from './admin-app.ts';

let admin: AdminTestApp;
let origin: string;

beforeAll(async () => {
  admin = await buildAdminTestApp();
  await admin.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(admin.app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await admin?.app.close();
});

/** Runs the CLI; returns its exit code and output lines. */
async function cli(
  argv: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: { TOLLGATE_URL: origin, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
    stdout: (l) => out.push(...l.split('\n')),
    stderr: (l) => err.push(...l.split('\n')),
  });
  return { code, out, err };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const KEY_PATTERN = /^sk-[a-z2-7]{12}-[0-9A-Za-z]{32}$/;

describe('usage errors → exit 2', () => {
  it.each([
    [[], 'usage error: missing command'],
    [['keys', 'frob'], "usage error: unknown command 'keys frob'"],
    [['frob'], "usage error: unknown command 'frob'"],
    [['keys', 'create', '--name', 'a', '--bogus'], "usage error: Unknown option '--bogus'"],
    [['keys', 'create', '--name'], "usage error: Option '--name <value>' argument missing"],
    [['keys', 'create'], 'usage error: missing required --name'],
    [['keys', 'create', '--rpm', '5'], 'usage error: missing required --name'],
    [['keys', 'revoke'], 'usage error: missing ID'],
    [['keys', 'revoke', 'a', 'b'], "usage error: unexpected argument 'b'"],
    [['keys', 'update', 'k', '--enable', '--disable'], 'usage error: --enable and --disable are mutually exclusive'],
    [
      ['channels', 'upsert', 'c1', '--provider', 'mock', '--model-map', 'fast'],
      "usage error: --model-map: 'fast' is not ALIAS=MODEL",
    ],
    [['prices', 'set', '--model', 'm', '--input', '1'], 'usage error: missing required --output'],
    [
      ['prices', 'set', '--model', 'm', '--input', 'free', '--output', '1'],
      "usage error: --input: 'free' is not a number: give USD per million tokens as a decimal, e.g. 0.27",
    ],
    [['keys', 'rotate', 'k', '--grace', '-1'], "usage error: Option '--grace' argument is ambiguous."],
    [['users', 'list', '--json', '--enable'], "usage error: Unknown option '--enable'"],
    [
      ['keys', 'create', '--name', 'a', '--model-limit', 'gpt-x'],
      "usage error: --model-limit: 'gpt-x' is not MODEL:rpm=N,tpm=N,rpd=N,tpd=N",
    ],
    [
      ['teams', 'create', '--name', 'a', '--model-limit', 'gpt-x:rps=1'],
      "usage error: --model-limit: 'rps=1' is not rpm=N, tpm=N, rpd=N or tpd=N",
    ],
    [['teams', 'add-member', 'team_1'], 'usage error: missing USER'],
    [
      ['channels', 'upsert', 'c1', '--provider', 'bedrock', '--cloud', 'us-east-1'],
      "usage error: --cloud: 'us-east-1' is not SETTING=VALUE",
    ],
    [['budgets', 'remove'], 'usage error: missing ID'],
    [['alert-webhooks', 'create', '--name', 'ops'], 'usage error: missing required --url'],
  ])('%j → %s', async (argv, first) => {
    const { code, out, err } = await cli(argv);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err[0]!.startsWith(first)).toBe(true);
  });

  it('names the missing admin token', async () => {
    expect(await cli(['keys', 'list'], { TOLLGATE_ADMIN_TOKEN: undefined })).toMatchObject({
      code: 2,
      err: [
        'usage error: TOLLGATE_ADMIN_TOKEN is not set: export your personal admin token (or the gateway’s bootstrap token)',
      ],
    });
  });

  it('prints help to stdout with exit 0', async () => {
    const global = await cli(['--help']);
    expect(global.code).toBe(0);
    expect(global.out.join('\n')).toContain('keys create');
    expect(global.out.join('\n')).toContain('TOLLGATE_ADMIN_TOKEN');
    const create = await cli(['keys', 'create', '--help']);
    expect(create.code).toBe(0);
    expect(create.out[0]).toBe(
      'usage: tollgate keys create --name NAME [--user ID] [--rpm N] [--tpm N] [--quota USD] [--expires ISO-8601] [--models a,b] [--team ID] [--rpd N] [--tpd N] [--tag NAME=VALUE …] [--model-limit MODEL:rpm=N,tpm=N,rpd=N,tpd=N …] [--json]',
    );
  });
});

describe('API errors → exit 1', () => {
  it.each([
    [
      ['keys', 'create', '--name', 'a', '--rpm=-5'],
      'error: rpm: must be a positive integer or null (field: rpm) [HTTP 400]',
    ],
    [
      ['keys', 'create', '--name', 'a', '--rpm', 'ten'],
      'error: rpm: must be a positive integer or null (field: rpm) [HTTP 400]',
    ],
    [
      ['keys', 'create', '--name', 'a', '--quota', '1.0000000001'],
      'error: quotaUsd: must be a USD amount ≥ 0 with at most 9 decimal places (field: quotaUsd) [HTTP 400]',
    ],
    [
      ['keys', 'create', '--name', 'a', '--expires', '2001-01-01T00:00:00Z'],
      'error: expiresAt: must be in the future (field: expiresAt) [HTTP 400]',
    ],
    [
      ['keys', 'create', '--name', 'a', '--user', 'usr_ghost'],
      "error: user 'usr_ghost' not found (field: userId) [HTTP 404]",
    ],
    [['keys', 'revoke', 'key_ghost'], "error: key 'key_ghost' not found (field: id) [HTTP 404]"],
    [['keys', 'rotate', 'key_ghost', '--grace=-1'], "error: key 'key_ghost' not found (field: id) [HTTP 404]"],
    [
      ['users', 'create', '--name', 'a', '--role', 'root'],
      "error: role: must be 'admin' or 'user' (field: role) [HTTP 400]",
    ],
    [
      ['channels', 'upsert', 'c1', '--provider', 'acme', '--models', 'm'],
      'error: provider: must be one of "openai", "anthropic", "gemini", "deepseek", "dashscope", "moonshot", "minimax", "zhipu", "xiaomi", "openai-compatible", "anthropic-compatible", "openrouter", "groq", "mistral", "xai", "together", "fireworks", "volcengine-ark", "siliconflow", "ollama", "vllm", "lmstudio", "azure", "bedrock", "vertex", "mock" (field: provider) [HTTP 400]',
    ],
    [
      ['channels', 'upsert', 'c1', '--provider', 'bedrock', '--cloud', 'auth=sigv4', '--models', 'm'],
      'error: cloud.region: is required for bedrock channels (the AWS region, e.g. us-east-1) (field: cloud.region) [HTTP 400]',
    ],
    [['channels', 'remove', 'ghost'], "error: channel 'ghost' not found (field: id) [HTTP 404]"],
  ])('%j → %s', async (argv, message) => {
    expect(await cli(argv)).toEqual({ code: 1, out: [], err: [message] });
  });

  it('reports a wrong token and an unreachable gateway', async () => {
    expect(await cli(['whoami'], { TOLLGATE_ADMIN_TOKEN: 'nope' })).toEqual({
      code: 1,
      out: [],
      err: ['error: invalid admin token [HTTP 401]'],
    });
    const closed = await closedPort();
    expect(await cli(['whoami'], { TOLLGATE_URL: `http://127.0.0.1:${closed}` })).toEqual({
      code: 1,
      out: [],
      err: [
        `error: cannot reach the gateway at http://127.0.0.1:${closed} (ECONNREFUSED): is it running? Set TOLLGATE_URL`,
      ],
    });
  });
});

describe('happy paths', () => {
  it('users and keys: create, list, update, rotate, revoke', async () => {
    const user = await cli([
      'users',
      'create',
      '--name',
      'Ada',
      '--role',
      'admin',
      '--quota',
      '25',
      '--rpm',
      '600',
      '--login',
      'Ada.L',
      '--password',
      'ada-console-pw',
    ]);
    expect(user.code).toBe(0);
    const userId = /^created user (usr_[0-9a-f]+)$/.exec(user.out[0]!)![1]!;
    expect((await cli(['users', 'update', userId, '--disable', '--tpm', 'none'])).out[0]).toBe(
      `updated user ${userId}`,
    );
    expect(admin.controlPlane.user(userId)).toMatchObject({
      disabled: true,
      tpm: null,
      rpm: 600,
      quotaNanoUsd: 25_000_000_000n,
      login: 'ada.l',
    });
    expect(await verifyPassword('ada-console-pw', admin.controlPlane.user(userId)!.passwordHash!)).toBe(true);
    expect(admin.controlPlane.published.at(-1)!.event.actor).toBe('bootstrap-token');
    const users = await cli(['users', 'list']);
    expect(users.out[0]).toMatch(/^USER ID\s+NAME\s+ROLE\s+LOGIN\s+DISABLED\s+RPM\s+TPM\s+QUOTA USD$/);
    expect(users.out.some((l) => l.startsWith(userId) && l.includes('Ada') && l.includes('true'))).toBe(true);

    const created = await cli([
      'keys',
      'create',
      '--name',
      'ci',
      '--user',
      userId,
      '--rpm',
      '60',
      '--tpm',
      '10000',
      '--quota',
      '1.5',
      '--expires',
      '2099-01-01T00:00:00Z',
      '--models',
      'a, b',
    ]);
    expect(created.code).toBe(0);
    const key = created.out.at(-1)!;
    expect(key).toMatch(KEY_PATTERN);
    const record = admin.controlPlane.keyByDigest(digestApiKey(HMAC_SECRET, key))!;
    expect(record).toMatchObject({
      name: 'ci',
      userId,
      rpm: 60,
      tpm: 10000,
      quotaNanoUsd: 1_500_000_000n,
      expiresAt: Date.parse('2099-01-01T00:00:00Z'),
      models: new Set(['a', 'b']),
    });
    const listed = await cli(['keys', 'list']);
    expect(listed.out.join('\n')).toContain(record.keyId);
    expect(listed.out.join('\n')).not.toContain(key.slice(16));
    expect((await cli(['keys', 'update', record.publicId, '--models', 'all', '--quota', 'none'])).code).toBe(0);
    expect(admin.controlPlane.key(record.keyId)).toMatchObject({ models: null, quotaNanoUsd: null });

    const rotated = await cli(['keys', 'rotate', record.keyId, '--grace', '60']);
    expect(rotated.code).toBe(0);
    expect(rotated.out[0]).toMatch(
      new RegExp(`^rotated key ${record.keyId} → key_[a-z2-7]{12}; the old key stops working at \\d{4}-`),
    );
    const newKey = rotated.out.at(-1)!;
    expect(newKey).toMatch(KEY_PATTERN);
    expect(newKey).not.toBe(key);
    const fresh = admin.controlPlane.keyByDigest(digestApiKey(HMAC_SECRET, newKey))!;
    expect(await cli(['keys', 'revoke', fresh.keyId, '--reason', 'test'])).toMatchObject({
      code: 0,
      out: [expect.stringMatching(new RegExp(`^revoked key ${fresh.keyId} at \\d{4}-`))],
    });
    const json = await cli(['keys', 'list', '--json']);
    expect(JSON.parse(json.out.join('\n')).keys.find((k: { keyId: string }) => k.keyId === fresh.keyId).status).toBe(
      'revoked',
    );
  });

  it('channels with a key pool: --credential per key, ids listed, keys never shown', async () => {
    const upsert = await cli([
      'channels',
      'upsert',
      'pool-1',
      '--provider',
      'deepseek',
      '--models',
      'deepseek-chat',
      '--credential',
      'id=a,key=sk-POOL-A,rpm=60',
      '--credential',
      'id=b,key=sk-POOL-B,tpm=100000',
    ]);
    expect(upsert.code).toBe(0);
    expect(upsert.out.join('\n')).not.toContain('sk-POOL');
    expect(admin.controlPlane.channels().find((c) => c.config.id === 'pool-1')?.config.credentials).toEqual([
      { id: 'a', apiKey: 'sk-POOL-A', rpm: 60, tpm: null },
      { id: 'b', apiKey: 'sk-POOL-B', rpm: null, tpm: 100_000 },
    ]);
    // Without key= the stored key of that id is kept.
    await cli([
      'channels',
      'upsert',
      'pool-1',
      '--provider',
      'deepseek',
      '--models',
      'deepseek-chat',
      '--credential',
      'id=b,rpm=5',
    ]);
    expect(admin.controlPlane.channels().find((c) => c.config.id === 'pool-1')?.config.credentials).toEqual([
      { id: 'b', apiKey: 'sk-POOL-B', rpm: 5, tpm: null },
    ]);
    const list = await cli(['channels', 'list']);
    expect(list.out.find((line) => line.startsWith('pool-1'))).toMatch(/\sset\s+b\s+deepseek-chat$/);
    expect(list.out.join('\n')).not.toContain('sk-POOL');
    const bad = await cli([
      'channels',
      'upsert',
      'pool-1',
      '--provider',
      'deepseek',
      '--credential',
      'id=a,kee=sk-TYPO',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err[0]).toBe('usage error: --credential: each part must be id=…, key=…, rpm=N or tpm=N');
    expect(bad.err.join('\n')).not.toContain('sk-TYPO');
    expect((await cli(['channels', 'remove', 'pool-1'])).code).toBe(0);
  });

  it('channels and prices', async () => {
    const upsert = await cli([
      'channels',
      'upsert',
      'ds-1',
      '--provider',
      'deepseek',
      '--api-key',
      'sk-UPSTREAM',
      '--models',
      'deepseek-chat',
      '--model-map',
      'fast=deepseek-chat',
      '--priority',
      '2',
      '--rpm',
      '500',
      '--disabled',
    ]);
    expect(upsert.code).toBe(0);
    expect(upsert.out[0]).toBe('created channel ds-1');
    expect(upsert.out.join('\n')).not.toContain('sk-UPSTREAM');
    expect(admin.controlPlane.channels().find((c) => c.config.id === 'ds-1')).toMatchObject({
      config: { apiKey: 'sk-UPSTREAM', priority: 2, enabled: false, modelMap: { fast: 'deepseek-chat' } },
      rpm: 500,
    });
    expect(
      (await cli(['channels', 'upsert', 'ds-1', '--provider', 'deepseek', '--models', 'deepseek-chat'])).out[0],
    ).toBe('updated channel ds-1');
    const list = await cli(['channels', 'list']);
    expect(list.out[1]).toMatch(/^ds-1\s+deepseek\s+-\s+true\s+0\s+1\s+-\s+-\s+set\s+default\s+deepseek-chat$/);
    expect(await cli(['channels', 'remove', 'ds-1'])).toEqual({ code: 0, out: ['removed channel ds-1'], err: [] });
    expect((await cli(['channels', 'list'])).out).toEqual(['(none)']);

    expect(
      (
        await cli([
          'prices',
          'set',
          '--model',
          'deepseek-chat',
          '--input',
          '0.27',
          '--output',
          '1.1',
          '--from',
          '2026-01-01',
        ])
      ).out[0],
    ).toBe('set price deepseek-chat|*|2026-01-01T00:00:00.000Z');
    expect(
      (
        await cli([
          'prices',
          'set',
          '--model',
          'deepseek-chat',
          '--input',
          '0.3',
          '--output',
          '1.1',
          '--from',
          '2026-01-01',
        ])
      ).out[0],
    ).toBe('replaced price deepseek-chat|*|2026-01-01T00:00:00.000Z');
    const prices = await cli(['prices', 'list']);
    expect(prices.out[1]).toMatch(
      /^deepseek-chat\s+\*\s+in force\s+0\.3\s+1\.1\s+-\s+-\s+-\s+2026-01-01T00:00:00\.000Z\s+deepseek-chat\|\*\|2026-01-01T00:00:00\.000Z$/,
    );
    expect(await cli(['whoami'])).toEqual({
      code: 0,
      out: ['authenticated as bootstrap-token (bootstrap-token)'],
      err: [],
    });
  });
});

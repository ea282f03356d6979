/**
 * Prices that do what the command says, and changes that carry a person, on the embedded engines
 * (file log, memory state, chdb) with the consumers in-process:
 * - the config file prices `up-chat` from 2020; `tollgate prices set` without --effective-from
 *   (the CLI entry, runCli, over the admin API) is in force from the moment it is set, so the next
 *   request is billed at it in billing_lines, and `prices list` marks it `in force` (the 2020 entry
 *   `superseded`, shown with --all);
 * - a price another entry shadows is refused with a 400 naming the winner, and set with --force;
 * - a personal admin token is created (shown once), sets a price, is listed, revoked, then refused
 *   with 401; config_audit.actor names its holder, `bootstrap-token` for TOLLGATE_ADMIN_TOKEN and
 *   the console login for a console change; the x-tollgate-actor header changes nothing.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../gateway/cli/run-cli.ts';
import {
  decimalToNano,
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';

const BOOTSTRAP = 'prices-actors-bootstrap-token-0123456789';
const MODEL = 'up-chat';
let system: TestSystem;

/** Runs the CLI in-process with `token`; returns its exit code and output lines. */
async function tollgate(args: string[], token = BOOTSTRAP): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { TOLLGATE_URL: system.origin, TOLLGATE_ADMIN_TOKEN: token },
    stdout: (l) => out.push(...l.split('\n')),
    stderr: (l) => err.push(...l.split('\n')),
  });
  return { code, out, err };
}

/** One chat request; its request id and its billing line once the consumers have written it. */
async function billedRequest(): Promise<{ requestId: string; input: bigint; output: bigint; costNano: bigint }> {
  const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${system.origin}/v1`, maxRetries: 0 });
  const { response } = await openai.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'price me' }] })
    .withResponse();
  const requestId = response.headers.get('x-request-id') ?? '';
  const query = () =>
    system.analytics.query<{ input: string; output: string; cost: string }>(
      `SELECT toString(input_tokens) AS input, toString(output_tokens) AS output, toString(cost_usd) AS cost FROM billing_lines FINAL WHERE request_id = '${requestId}'`,
    );
  await eventually(async () => (await query()).length, 1, 60_000);
  const [row] = await query();
  return { requestId, input: BigInt(row!.input), output: BigInt(row!.output), costNano: decimalToNano(row!.cost) };
}

beforeAll(async () => {
  system = await startTestSystem({
    settings: await isolatedEngineSettings('embedded'),
    channels: [{ id: 'up-ch', provider: 'mock', protocol: 'openai-chat', models: [MODEL, 'other-model'] }],
    prices: [{ model: MODEL, inputPerMTok: 2, outputPerMTok: 3, effectiveFrom: '2020-01-01T00:00:00Z' }],
    adminToken: BOOTSTRAP,
  });
}, 120_000);

afterAll(async () => {
  await system?.close();
});

describe('prices set without --effective-from', () => {
  it('bills the next request at the CLI price although the config file has a dated one, and lists it in force', async () => {
    const before = await billedRequest();
    expect(before.costNano).toBe(before.input * 2_000n + before.output * 3_000n);

    const set = await tollgate(['prices', 'set', '--model', MODEL, '--input', '5000', '--output', '6000']);
    expect(set.code, set.err.join('\n')).toBe(0);
    const after = await billedRequest();
    expect(after.costNano).toBe(after.input * 5_000_000n + after.output * 6_000_000n);

    const list = await tollgate(['prices', 'list']);
    const rows = list.out.filter((l) => l.startsWith(MODEL));
    expect(rows).toEqual([expect.stringMatching(/^up-chat\s+\*\s+in force\s+5000\s+6000\s/)]);
    const all = (await tollgate(['prices', 'list', '--all'])).out.filter((l) => l.startsWith(MODEL));
    expect(all).toEqual([
      expect.stringMatching(/^up-chat\s+\*\s+superseded\s+2\s+3\s+-\s+-\s+-\s+2020-01-01T00:00:00\.000Z\s+config:/),
      expect.stringMatching(/^up-chat\s+\*\s+in force\s+5000\s+6000\s/),
    ]);
  }, 120_000);

  it('refuses a price another entry shadows, naming the winner, and sets it with --force', async () => {
    const winner = (await tollgate(['prices', 'list'])).out
      .find((l) => l.startsWith(MODEL))!
      .split(/\s+/)
      .at(-1)!;
    const backdated = await tollgate([
      'prices',
      'set',
      '--model',
      MODEL,
      '--input',
      '1',
      '--output',
      '1',
      '--effective-from',
      '2021-01-01',
    ]);
    expect(backdated.code).toBe(1);
    expect(backdated.err[0]).toContain(`this price would not be in force: price '${winner}'`);
    expect(backdated.err[0]).toMatch(/\(field: effectiveFrom\) \[HTTP 400\]$/);

    expect(
      (await tollgate(['prices', 'set', '--model', MODEL, '--channel', 'up-ch', '--input', '7', '--output', '8'])).code,
    ).toBe(0);
    const general = await tollgate(['prices', 'set', '--model', MODEL, '--input', '9', '--output', '9']);
    expect(general.code).toBe(1);
    expect(general.err[0]).toMatch(
      /price 'up-chat\|up-ch\|[^']+' \(model up-chat, channel up-ch, from [^,]+, input 7, output 8 USD per million tokens\) wins on channel 'up-ch'/,
    );
    expect(general.err[0]).toMatch(/\[HTTP 400\]$/);
    const forced = await tollgate(['prices', 'set', '--model', MODEL, '--input', '9', '--output', '9', '--force']);
    expect(forced.code, forced.err.join('\n')).toBe(0);
    const listed = (await tollgate(['prices', 'list'])).out.filter((l) => l.startsWith(MODEL));
    expect(listed).toEqual([
      expect.stringMatching(/^up-chat\s+\*\s+in force\s+9\s+9\s/),
      expect.stringMatching(/^up-chat\s+up-ch\s+in force\s+7\s+8\s/),
    ]);
    // Billing agrees with the listing: the channel's own price wins on up-ch.
    const billed = await billedRequest();
    expect(billed.costNano).toBe(billed.input * 7_000n + billed.output * 8_000n);
  }, 120_000);
});

describe('changes carry a person', () => {
  it('a personal admin token: created once, used, listed, revoked; config_audit names alice, bootstrap-token and the console login', async () => {
    const created = await tollgate(['admin-tokens', 'create', '--name', 'Alice']);
    expect(created.code, created.err.join('\n')).toBe(0);
    const token = created.out.at(-1)!;
    expect(token).toMatch(/^tga-[0-9A-Za-z]{40}$/);
    const tokenId = /^created admin token (adm_[0-9a-f]{16}) for alice$/.exec(created.out[0]!)![1]!;

    expect((await tollgate(['whoami'], token)).out).toEqual(['authenticated as alice (admin-token)']);
    const set = await fetch(`${system.origin}/admin/api/prices`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-tollgate-actor': 'cli' },
      body: JSON.stringify({ model: 'alice-model', inputPerMTok: 1.5, outputPerMTok: 2.5 }),
    });
    expect(set.status).toBe(201);

    const listed = await tollgate(['admin-tokens', 'list']);
    expect(listed.out.find((l) => l.startsWith(tokenId))).toMatch(
      new RegExp(`^${tokenId}\\s+alice\\s+active\\s+\\S+\\s+bootstrap-token\\s+-\\s+-$`),
    );
    expect(listed.out.join('\n')).not.toContain(token.slice(4));
    expect((await tollgate(['admin-tokens', 'revoke', tokenId])).code).toBe(0);
    expect(await tollgate(['whoami'], token)).toEqual({
      code: 1,
      out: [],
      err: ['error: invalid admin token [HTTP 401]'],
    });
    expect((await tollgate(['admin-tokens', 'list'])).out.find((l) => l.startsWith(tokenId))).toMatch(
      /\srevoked\s.*\sbootstrap-token$/,
    );

    // A console admin's change is recorded under their login.
    const user = await fetch(`${system.origin}/admin/api/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Carol', role: 'admin', login: 'carol', password: 'carol-console-pw' }),
    });
    expect(user.status).toBe(201);
    const session = await fetch(`${system.origin}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'carol', password: 'carol-console-pw' }),
    });
    expect(session.status).toBe(200);
    const { csrfToken } = (await session.json()) as { csrfToken: string };
    const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
    const consoleSet = await fetch(`${system.origin}/console/api/prices`, {
      method: 'PUT',
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'carol-model', inputPerMTok: 1, outputPerMTok: 1 }),
    });
    expect(consoleSet.status).toBe(201);

    const audit = () =>
      system.analytics.query<{ actor: string; event_type: string; subject: string }>(
        `SELECT actor, event_type, if(event_type = 'PriceSet', visitParamExtractString(changes, 'model'), entity_id) AS subject FROM config_audit FINAL WHERE event_type IN ('AdminTokenCreated', 'AdminTokenRevoked') OR (event_type = 'PriceSet' AND visitParamExtractString(changes, 'model') IN ('alice-model', 'carol-model')) ORDER BY occurred_at_ms, event_type`,
      );
    await eventually(async () => (await audit()).length, 4, 30_000);
    expect(await audit()).toEqual([
      { actor: 'bootstrap-token', event_type: 'AdminTokenCreated', subject: tokenId },
      { actor: 'alice', event_type: 'PriceSet', subject: 'alice-model' },
      { actor: 'bootstrap-token', event_type: 'AdminTokenRevoked', subject: tokenId },
      { actor: 'carol', event_type: 'PriceSet', subject: 'carol-model' },
    ]);
    const secrets = await system.analytics.query<{ n: string }>(
      `SELECT toString(count()) AS n FROM config_audit FINAL WHERE position(changes, '${token.slice(4)}') > 0 OR position(changes, 'digest') > 0`,
    );
    expect(secrets).toEqual([{ n: '0' }]);
  }, 120_000);
});

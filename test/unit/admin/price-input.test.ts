/**
 * Bad input on prices, at the command and through the CLI: a negative, non-numeric, non-finite
 * or over-precise price, an `effectiveFrom` that is not ISO-8601, a channel the control plane
 * does not know and an unknown field are refused with a 400 naming the field, and nothing is
 * published; the CLI refuses price flags that are not decimal numbers itself, naming the flag. A
 * price for a model no channel serves is accepted and listed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../gateway/cli/run-cli.ts';
import { setPrice, upsertChannel, type CommandContext } from '../../../gateway/control-plane/commands.ts';
import { ADMIN_TOKEN, buildAdminTestApp, HMAC_SECRET, MASTER_KEY, type AdminTestApp } from './admin-app.ts';
import { priceEntrySchema, usdToNano } from '../../../schemas/billing/price-book.ts';
import { RecordingControlPlane } from './recording-control-plane.ts';
import { commandRefusal, runCommand } from './run-command.ts';

const ctx: CommandContext = {
  now: Date.parse('2026-03-01T00:00:00Z'),
  actor: 'admin',
  secrets: { masterKey: MASTER_KEY, hmacSecret: HMAC_SECRET },
};
const GOOD = { model: 'deepseek-chat', inputPerMTok: 0.27, outputPerMTok: 1.1 };
const ISO_HINT = 'must be an ISO-8601 date or date-time with a time zone, e.g. 2025-01-01 or 2025-01-01T00:00:00Z';

/** A control plane holding one channel, `ds-1`, serving deepseek-chat. */
async function withChannel(): Promise<RecordingControlPlane> {
  const cp = new RecordingControlPlane(MASTER_KEY);
  await runCommand(cp, () => upsertChannel(cp, 'ds-1', { provider: 'deepseek', models: ['deepseek-chat'] }, ctx));
  return cp;
}

describe('setPrice refuses bad input naming the field, publishing nothing', () => {
  it.each([
    ['a negative input price', { inputPerMTok: -1 }, 'inputPerMTok', 'inputPerMTok: must be ≥ 0'],
    [
      'a negative cache-write price',
      { cacheWritePerMTok: -0.000000001 },
      'cacheWritePerMTok',
      'cacheWritePerMTok: must be ≥ 0',
    ],
    ['a price as text', { outputPerMTok: 'abc' }, 'outputPerMTok', 'outputPerMTok: expected number, got string'],
    ['a price as exponent text', { inputPerMTok: '1e3' }, 'inputPerMTok', 'inputPerMTok: expected number, got string'],
    ['NaN', { inputPerMTok: Number.NaN }, 'inputPerMTok', 'inputPerMTok: must be a finite number'],
    [
      'Infinity',
      { outputPerMTok: Number.POSITIVE_INFINITY },
      'outputPerMTok',
      'outputPerMTok: must be a finite number',
    ],
    [
      '1e309 (Infinity once parsed)',
      { cacheReadPerMTok: JSON.parse('1e309') },
      'cacheReadPerMTok',
      'cacheReadPerMTok: must be a finite number',
    ],
    [
      '-Infinity',
      { cacheWritePerMTok: Number.NEGATIVE_INFINITY },
      'cacheWritePerMTok',
      'cacheWritePerMTok: must be a finite number',
    ],
    [
      '10 decimals',
      { cacheReadPerMTok: 0.1234567891 },
      'cacheReadPerMTok',
      'cacheReadPerMTok: must have at most 9 decimal places',
    ],
    ['an unknown channel', { channel: 'ghost' }, 'channel', "channel: unknown channel 'ghost'"],
    ['a channel differing only in case', { channel: 'DS-1' }, 'channel', "channel: unknown channel 'DS-1'"],
    ['effectiveFrom "yesterday"', { effectiveFrom: 'yesterday' }, 'effectiveFrom', `effectiveFrom: ${ISO_HINT}`],
    ['effectiveFrom "2026-13-45"', { effectiveFrom: '2026-13-45' }, 'effectiveFrom', `effectiveFrom: ${ISO_HINT}`],
    ['effectiveFrom as a number', { effectiveFrom: 1767225600000 }, 'effectiveFrom', `effectiveFrom: ${ISO_HINT}`],
    [
      'effectiveFrom without a time zone',
      { effectiveFrom: '2026-01-01T00:00:00' },
      'effectiveFrom',
      `effectiveFrom: ${ISO_HINT}`,
    ],
    ['an unknown field', { currency: 'EUR' }, 'currency', "unknown field 'currency'"],
  ])('%s → 400 on its field', async (_label, change, field, message) => {
    const cp = await withChannel();
    const published = cp.published.length;
    expect(commandRefusal(() => setPrice(cp, undefined, { ...GOOD, ...change }, ctx))).toEqual({
      status: 400,
      field,
      message,
    });
    expect(commandRefusal(() => setPrice(cp, 'promo', { ...GOOD, ...change }, ctx))).toEqual({
      status: 400,
      field,
      message,
    });
    expect(cp.published).toHaveLength(published);
    expect(cp.prices()).toEqual([]);
  });

  it('accepts a known channel, and a price for a model no channel serves', async () => {
    const cp = await withChannel();
    // Without effectiveFrom, a price starts when it is set (ctx.now).
    expect(await runCommand(cp, () => setPrice(cp, undefined, { ...GOOD, channel: 'ds-1' }, ctx))).toEqual({
      priceId: 'deepseek-chat|ds-1|2026-03-01T00:00:00.000Z',
      created: true,
    });
    expect(
      await runCommand(cp, () =>
        setPrice(
          cp,
          undefined,
          {
            model: 'nobody-serves-this',
            inputPerMTok: 0,
            outputPerMTok: 12.000000001,
            effectiveFrom: '2026-01-01T00:00:00+02:00',
          },
          ctx,
        ),
      ),
    ).toEqual({ priceId: 'nobody-serves-this|*|2025-12-31T22:00:00.000Z', created: true });
    expect(cp.prices().map((p) => p.priceId)).toEqual([
      'deepseek-chat|ds-1|2026-03-01T00:00:00.000Z',
      'nobody-serves-this|*|2025-12-31T22:00:00.000Z',
    ]);
  });
});

describe('tollgate prices set with bad input', () => {
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
  beforeEach(async () => {
    if (!admin.controlPlane.channels().some((c) => c.config.id === 'ds-1'))
      expect(
        (await cli(['channels', 'upsert', 'ds-1', '--provider', 'deepseek', '--models', 'deepseek-chat'])).code,
      ).toBe(0);
  });

  /** Runs the CLI in-process; returns its exit code and output lines. */
  async function cli(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      env: { TOLLGATE_URL: origin, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
      stdout: (l) => out.push(...l.split('\n')),
      stderr: (l) => err.push(...l.split('\n')),
    });
    return { code, out, err };
  }

  const SET = ['prices', 'set', '--model', 'deepseek-chat'];

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
      [...SET, '--input', '1', '--output', '1', '--cache-read', 'NaN'],
      "usage error: --cache-read: 'NaN' is not a number: give USD per million tokens as a decimal, e.g. 0.27",
    ],
    [
      [...SET, '--input', '1', '--output', '1', '--cache-write', 'Infinity'],
      "usage error: --cache-write: 'Infinity' is not a number: give USD per million tokens as a decimal, e.g. 0.27",
    ],
    [
      [...SET, '--input', '1', '--output', '1', '--cache-write', '1e309'],
      "usage error: --cache-write: '1e309' is not a number: give USD per million tokens as a decimal, e.g. 0.27",
    ],
    [
      [...SET, '--input', '0.1000000000000000001', '--output', '1'],
      "usage error: --input: '0.1000000000000000001' has more than 9 decimal places",
    ],
    [
      [...SET, '--input', '1', '--output', '1.0000000001'],
      "usage error: --output: '1.0000000001' has more than 9 decimal places",
    ],
    [
      [...SET, '--input', '1', '--output', '1', '--from', '2026-01-01', '--effective-from', '2026-01-01'],
      'usage error: --from and --effective-from are the same flag: give one',
    ],
  ])('%j → exit 2, refused by the CLI itself', async (argv, first) => {
    const before = admin.controlPlane.published.length;
    const { code, out, err } = await cli(argv);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err[0]).toBe(first);
    expect(err[1]).toMatch(/^usage: tollgate prices set /);
    expect(admin.controlPlane.published).toHaveLength(before);
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
    const before = admin.controlPlane.published.length;
    expect(await cli(argv)).toEqual({ code: 1, out: [], err: [message] });
    expect(admin.controlPlane.published).toHaveLength(before);
  });

  it('sets and lists the 1-hour cache-write price, and refuses one that is not a number', async () => {
    const set = await cli([
      'prices',
      'set',
      '--model',
      'claude-sonnet-4-5',
      '--input',
      '3',
      '--output',
      '15',
      '--cache-read',
      '0.3',
      '--cache-write',
      '3.75',
      '--cache-write-1h',
      '6',
    ]);
    expect(set.code).toBe(0);
    const list = await cli(['prices', 'list']);
    expect(list.out.find((l) => l.startsWith('claude-sonnet-4-5'))).toMatch(
      /^claude-sonnet-4-5\s+\*\s+in force\s+3\s+15\s+0\.3\s+3\.75\s+6\s/,
    );
    const bad = await cli([
      'prices',
      'set',
      '--model',
      'm',
      '--input',
      '1',
      '--output',
      '1',
      '--cache-write-1h',
      'two',
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.err.join('\n')).toContain("--cache-write-1h: 'two' is not a number");
  });

  it('sets a price for a known channel and one for a model no channel serves, and lists both', async () => {
    expect(
      (
        await cli([
          ...SET,
          '--input',
          '0.27',
          '--output',
          '1.10',
          '--channel',
          'ds-1',
          '--effective-from',
          '2026-01-01',
        ])
      ).out[0],
    ).toBe('set price deepseek-chat|ds-1|2026-01-01T00:00:00.000Z');
    expect(
      (await cli(['prices', 'set', '--model', 'unserved-model', '--input', '3', '--output', '15.000000001'])).out[0],
    ).toMatch(/^set price unserved-model\|\*\|\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    const list = await cli(['prices', 'list']);
    expect(list.code).toBe(0);
    expect(list.out.find((l) => l.startsWith('unserved-model'))).toMatch(
      /^unserved-model\s+\*\s+in force\s+3\s+15\.000000001\s+-\s+-\s+-\s+(\S+)\s+unserved-model\|\*\|\1$/,
    );
    expect(list.out.find((l) => l.startsWith('deepseek-chat'))).toMatch(
      /^deepseek-chat\s+ds-1\s+in force\s+0\.27\s+1\.1\s/,
    );
  });
});

describe('price amounts at the edges of the range', () => {
  it('accepts 1e-7 USD per million tokens and prices it exactly; refuses one above the billing tables range', () => {
    expect(usdToNano(1e-7)).toBe(100n);
    expect(usdToNano(0.123456789)).toBe(123_456_789n);
    expect(usdToNano(1_000_000_000)).toBe(1_000_000_000_000_000_000n);
    expect(priceEntrySchema.safeParse({ model: 'm', inputPerMTok: 1e-7, outputPerMTok: 0 }).success).toBe(true);
    const tooHigh = priceEntrySchema.safeParse({ model: 'm', inputPerMTok: 1, outputPerMTok: 1e10 });
    expect(tooHigh.success).toBe(false);
    expect(tooHigh.error?.issues[0]?.path).toEqual(['outputPerMTok']);
    expect(priceEntrySchema.safeParse({ model: 'm', inputPerMTok: 1e-10, outputPerMTok: 0 }).success).toBe(false);
  });
});

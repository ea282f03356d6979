/**
 * The layer rules of .dependency-cruiser.cjs catch what they promise (ARCHITECTURE.md): each
 * case writes a tiny tree in a temporary folder with one forbidden import, cruises it with the
 * repository's own rules file, and expects that rule to fail — and the same tree without the
 * import to pass. `npm run lint` (run first by `npm test`) cruises the real tree with these rules.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../../..');
const DEPCRUISE = join(REPO, 'node_modules/.bin/depcruise');
const scratch = mkdtempSync(join(tmpdir(), 'tollgate-layer-rules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Writes `files` (path → source) into a fresh tree beside the repository's rules and tsconfig,
 * cruises the source folders it holds, and resolves with depcruise's exit code and report.
 */
async function cruiseTree(name: string, files: Record<string, string>): Promise<{ code: number; report: string }> {
  const root = join(scratch, name);
  mkdirSync(root, { recursive: true });
  cpSync(join(REPO, '.dependency-cruiser.cjs'), join(root, '.dependency-cruiser.cjs'));
  cpSync(join(REPO, 'tsconfig.json'), join(root, 'tsconfig.json'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  const folders = [...new Set(Object.keys(files).map((path) => path.split('/')[0] ?? ''))];
  try {
    const { stdout } = await run(DEPCRUISE, [...folders, '--config', '.dependency-cruiser.cjs'], { cwd: root });
    return { code: 0, report: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? 1, report: failed.stdout ?? '' };
  }
}

const cases: ReadonlyArray<{ rule: string; from: string; to: string }> = [
  { rule: 'gateway-no-upward-import-from-exchange', from: 'gateway/exchange/run.ts', to: 'gateway/http/routes.ts' },
  { rule: 'canonical-imports-nothing', from: 'gateway/canonical/request.ts', to: 'gateway/routing/router.ts' },
  {
    rule: 'inbound-codec-sees-no-provider',
    from: 'gateway/inbound/openai-chat/decode.ts',
    to: 'gateway/upstream/gemini/build.ts',
  },
  { rule: 'schemas-contracts-only', from: 'schemas/topics.ts', to: 'gateway/app.ts' },
  { rule: 'consumers-not-gateway-or-infra', from: 'consumers/billing/fold.ts', to: 'infra/state-store/redis.ts' },
  { rule: 'gateway-not-consumers-or-infra', from: 'gateway/policy/admit.ts', to: 'infra/event-log/kafka.ts' },
];

describe.concurrent('layer rules (.dependency-cruiser.cjs)', () => {
  it.each(cases)('$rule: $from importing $to fails, and the tree without that import passes', async (c) => {
    const target = `/** a module */\nexport const value = 1;\n`;
    const relative = join(
      ...dirname(c.from)
        .split('/')
        .map(() => '..'),
      c.to,
    );
    const importing = `import { value } from '${relative}';\n/** uses it */\nexport const used = value;\n`;
    const bad = await cruiseTree(`${c.rule}-bad`, { [c.from]: importing, [c.to]: target });
    expect(bad.code).not.toBe(0);
    expect(bad.report).toContain(`error ${c.rule}: ${c.from} → ${c.to}`);
    const good = await cruiseTree(`${c.rule}-good`, {
      [c.from]: `/** alone */\nexport const used = 1;\n`,
      [c.to]: target,
    });
    expect(good).toMatchObject({ code: 0 });
  });

  it('a folder cycle fails: events/ and metrics/ (one rank) importing each other', async () => {
    const result = await cruiseTree('cycle', {
      'gateway/events/a.ts': `import { b } from '../metrics/b.ts';\n/** a */\nexport const a = b;\n`,
      'gateway/metrics/b.ts': `/** b */\nexport const b = 1;\n`,
      'gateway/metrics/c.ts': `import { a } from '../events/a.ts';\n/** c */\nexport const c = a;\n`,
    });
    expect(result.code).not.toBe(0);
    expect(result.report).toContain('no-folder-cycles');
  });
});

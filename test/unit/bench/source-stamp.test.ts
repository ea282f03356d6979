/**
 * The source stamp npm start's launcher compares (infra/build/source-stamp.mjs): equal for an
 * untouched tree, different for any edit, time change, added, removed or renamed file, and for
 * the bench build's wider set of files.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeSourceStamp } from '../../../infra/build/source-stamp.mjs';

let root = '';

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tollgate-stamp-'));
  for (const dir of ['gateway', 'consumers', 'schemas', 'infra', 'test']) mkdirSync(join(root, dir));
  writeFileSync(join(root, 'gateway', 'app.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'infra', 'migration.sql'), 'SELECT 1;\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}\n');
  writeFileSync(join(root, 'package-lock.json'), '{}\n');
  writeFileSync(join(root, 'README.md'), 'not a source\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const stamp = (includeBench = false): string => computeSourceStamp({ root, includeBench }).digest;

describe('source stamp', () => {
  it('is stable for an untouched tree and counts the sources and root build files', () => {
    expect(stamp()).toBe(stamp());
    expect(computeSourceStamp({ root }).files).toBe(4);
  });

  it('changes when a file is edited, even to the same size, or only its time changes (older too)', () => {
    const before = stamp();
    writeFileSync(join(root, 'gateway', 'app.ts'), 'export const a = 2;\n');
    utimesSync(join(root, 'gateway', 'app.ts'), new Date(2001, 0, 1), new Date(2001, 0, 1));
    const edited = stamp();
    expect(edited).not.toBe(before);
    utimesSync(join(root, 'gateway', 'app.ts'), new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(stamp()).not.toBe(edited);
  });

  it('changes when a file is added, removed or renamed, and with tsconfig or the lock file', () => {
    const states = [stamp()];
    writeFileSync(join(root, 'schemas', 'new.avsc'), '{}');
    states.push(stamp());
    renameSync(join(root, 'schemas', 'new.avsc'), join(root, 'schemas', 'renamed.avsc'));
    states.push(stamp());
    rmSync(join(root, 'schemas', 'renamed.avsc'));
    writeFileSync(join(root, 'tsconfig.build.json'), '{}\n');
    states.push(stamp());
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
    states.push(stamp());
    expect(new Set(states).size).toBe(states.length);
  });

  it('ignores files outside the build, and covers test/ only for a bench build', () => {
    const production = stamp();
    const bench = stamp(true);
    expect(bench).not.toBe(production);
    writeFileSync(join(root, 'README.md'), 'edited\n');
    writeFileSync(join(root, 'test', 'bench.ts'), 'export {};\n');
    expect(stamp()).toBe(production);
    expect(stamp(true)).not.toBe(bench);
  });
});

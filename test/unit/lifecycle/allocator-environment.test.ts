/**
 * The allocator setting of infra/processes/allocator-environment.ts reaches every place a
 * long-running process is started: package.json's `start` and `consumers` scripts (run by the
 * shell npm uses, an operator's own value kept), the container image, and the bench's server children.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALLOCATOR_ENVIRONMENT } from '../../../infra/processes/allocator-environment.ts';
import { serverChildEnvironment } from '../../bench/bench-runtime.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const scripts = (JSON.parse(readFileSync(ROOT + 'package.json', 'utf8')) as { scripts: Record<string, string> })
  .scripts;

/** The environment `script` hands its node, found by running it under sh with `node` swapped for `env`. */
function environmentOfScript(script: string, env: NodeJS.ProcessEnv): Record<string, string> {
  expect(script).toMatch(/ exec node /);
  const out = execFileSync('sh', ['-c', script.replace(/ exec node .*$/, ' exec env')], { env, encoding: 'utf8' });
  return Object.fromEntries(
    out.split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('allocator environment', () => {
  const [[name, value]] = Object.entries(ALLOCATOR_ENVIRONMENT) as [[string, string]];

  it.each(['start', 'consumers'])('npm run %s hands node the setting, and keeps an operator value', (script) => {
    const { [name]: _unset, ...parent } = process.env;
    expect(environmentOfScript(scripts[script]!, parent)[name]).toBe(value);
    expect(environmentOfScript(scripts[script]!, { ...parent, [name]: '65536' })[name]).toBe('65536');
  });

  it('is set in the container image', () => {
    expect(readFileSync(ROOT + 'infra/Dockerfile', 'utf8')).toMatch(new RegExp(`^ENV ${name}=${value}$`, 'm'));
  });

  it("is in the bench's server children's environment unless the bench run sets its own", () => {
    expect(serverChildEnvironment({ PATH: '/bin' })).toEqual({ PATH: '/bin', [name]: value });
    expect(serverChildEnvironment({ [name]: '1' })[name]).toBe('1');
  });
});

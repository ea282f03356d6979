import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEMO_KEY, loadConfig } from '../../../gateway/config/load-config.ts';

function writeConfig(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tollgate-config-')), name);
  writeFileSync(path, text);
  return path;
}

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('without TOLLGATE_CONFIG serves the demo channel and key on 127.0.0.1:8080', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ demo: true, host: '127.0.0.1', port: 8080 });
    expect(config.channels.map((c) => c.provider)).toEqual(['mock']);
    expect(config.keys.map((k) => k.key)).toEqual([DEMO_KEY]);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads YAML, expands ${VAR} and ${VAR:-default}, applies preset defaults', () => {
    const path = writeConfig(
      'c.yaml',
      [
        'channels:',
        '  - id: deepseek-main',
        '    provider: deepseek',
        '    apiKey: ${DEEPSEEK_API_KEY}',
        '    models: [deepseek-v4-flash]',
        '    modelMap: { claude-sonnet-4-5: "${MAPPED:-deepseek-v4-flash}" }',
        'keys:',
        '  - { name: ci, key: "${CI_KEY}" }',
      ].join('\n'),
    );
    const config = loadConfig({
      TOLLGATE_CONFIG: path,
      DEEPSEEK_API_KEY: 'ds-secret',
      CI_KEY: 'sk-ci-key-123',
      PORT: '9090',
      HOST: '0.0.0.0',
    });
    expect(config).toMatchObject({ demo: false, port: 9090, host: '0.0.0.0' });
    expect(config.channels[0]).toMatchObject({
      id: 'deepseek-main',
      apiKey: 'ds-secret',
      priority: 0,
      weight: 1,
      enabled: true,
      modelMap: { 'claude-sonnet-4-5': 'deepseek-v4-flash' },
    });
    expect(config.keys[0]?.key).toBe('sk-ci-key-123');
  });

  it('lists every problem at once', () => {
    const path = writeConfig(
      'c.json',
      JSON.stringify({
        channels: [
          { id: 'a', provider: 'nope', models: ['m'] },
          { id: 'a', provider: 'openai', models: [], baseUrl: 'ftp://x' },
          { id: 'b', provider: 'openai', models: ['m'], apiKey: '${MISSING_SECRET}', weight: 0 },
        ],
        keys: [{ name: 'k', key: 'pk-not-sk' }],
        extra: true,
      }),
    );
    const problems = problemsOf({ TOLLGATE_CONFIG: path, PORT: 'eighty' });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^env PORT/),
        expect.stringMatching(/channels\[2\]\.apiKey: environment variable MISSING_SECRET is not set/),
        expect.stringMatching(/^channels\[0\]\.provider/),
        expect.stringMatching(/^channels\[1\]\.baseUrl: must be an http\(s\) URL/),
        expect.stringMatching(/^channels\[1\]\.models: must serve at least one model/),
        expect.stringMatching(/^channels\[2\]\.weight: must be > 0/),
        expect.stringMatching(/^keys\[0\]\.key: must start with "sk-"/),
        expect.stringMatching(/extra/),
      ]),
    );
  });

  it('reads TOLLGATE_DRAIN_TIMEOUT_MS (default 30 000 ms) and names it when it is not a whole number of ms', () => {
    expect(loadConfig({}).drainTimeoutMs).toBe(30_000);
    expect(loadConfig({ TOLLGATE_DRAIN_TIMEOUT_MS: '2000' }).drainTimeoutMs).toBe(2000);
    for (const value of ['soon', '-1', '1.5'])
      expect(problemsOf({ TOLLGATE_DRAIN_TIMEOUT_MS: value })).toEqual([
        expect.stringMatching(/^env TOLLGATE_DRAIN_TIMEOUT_MS: /),
      ]);
  });

  it('reports an unreadable or unparsable file', () => {
    expect(problemsOf({ TOLLGATE_CONFIG: '/nonexistent/tollgate.yaml' })[0]).toMatch(/cannot read/);
    expect(problemsOf({ TOLLGATE_CONFIG: writeConfig('bad.yaml', 'channels: [\n  - id: x\n') })[0]).toMatch(
      /not valid YAML/,
    );
  });
});

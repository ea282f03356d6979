/**
 * The config's `routing` section: the README's example parses as written, a config without it
 * gets the documented defaults, and bad settings are refused by name.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigError, parseConfigFile } from '../../../gateway/config/load-config.ts';
import { DEFAULT_ROUTING_SETTINGS } from '../../../gateway/config/routing-settings.ts';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

/** The first ```yaml block after the README's "### Routing" heading. */
function readmeRoutingBlock(): unknown {
  const section = README.slice(README.indexOf('\n### Routing\n'));
  const match = /```yaml\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('no yaml block under "### Routing"');
  return parseYaml(match[1]);
}

function problemsOf(raw: unknown): string[] {
  try {
    parseConfigFile(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('routing settings', () => {
  it("parses the README's example and keeps every value it sets", () => {
    const config = parseConfigFile(readmeRoutingBlock());
    expect(config.routing).toEqual({
      strategy: 'weighted',
      affinity: { enabled: true },
      retries: { maxRetries: 0, backoffBaseMs: 250, backoffMaxMs: 8000, retryAfterCapMs: 1000 },
      models: {
        'gpt-5': {
          strategy: 'latency',
          fallbacks: ['claude-sonnet-4-5', 'deepseek-v4-flash'],
          fallbackOn: ['unavailable', 'context-window'],
        },
      },
    });
  });

  it('gives a config without `routing` the documented defaults', () => {
    expect(parseConfigFile({}).routing).toEqual(DEFAULT_ROUTING_SETTINGS);
    expect(DEFAULT_ROUTING_SETTINGS).toEqual({
      strategy: 'weighted',
      affinity: { enabled: true },
      retries: { maxRetries: 0, backoffBaseMs: 250, backoffMaxMs: 8000, retryAfterCapMs: 1000 },
      models: {},
    });
    expect(parseConfigFile({ routing: { models: { m: { fallbacks: ['n'] } } } }).routing?.models.m).toEqual({
      fallbacks: ['n'],
      fallbackOn: ['unavailable'],
    });
  });

  it('refuses an unknown strategy or trigger, a model falling back to itself, repeats and unknown fields, by name', () => {
    const problems = problemsOf({
      routing: {
        strategy: 'fastest',
        retries: { maxRetries: -1 },
        models: {
          a: { fallbacks: ['a', 'b', 'b'], fallbackOn: ['always'] },
          c: { fallback: ['d'] },
        },
      },
    });
    const text = problems.join('\n');
    expect(text).toMatch(/routing\.strategy/);
    expect(text).toMatch(/routing\.retries\.maxRetries/);
    expect(text).toMatch(/routing\.models\.a\.fallbacks.*must not name a model twice/);
    expect(text).toMatch(/routing\.models\.a\.fallbackOn/);
    expect(text).toMatch(/routing\.models\.c.*fallback/);
    expect(parseConfigFile({ routing: { models: { a: { fallbacks: ['b'] } } } }).routing?.models.a?.fallbacks).toEqual([
      'b',
    ]);
    expect(problemsOf({ routing: { models: { a: { fallbacks: ['a'] } } } }).join('\n')).toMatch(
      /routing\.models\.a\.fallbacks\[0\].*cannot fall back to itself/,
    );
  });
});

/** The memory soak's arithmetic, options and configuration (test/bench/run-soak.ts and its parts). */
import { describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../../gateway/config/load-config.ts';
import { formatSoakVerdict, minuteSamples, summarizeSoak, type SoakSample } from '../../bench/format-soak-report.ts';
import { readSoakSettings, SoakOptionsError } from '../../bench/run-soak.ts';
import { buildSoakConfig, pickSoakRequest, StoredResponseIds } from '../../bench/soak-traffic.ts';
import { seededRandom } from '../../support/seeded-random.ts';
import { SOAK_UPSTREAM_BEHAVIOURS } from '../../bench/soak-upstream.ts';

const MiB = 1024 * 1024;
const counts = { sent: 0, status2xx: 0, status4xx: 0, status5xx: 0, clientAborts: 0, transportErrors: 0 };
const sample = (seconds: number, rssMiB: number, heapMiB = 100): SoakSample => ({
  elapsedMs: seconds * 1000,
  memory: {
    rssBytes: rssMiB * MiB,
    heapUsedBytes: heapMiB * MiB,
    heapTotalBytes: 0,
    externalBytes: 0,
    arrayBuffersBytes: 0,
    mallocedBytes: 0,
  },
  counts,
});

describe('summarizeSoak', () => {
  it('compares the median of the minute after warm-up with the median of the last minute', () => {
    // A GC swing (900) in each window must not decide the verdict.
    const samples = [
      sample(0, 400),
      sample(60, 500),
      sample(70, 900),
      sample(80, 500),
      sample(170, 520),
      sample(180, 900),
      sample(190, 520),
    ];
    const summary = summarizeSoak(samples, 60_000, 10);
    expect(summary.rss.baselineBytes).toBe(500 * MiB);
    expect(summary.rss.finalBytes).toBe(520 * MiB);
    expect(summary.rss.growthPercent).toBeCloseTo(4, 5);
    expect(summary.pass).toBe(true);
    expect(formatSoakVerdict(summary)).toMatch(/\+4\.0% .*PASS$/);
  });

  it('fails at 10% growth or more', () => {
    const summary = summarizeSoak([sample(0, 300), sample(60, 500), sample(240, 550)], 60_000, 10);
    expect(summary.rss.growthPercent).toBeCloseTo(10, 5);
    expect(summary.pass).toBe(false);
    expect(formatSoakVerdict(summary)).toMatch(/FAIL$/);
  });

  it('refuses a run with no sample after the warm-up', () => {
    expect(() => summarizeSoak([sample(0, 400), sample(30, 410)], 60_000, 10)).toThrow(/warm-up/);
  });

  it('picks one sample per minute for the table', () => {
    const samples = [0, 10, 50, 61, 70, 125, 180].map((s) => sample(s, 400));
    expect(minuteSamples(samples).map((s) => s.elapsedMs / 1000)).toEqual([0, 61, 125, 180]);
  });
});

describe('readSoakSettings', () => {
  it('defaults to 30 minutes after a 1-minute warm-up, 32 clients', () => {
    expect(readSoakSettings(['--soak'])).toEqual({
      minutes: 30,
      warmupMinutes: 1,
      concurrency: 32,
      seed: 1,
      consumers: 'in-process',
    });
  });

  it('reads --soak-minutes in both spellings and refuses bad values', () => {
    expect(readSoakSettings(['--soak', '--soak-minutes', '3']).minutes).toBe(3);
    expect(readSoakSettings(['--soak', '--soak-minutes=2.5', '--soak-concurrency', '8']).concurrency).toBe(8);
    for (const argv of [
      ['--soak-minutes', '0.5'],
      ['--soak-minutes', 'x'],
      ['--soak-minutes'],
      ['--soak-concurrency', '1.5'],
    ]) {
      expect(() => readSoakSettings(argv)).toThrow(SoakOptionsError);
    }
  });
});

describe('soak traffic', () => {
  it('builds a config the gateway accepts: every protocol under every behaviour, plus failover', () => {
    const config = parseConfigFile(buildSoakConfig('http://127.0.0.1:9', SOAK_UPSTREAM_BEHAVIOURS), {
      LOG_LEVEL: 'silent',
    });
    expect(config.channels).toHaveLength(4 * SOAK_UPSTREAM_BEHAVIOURS.length + 8);
    expect(config.channels.find((c) => c.id === 'soak-messages-cut')?.baseUrl).toBe('http://127.0.0.1:9/h/cut');
    expect(config.channels.find((c) => c.id === 'soak-chat-stall')?.timeoutMs).toBe(1500);
  });

  it('mixes the four client formats, streamed and not, with aborts, from a seed', () => {
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      const stored = new StoredResponseIds();
      return Array.from({ length: 2000 }, (_, i) => pickSoakRequest(random, i, stored));
    };
    const requests = draw(7);
    const kinds = new Set(requests.map((r) => r.kind));
    for (const kind of [
      'chat',
      'chat stream',
      'responses',
      'responses stream',
      'messages',
      'messages stream',
      'gemini',
      'gemini stream',
    ])
      expect(kinds.has(kind)).toBe(true);
    expect(requests.some((r) => r.abort === 'mid-stream')).toBe(true);
    expect(requests.some((r) => r.abort === 'early')).toBe(true);
    expect(draw(7).map((r) => r.path)).toEqual(requests.map((r) => r.path));
  });
});

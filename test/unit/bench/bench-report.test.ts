/** The load benchmark's parts: cases, rows and ratios to the floor, verdicts, README splice, /proc parsing and limits. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  BENCH_CASES,
  benchCase,
  benchCaseId,
  BENCH_SHAPES,
  MOCK_BEHAVIOUR_PREFIX,
  type BenchTarget,
} from '../../bench/bench-cases.ts';
import { buildBenchGatewayConfig } from '../../bench/bench-gateway-config.ts';
import { parseConfigFile } from '../../../gateway/config/load-config.ts';
import {
  buildBenchRows,
  formatBenchTables,
  formatFootprintTable,
  formatTimeToFirstTokenTable,
  formatUnmeasuredNotes,
  formatVerdicts,
  judgeBenchTargets,
  judgeTimeToFirstToken,
  type BenchReport,
  type ServerFootprint,
  type UnmeasuredRow,
} from '../../bench/format-bench-report.ts';
import {
  renderReadmeBenchSection,
  replaceReadmeBenchSection,
  README_BENCH_BEGIN,
  README_BENCH_END,
} from '../../bench/format-readme-bench-table.ts';
import {
  FD_HEADROOM,
  liveStreamFigures,
  processOpenFileLimit,
  raiseOpenFileLimit,
  type LiveStreamFootprint,
} from '../../bench/measure-server-footprint.ts';
import { peerBenchCase } from '../../bench/peers/peer-cases.ts';
import { parseStatCpuTicks, parseStatusRssBytes } from '../../bench/read-process-usage.ts';
import type { CaseMeasurement } from '../../bench/run-bench-case.ts';

const shape = (id: string) => {
  const found = BENCH_SHAPES.find((s) => s.id === id);
  if (!found) throw new Error(`no shape ${id}`);
  return found;
};

function measurement(
  target: BenchTarget,
  shapeId: string,
  connections: number,
  p50Ms: number,
  cpuUs: number,
): CaseMeasurement {
  return {
    benchCase: benchCase(shape(shapeId), target),
    connections,
    load: {
      requests: 1000,
      elapsedS: 1,
      requestsPerSecond: 1000,
      p50Ms,
      p99Ms: p50Ms * 2,
      latenciesMs: new Float64Array(),
    },
    serverCpuUsPerRequest: cpuUs,
    mockCpuUsPerRequest: 50,
    serverRssBytes: 100 * 1024 * 1024,
  };
}

const live = (
  reached: number,
  requested: number,
  kbPerStream: number | null,
  notMeasuredReason?: string,
): LiveStreamFootprint => ({
  requested,
  sent: requested,
  openedAll: true,
  reached,
  headersReceived: reached,
  failed: 0,
  rssBeforeBytes: 0,
  rssOpenBytes: 0,
  kbPerStream,
  kbPerHeldRequest: kbPerStream,
  ...(notMeasuredReason ? { notMeasuredReason } : {}),
  openSeconds: 1,
});

const MB = 1024 * 1024;

describe('bench cases', () => {
  it('sends every shape to the four targets, each after its direct baseline, keeping the ids other benches use', () => {
    expect(BENCH_CASES).toHaveLength(16);
    expect(BENCH_CASES.find((c) => c.id === 'chat-gateway')?.path).toBe('/v1/chat/completions');
    expect(BENCH_CASES.find((c) => c.id === 'anthropic-direct-stream')?.path).toBe(
      `${MOCK_BEHAVIOUR_PREFIX}/v1/messages`,
    );
    expect(benchCaseId('anthropic-stream', 'floor')).toBe('anthropic-floor-stream');
    const embedded = BENCH_CASES.find((c) => c.id === 'anthropic-embedded');
    expect(embedded).toMatchObject({ target: 'embedded', baseline: 'anthropic-direct', gatewayPath: 'translated' });
    expect(BENCH_CASES.find((c) => c.id === 'chat-floor')?.gatewayPath).toBeUndefined();
  });

  it('builds a config both Tollgate modes accept, pointing at the mock behaviour prefix', () => {
    const config = parseConfigFile(buildBenchGatewayConfig('http://127.0.0.1:9'));
    expect(config.channels[0]?.baseUrl).toBe(`http://127.0.0.1:9${MOCK_BEHAVIOUR_PREFIX}/v1`);
    expect(config.keys).toHaveLength(1);
  });
});

describe('bench rows', () => {
  const measurements = [
    measurement('mock', 'chat', 32, 1, 40),
    measurement('floor', 'chat', 32, 1.5, 100),
    measurement('gateway', 'chat', 32, 3, 180),
    measurement('embedded', 'chat', 32, 4, 320),
    measurement('mock', 'chat', 1, 0.1, 40),
    measurement('floor', 'chat', 1, 0.4, 120),
    measurement('gateway', 'chat', 1, 0.5, 200),
  ];
  const rows = buildBenchRows(measurements);

  it('subtracts the direct p50 of the same shape and connections, and divides CPU by the floor', () => {
    const gateway32 = rows.find((r) => r.target === 'gateway' && r.connections === 32);
    expect(gateway32).toMatchObject({
      baseline: 'chat-direct',
      addedP50Ms: 2,
      floorAddedP50Ms: 0.5,
      addedP50OverFloorMs: 1.5,
      cpuRatioToFloor: 1.8,
    });
    const gateway1 = rows.find((r) => r.target === 'gateway' && r.connections === 1);
    expect(gateway1).toMatchObject({
      addedP50Ms: 0.4,
      floorAddedP50Ms: 0.3,
      addedP50OverFloorMs: 0.1,
      cpuRatioToFloor: 1.67,
    });
    expect(rows.find((r) => r.target === 'embedded')?.cpuRatioToFloor).toBe(3.2);
    expect(rows.find((r) => r.target === 'floor')?.cpuRatioToFloor).toBeUndefined();
    expect(rows.find((r) => r.target === 'mock')?.addedP50Ms).toBeUndefined();
  });

  it('prints one table per connection count', () => {
    const text = formatBenchTables(rows);
    expect(text).toContain('32 connections:');
    expect(text).toContain('1 connection:');
    expect(text).toContain('1.80×');
  });

  it('judges each target MET or NOT MET with its figure, and missing figures as not measured', () => {
    const footprints: ServerFootprint[] = [
      { target: 'gateway', idleRssMb: 120, idleCpuPercent: 0.2, liveStreams: live(100, 100, 25) },
      { target: 'embedded', idleRssMb: 400, idleCpuPercent: 2, liveStreams: live(50, 100, 20) },
    ];
    const verdicts = judgeBenchTargets(rows, footprints, 32);
    const byStart = (text: string) => verdicts.find((v) => v.target.startsWith(text));
    expect(byStart('gateway alone CPU/req ≤ 2× floor, non-streamed')).toMatchObject({ met: true });
    expect(byStart('gateway alone CPU/req ≤ 2× floor, streamed')).toMatchObject({ met: false, figure: 'not measured' });
    expect(byStart('gateway alone pass-through')).toMatchObject({ met: false });
    expect(byStart('gateway alone added p50')?.met).toBe(true);
    expect(byStart('embedded CPU/req')?.met).toBe(false);
    expect(byStart('gateway alone idle CPU')?.met).toBe(true);
    expect(byStart('embedded idle CPU')?.met).toBe(false);
    expect(byStart('embedded idle RSS ≤ 350 MB')).toMatchObject({ met: false, figure: '400 MB' });
    expect(byStart('gateway alone idle RSS ≤ 150 MB')).toMatchObject({ met: true, figure: '120 MB' });
    // c=1 p99s are twice the p50s: direct 0.2, floor 0.8, gateway 1.0 ms → added 0.8 / 0.6 ms
    expect(byStart('gateway alone added p99 at c=1 ≤ 2×')).toMatchObject({ met: true, measured: true });
    expect(byStart('gateway alone added p99 at c=1')?.figure).toMatch(/^worst 1\.33× /);
    expect(byStart('gateway alone ≤ 30 KB')?.met).toBe(true);
    expect(byStart('embedded ≤ 30 KB')).toMatchObject({ met: false });
    expect(byStart('embedded ≤ 30 KB')?.figure).toContain('only 50 of 100 opened');
    expect(formatVerdicts(verdicts).split('\n')[0]).toMatch(/^MET {6}gateway alone/);
  });

  it('judges a live-stream figure that could not be measured NOT MEASURED, never MET or NOT MET', () => {
    const reason = 'only 1 of 50 streams opened within 40 s of the last request (fewer than 90 %)';
    const verdicts = judgeBenchTargets(
      rows,
      [{ target: 'gateway', idleRssMb: 120, idleCpuPercent: 0.2, liveStreams: live(1, 50, null, reason) }],
      32,
    );
    const gateway = verdicts.find((v) => v.target.startsWith('gateway alone ≤ 30 KB'));
    expect(gateway).toMatchObject({ met: false, measured: false, figure: `not measured: ${reason}` });
    expect(formatVerdicts(verdicts)).toContain(
      `NOT MEASURED  gateway alone ≤ 30 KB per live stream: not measured: ${reason}`,
    );
    expect(verdicts.find((v) => v.target.startsWith('embedded ≤ 30 KB'))).toMatchObject({
      measured: false,
      figure: 'not measured',
    });
    expect(verdicts.find((v) => v.target.startsWith('gateway alone ≤ 30 KB'))?.figure).not.toMatch(/-\d/);
    const table = formatFootprintTable([
      { target: 'gateway', idleRssMb: 120, idleCpuPercent: 0.2, liveStreams: live(1, 50, null, reason) },
    ]);
    expect(table).toContain('not measured');
    expect(table).toContain(`gateway alone: RSS per live stream not measured: ${reason}`);
  });

  it('judges live streams at what the open-file limit allows, when it allows fewer than asked for', () => {
    const capped = (reached: number): LiveStreamFootprint => ({
      ...live(reached, 10_000, 29.1),
      openFileCap: { streams: 9957, limit: 20_000, reason: 'limit' },
    });
    const verdictFor = (footprint: LiveStreamFootprint) =>
      judgeBenchTargets(
        rows,
        [{ target: 'gateway', idleRssMb: 120, idleCpuPercent: 0.2, liveStreams: footprint }],
        32,
      ).find((v) => v.target.startsWith('gateway alone ≤ 30 KB'));
    expect(verdictFor(capped(9957))).toMatchObject({
      met: true,
      figure: '29.1 KB/stream over 9957 open streams (10000 asked; the open-file limit of 20000 allows 9957)',
    });
    expect(verdictFor(capped(9950))).toMatchObject({
      met: false,
      figure: expect.stringMatching(/only 9950 of 9957 opened/),
    });
    expect(verdictFor(live(9957, 10_000, 29.1))).toMatchObject({ met: false });
  });

  it('puts peer rows in the same tables with ratios to the floor, and n/a peer cases in their place', () => {
    const portkey = peerBenchCase(shape('chat'), 'portkey', { 'x-portkey-provider': 'openai' });
    expect(portkey).toMatchObject({
      id: 'chat-portkey',
      label: 'chat→chat, non-streamed',
      baseline: 'chat-direct',
      path: '/v1/chat/completions',
    });
    expect(portkey.headers['x-portkey-provider']).toBe('openai');
    const peerRows = buildBenchRows([
      ...measurements,
      {
        ...measurement('mock', 'chat', 32, 1, 40),
        benchCase: portkey,
        load: {
          requests: 1000,
          elapsedS: 1,
          requestsPerSecond: 900,
          p50Ms: 2,
          p99Ms: 4,
          latenciesMs: new Float64Array(),
        },
        serverCpuUsPerRequest: 250,
      },
    ]);
    expect(peerRows.at(-1)).toMatchObject({
      target: 'portkey',
      addedP50Ms: 1,
      floorAddedP50Ms: 0.5,
      cpuRatioToFloor: 2.5,
    });
    const unmeasured: UnmeasuredRow[] = [1, 32].map((connections) => ({
      id: 'anthropic-portkey',
      label: 'anthropic→chat translated, non-streamed',
      target: 'portkey',
      shape: 'anthropic',
      connections,
      status: 'n/a',
      reason: 'not served',
    }));
    const text = formatBenchTables(peerRows, unmeasured);
    const loaded = text.split('\n\n')[0]?.split('\n') ?? [];
    expect(loaded.findIndex((l) => l.startsWith('Portkey  ') && l.includes('2.50×'))).toBeGreaterThan(
      loaded.findIndex((l) => l.startsWith('embedded')),
    );
    expect(loaded.at(-1)).toMatch(/^Portkey +anthropic→chat translated, non-streamed +n\/a$/);
    expect(formatUnmeasuredNotes(unmeasured)).toBe(
      '  Portkey: anthropic→chat translated, non-streamed (1 and 32 connections): n/a — not served',
    );
  });

  it('renders the README section and splices it between the markers', () => {
    const report: BenchReport = {
      generatedAt: '2026-01-02T03:04:05.000Z',
      machine: { cpus: 2, cpuModel: 'Test CPU', loadAverage1mAtStart: 0.5, loadAverage1mAtEnd: 0.7, node: 'v20.0.0' },
      settings: {
        durationS: 8,
        warmupS: 2,
        connections: 32,
        connectionLevels: [32, 1],
        liveStreams: 100,
        liveStreamChunkMs: 10_000,
        idleSettleS: 5,
        idleCpuWindowS: 10,
        pinning: 'not pinned',
      },
      rows,
      footprints: [{ target: 'floor', idleRssMb: 60, idleCpuPercent: 0, liveStreams: live(100, 100, 12.5) }],
      verdicts: [
        { target: 'a target', met: true, measured: true, figure: '1×' },
        { target: 'another', met: false, measured: false, figure: 'not measured: too few' },
      ],
      cpuProfile: [
        {
          shape: 'chat',
          label: 'chat→chat pass-through, non-streamed',
          floor: { requests: 100, totalUsPerRequest: 60, shares: [{ category: 'undici', usPerRequest: 10 }] },
          gateway: {
            requests: 100,
            totalUsPerRequest: 150,
            shares: [
              { category: 'undici', usPerRequest: 11 },
              { category: 'Tollgate: gateway/exchange', usPerRequest: 20 },
            ],
          },
        },
      ],
    };
    const section = renderReadmeBenchSection(report);
    // c=1: p99 = 2 × p50, so the gateway's added p99 is 1.0 − 0.2 ms and the floor's 0.8 − 0.2 ms.
    expect(section).toContain(
      '| gateway alone | chat→chat pass-through, non-streamed | 1 000 | 180 µs | 1.80× | +0.40 ms | +0.30 ms | +0.80 ms | +0.60 ms |',
    );
    expect(section).toContain('| **chat→chat pass-through, non-streamed** | **all** | **60** | **150** | **+90** |');
    expect(section).toContain(
      '| | Tollgate: gateway/exchange | 0.0 | 20.0 | +20.0 |\n| | undici | 10.0 | 11.0 | +1.0 |',
    );
    expect(section).toContain('| floor | 60 MB | 0.00 % of a core | 12.5 KB (100 streams) |');
    expect(section).toContain('not pinned; 2 s warm-up + 8 s per case;');
    const warmedSection = renderReadmeBenchSection({ ...report, settings: { ...report.settings, serverWarmupS: 5 } });
    expect(warmedSection).toContain('not pinned; each server first warmed with each of its cases for 5 s; 2 s warm-up');
    expect(section).toContain('- MET — a target: 1×');
    expect(section).toContain('- **NOT MEASURED** — another: not measured: too few');
    const readme = `intro\n${README_BENCH_BEGIN}\nold table\n${README_BENCH_END}\nafter\n`;
    expect(replaceReadmeBenchSection(readme, 'new')).toBe(
      `intro\n${README_BENCH_BEGIN}\nnew\n${README_BENCH_END}\nafter\n`,
    );
    expect(() => replaceReadmeBenchSection('no markers', 'new')).toThrow(/lacks/);
    expect(() => replaceReadmeBenchSection(`${README_BENCH_END}\n${README_BENCH_BEGIN}`, 'x')).toThrow(/before/);
  });
});

describe('RSS per live stream', () => {
  const counts = { requested: 50, sent: 50, failed: 0, openTimeoutMs: 40_000 };

  it('divides the RSS growth by the open streams when at least 90 % opened', () => {
    expect(
      liveStreamFigures({ ...counts, reached: 45, rssBeforeBytes: 100 * MB, rssOpenBytes: 100 * MB + 45 * 2048 }),
    ).toEqual({ kbPerStream: 2, kbPerHeldRequest: 1.8 });
  });

  it('reports no figure, with the reason, when fewer than 90 % of the streams opened', () => {
    const figures = liveStreamFigures({ ...counts, reached: 1, rssBeforeBytes: 100 * MB, rssOpenBytes: 101 * MB });
    expect(figures.kbPerStream).toBeNull();
    expect(figures.notMeasuredReason).toBe(
      'only 1 of 50 streams opened within 40 s of the last request (fewer than 90 %)',
    );
  });

  it('reports no figure, never a negative one, when the RSS fell or stayed while the streams were open', () => {
    const fell = liveStreamFigures({ ...counts, reached: 50, rssBeforeBytes: 366 * MB, rssOpenBytes: 188 * MB });
    expect(fell).toMatchObject({ kbPerStream: null, kbPerHeldRequest: null });
    expect(fell.notMeasuredReason).toMatch(/^RSS fell by 178\.0 MB with 50 streams open/);
    expect(
      liveStreamFigures({ ...counts, reached: 50, rssBeforeBytes: MB, rssOpenBytes: MB }).notMeasuredReason,
    ).toMatch(/^RSS did not grow/);
  });

  it('raises the open-file limit of a process for the streams asked for, when privileged, and never lowers it', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      await new Promise((resolve) => child.once('spawn', resolve));
      const before = processOpenFileLimit(pid) as number;
      raiseOpenFileLimit(pid, 1); // already enough: unchanged
      expect(processOpenFileLimit(pid)).toBe(before);
      raiseOpenFileLimit(pid, before); // needs 2 × before + its own + headroom
      const after = processOpenFileLimit(pid) as number;
      // Unchanged without CAP_SYS_RESOURCE (as on a container that drops it), else enough for the streams.
      expect(after === before || after >= 2 * before + FD_HEADROOM).toBe(true);
    } finally {
      child.kill();
    }
  });
});

describe('/proc parsing', () => {
  it('reads utime + stime (+ cutime + cstime) after a command name holding spaces and parentheses', () => {
    const line = '1234 (node (tsx) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 40 0 0 20 0 11 0 500 1000 2000';
    expect(parseStatCpuTicks(line)).toBe(290);
  });

  it('adds the CPU of ended children (cutime + cstime) to utime + stime', () => {
    const line = '1234 (node) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 40 30 7 20 0 11 0 500 1000 2000';
    expect(parseStatCpuTicks(line)).toBe(327);
  });

  it('reads VmRSS in bytes, 0 when absent', () => {
    expect(parseStatusRssBytes('Name:\tnode\nVmRSS:\t  2048 kB\n')).toBe(2048 * 1024);
    expect(parseStatusRssBytes('Name:\tnode\n')).toBe(0);
  });
});

describe('time to first token verdicts', () => {
  const row = (target: BenchTarget, shape: 'chat-stream' | 'anthropic-stream', addedP50Ms: number) => ({
    target,
    shape,
    label: `${shape} label`,
    requests: 200,
    p50Ms: 5.2 + addedP50Ms,
    addedP50Ms,
  });

  it("judges the worst shape against the floor's added time, and a missing floor as not measured", () => {
    const rows = [
      row('mock', 'chat-stream', 0),
      row('floor', 'chat-stream', 0.3),
      row('gateway', 'chat-stream', 0.4),
      row('embedded', 'chat-stream', 0.5),
      row('floor', 'anthropic-stream', 0.3),
      row('gateway', 'anthropic-stream', 0.6),
    ];
    const [gateway, embedded] = judgeTimeToFirstToken(rows);
    expect(gateway).toMatchObject({
      met: false,
      measured: true,
      figure: expect.stringContaining("worst +0.300 ms over the floor's (anthropic-stream label"),
    });
    expect(embedded).toMatchObject({ met: false, measured: true, figure: expect.stringContaining('+0.200 ms') });
    const within = judgeTimeToFirstToken([
      row('floor', 'chat-stream', 0.3),
      row('gateway', 'chat-stream', 0.2),
      row('embedded', 'chat-stream', 0.45),
    ]);
    expect(within.map((v) => v.met)).toEqual([true, true]);
    expect(within[0]?.figure).toContain('worst -0.100 ms');
    expect(judgeTimeToFirstToken([row('gateway', 'chat-stream', 0.2)]).map((v) => v.measured)).toEqual([false, false]);
    expect(formatTimeToFirstTokenTable(rows)).toContain('+0.400');
  });
});

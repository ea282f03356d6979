/** The scaling sweep's pure parts: ratio and spread arithmetic, verdicts, the table, the request bodies and the upstream's stream length. */
import { describe, expect, it } from 'vitest';
import { formatVerdicts } from '../../bench/format-bench-report.ts';
import {
  formatBodySize,
  formatScalingSweepTable,
  judgeScalingSweep,
  scalingRatio,
  scalingSpreads,
  type ScalingDimension,
  type ScalingPoint,
  type ScalingSweepReport,
} from '../../bench/format-scaling-sweep.ts';
import { chatBodyOfSize, streamedChatBody } from '../../bench/measure-scaling-sweep.ts';
import { requestedEvents, startScalingSweepUpstream } from '../../bench/scaling-sweep-upstream.ts';

const point = (dimension: ScalingDimension, label: string, floor: number, gateway: number): ScalingPoint => ({
  dimension,
  size: 1,
  label,
  requests: 1000,
  floorCpuUsPerRequest: floor,
  gatewayCpuUsPerRequest: gateway,
  ratio: scalingRatio(gateway, floor),
});

const report = (points: ScalingPoint[]): ScalingSweepReport => ({
  warmupRequests: 200,
  requests: 1000,
  connections: 8,
  points,
  spreads: scalingSpreads(points),
});

describe('scaling sweep arithmetic', () => {
  it('divides the gateway by the floor, and gives no ratio over a floor of 0', () => {
    expect(scalingRatio(300, 100)).toBe(3);
    expect(scalingRatio(300, 0)).toBeNull();
  });

  it('spreads each dimension as max ratio ÷ min ratio, MET at exactly 1.5 and NOT MET above', () => {
    const spreads = scalingSpreads([
      point('body-size', '1 KB', 100, 200), // 2
      point('body-size', '1 MB', 1000, 3000), // 3 → 1.5
      point('stream-events', '20 events', 100, 200), // 2
      point('stream-events', '2000 events', 100, 301), // 3.01 → 1.505
    ]);
    expect(spreads).toEqual([
      { dimension: 'body-size', spread: 1.5, met: true },
      { dimension: 'stream-events', spread: expect.closeTo(1.505, 6) as number, met: false },
    ]);
  });

  it('leaves a dimension with fewer than 2 ratios unjudged: NOT MEASURED, never MET', () => {
    const sweep = report([
      point('concurrent-streams', '1 streams', 0, 100),
      point('concurrent-streams', '100 streams', 50, 100),
    ]);
    expect(sweep.spreads).toEqual([{ dimension: 'concurrent-streams', spread: null, met: false }]);
    expect(formatVerdicts(judgeScalingSweep(sweep))).toMatch(
      /^NOT MEASURED {2}.*concurrent streams.*fewer than 2 points/,
    );
  });

  it('prints MET and NOT MET verdicts per dimension with the spread', () => {
    const sweep = report([
      point('body-size', '1 KB', 100, 200),
      point('body-size', '1 MB', 100, 250),
      point('stream-events', '20 events', 100, 200),
      point('stream-events', '2000 events', 100, 400),
    ]);
    const lines = formatVerdicts(judgeScalingSweep(sweep)).split('\n');
    expect(lines[0]).toMatch(/^MET {5}.*within 1\.5× across request body.*: spread 1\.25×/);
    expect(lines[1]).toMatch(/^NOT MET .*across stream length.*: spread 2\.00×/);
  });
});

describe('scaling sweep table', () => {
  it('shows each point with both CPU figures and the ratio, the spread and verdict under its dimension, and notes', () => {
    const points = [
      point('body-size', '1 KB', 120.4, 300.6),
      point('body-size', '1 MB', 900, 4500),
      { ...point('concurrent-streams', '9500 streams', 200, 500), note: '10000 asked; 9500 measured' },
      point('concurrent-streams', '1 streams', 200, 400),
    ];
    const lines = formatScalingSweepTable(report(points)).split('\n');
    expect(lines[0]).toMatch(/^dimension\s+point\s+requests\s+floor µs\/req\s+gateway µs\/req\s+× floor CPU$/);
    expect(lines[2]).toMatch(/^request body .*1 KB\s+1000\s+120\s+301\s+2\.50×$/);
    expect(lines[3]).toMatch(/1 MB\s+1000\s+900\s+4500\s+5\.00×$/);
    expect(lines[4]).toMatch(/spread\s+2\.00× NOT MET$/);
    expect(lines[7]).toMatch(/spread\s+1\.25× MET$/);
    expect(lines[8]).toBe('  9500 streams: 10000 asked; 9500 measured');
  });

  it('names body sizes in KB and MB of 1024', () => {
    expect([1024, 10 * 1024, 100 * 1024, 1024 * 1024, 500].map(formatBodySize)).toEqual([
      '1 KB',
      '10 KB',
      '100 KB',
      '1 MB',
      '500 B',
    ]);
  });
});

describe('scaling sweep requests and upstream', () => {
  it('builds chat bodies of exactly the asked size, and refuses a size below the smallest body', () => {
    for (const size of [1024, 10 * 1024, 100 * 1024, 1024 * 1024]) {
      const body = chatBodyOfSize(size);
      expect(Buffer.byteLength(body)).toBe(size);
      expect(JSON.parse(body)).toMatchObject({ messages: [{ role: 'user' }] });
    }
    expect(() => chatBodyOfSize(10)).toThrow(/cannot be 10 bytes/);
  });

  it('streams exactly the asked number of content events, then usage and [DONE]', async () => {
    const upstream = await startScalingSweepUpstream();
    try {
      const answer = await fetch(`${upstream.origin}/b/x/v1/chat/completions`, {
        method: 'POST',
        body: streamedChatBody(200),
      });
      const text = await answer.text();
      expect(answer.status).toBe(200);
      expect(text.match(/"content":" tok"/g)).toHaveLength(200);
      expect(text).toContain('"completion_tokens":200');
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
      const refused = await fetch(`${upstream.origin}/v1/chat/completions`, { method: 'POST', body: 'not json' });
      expect(refused.status).toBe(400);
    } finally {
      await upstream.close();
    }
  });

  it('reads the event count from the last user turn, bounded to 1 … 100000, 20 by default', () => {
    const body = (text: string) => ({ messages: [{ role: 'user', content: text }] });
    expect(requestedEvents(body('hi [sweep:events=2000]'))).toBe(2000);
    expect(requestedEvents(body('hi [sweep:events=0]'))).toBe(1);
    expect(requestedEvents(body('hi [sweep:events=9999999]'))).toBe(100_000);
    expect(requestedEvents(body('hi'))).toBe(20);
  });
});

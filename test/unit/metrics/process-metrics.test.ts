/**
 * The process metrics of every Tollgate process: the event loop's delay is still reported, and
 * sampling it no longer wakes an idle process a hundred times a second. Counted in a child process
 * (a fresh event loop with nothing else to do) as the voluntary context switches of its main
 * thread, each a return from waiting in epoll (Linux `/proc/self/status`,
 * https://man7.org/linux/man-pages/man5/proc_pid_status.5.html).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Idle time measured in the child, ms. */
const IDLE_MS = 2000;

describe('process metrics', () => {
  it.skipIf(!existsSync('/proc/self/status'))(
    'report the event loop delay and wake an idle process about ten times a second, not a hundred',
    () => {
      const script = `
      const { Registry } = await import('prom-client');
      const { collectProcessMetrics } = await import(${JSON.stringify(ROOT + 'schemas/metrics/collect-process-metrics.ts')});
      const { readFileSync } = await import('node:fs');
      const registry = new Registry();
      collectProcessMetrics(registry);
      const switches = () => Number(/voluntary_ctxt_switches:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = switches();
      await new Promise((resolve) => setTimeout(resolve, ${IDLE_MS}));
      const wakeUps = switches() - before;
      const metrics = await registry.getMetricsAsJSON();
      const p99 = metrics.find((metric) => metric.name === 'nodejs_eventloop_lag_p99_seconds');
      console.log(JSON.stringify({ wakeUps, p99: p99?.values?.[0]?.value }));
    `;
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      const result = JSON.parse(out.trim().split('\n').pop()!) as { wakeUps: number; p99: number | undefined };
      expect(result.p99).toBeTypeOf('number');
      // 20 samples in 2 s, plus the few wake-ups of the timer above; at 10 ms it was over 200.
      expect(result.wakeUps).toBeLessThan(80);
    },
    30_000,
  );
});

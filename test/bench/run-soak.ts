/**
 * The memory soak (`npm run bench -- --soak`, `npm run bench:soak`): the gateway as `npm start`
 * ships it, in a child process (spawn-soak-gateway.ts), under the soak's mixed traffic
 * (soak-traffic.ts: four client formats, streamed and not, clients aborting mid-stream and early,
 * on a key with RPM/TPM limits created through the admin API, so admission estimates every prompt's tokens,
 * stored Responses chains, token counts, malformed requests) against a hostile upstream
 * (soak-upstream.ts: errors, resets, cut, slow, stalled and garbage answers). Reads the child's
 * memory every 10 s, prints RSS and heap per minute, then the RSS growth from the end of the
 * warm-up (the first minute) to the end of the load against the target (< 10%), PASS or FAIL, and
 * RSS after 15 s idle. Writes every sample as JSON to `test-artifacts/bench/soak-latest.json`.
 *
 * Options (argv): `--soak-minutes N` (load duration, minutes > 1, default 30), `--soak-warmup-minutes N`
 * (default 1), `--soak-concurrency N` (requests in flight, default 32), `--soak-seed N` (default 1),
 * `--soak-heap-snapshots DIR` (V8 heap snapshots of the gateway at the end of warm-up and of the load),
 * `--soak-consumers off` (diagnosis only: no in-process consumers, hence no chdb, to tell their
 * memory from the gateway's; default `in-process`, as `npm start` ships).
 * Exit codes: 0 pass; 1 growth at or above the target, or the gateway failed; 2 invalid options.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import {
  formatSoakTable,
  formatSoakVerdict,
  minuteSamples,
  summarizeSoak,
  type SoakSample,
} from './format-soak-report.ts';
import { spawnSoakGateway, type SoakGateway } from './spawn-soak-gateway.ts';
import { buildSoakConfig, emptySoakTally, runSoakClients, type SoakTally } from './soak-traffic.ts';
import { SOAK_UPSTREAM_BEHAVIOURS, startSoakUpstream } from './soak-upstream.ts';

const REPORT_DIR = fileURLToPath(new URL('../../test-artifacts/bench/', import.meta.url));
const SAMPLE_EVERY_MS = 10_000;
const IDLE_AFTER_MS = 15_000;
const TARGET_PERCENT = 10;
/**
 * Cap of the in-process stored-Responses store in the soak, MiB (TOLLGATE_RESPONSE_STORE_MEMORY_MB;
 * shipped default 32). The store is bounded by design and fills at the rate the clients store answers:
 * at the default cap it would still be filling long after the warm-up and its fill would count as
 * growth. A small cap is reached within the warm-up, so what the soak measures afterwards is what
 * is not bounded, while eviction at the cap is exercised the whole time.
 */
const SOAK_RESPONSE_STORE_MIB = 2;

/** Raised for invalid soak options (exit code 2). */
export class SoakOptionsError extends Error {}

/** The soak's settings. Durations in minutes. */
export interface SoakSettings {
  readonly minutes: number;
  readonly warmupMinutes: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly heapSnapshotDir?: string;
  /** `in-process` (default, as shipped) or `off` (TOLLGATE_CONSUMERS=off: no consumers, no chdb). */
  readonly consumers: 'in-process' | 'off';
}

/** Reads `--soak-*` options from argv. @throws SoakOptionsError naming the option */
export function readSoakSettings(argv: ReadonlyArray<string>): SoakSettings {
  const value = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    if (at < 0) return argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
    const next = argv[at + 1];
    if (next === undefined || next.startsWith('--')) throw new SoakOptionsError(`${name}: expected a value`);
    return next;
  };
  const numberOf = (name: string, fallback: number, valid: (n: number) => boolean, rule: string): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (!Number.isFinite(parsed) || !valid(parsed))
      throw new SoakOptionsError(`${name}: expected ${rule}, got ${JSON.stringify(raw)}`);
    return parsed;
  };
  const warmupMinutes = numberOf('--soak-warmup-minutes', 1, (n) => n >= 0, 'minutes >= 0');
  const minutes = numberOf('--soak-minutes', 30, (n) => n > warmupMinutes, `minutes > the warm-up (${warmupMinutes})`);
  const snapshots = value('--soak-heap-snapshots');
  const consumers = value('--soak-consumers') ?? 'in-process';
  if (consumers !== 'in-process' && consumers !== 'off')
    throw new SoakOptionsError(`--soak-consumers: expected in-process or off, got ${JSON.stringify(consumers)}`);
  return {
    minutes,
    warmupMinutes,
    concurrency: numberOf('--soak-concurrency', 32, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
    seed: numberOf('--soak-seed', 1, (n) => Number.isInteger(n), 'an integer'),
    consumers,
    ...(snapshots ? { heapSnapshotDir: snapshots } : {}),
  };
}

const countsOf = (tally: SoakTally): SoakSample['counts'] => ({
  sent: tally.sent,
  status2xx: tally.status2xx,
  status4xx: tally.status4xx,
  status5xx: tally.status5xx,
  clientAborts: tally.clientAborts,
  transportErrors: tally.transportErrors,
});

async function snapshot(gateway: SoakGateway, settings: SoakSettings, label: string): Promise<void> {
  if (!settings.heapSnapshotDir) return;
  mkdirSync(settings.heapSnapshotDir, { recursive: true });
  const path = await gateway.heapSnapshot(join(settings.heapSnapshotDir, `soak-${label}-${Date.now()}.heapsnapshot`));
  process.stdout.write(`  heap snapshot (${label}): ${path}\n`);
}

/** Samples the gateway every 10 s while the clients run; prints each whole minute as it passes. */
async function sampleWhileLoaded(
  gateway: SoakGateway,
  settings: SoakSettings,
  tally: SoakTally,
  startedAt: number,
): Promise<SoakSample[]> {
  const samples: SoakSample[] = [];
  const durationMs = settings.minutes * 60_000;
  let snapshotTaken = false;
  let nextMinute = 0;
  for (;;) {
    const elapsedMs = performance.now() - startedAt;
    const sample: SoakSample = { elapsedMs, memory: await gateway.memory(), counts: countsOf(tally) };
    samples.push(sample);
    if (elapsedMs >= nextMinute) {
      process.stdout.write(
        `  ${(elapsedMs / 60_000).toFixed(1)} min: RSS ${(sample.memory.rssBytes / 1048576).toFixed(1)} MiB, heap used ${(sample.memory.heapUsedBytes / 1048576).toFixed(1)} MiB, ${tally.sent} requests\n`,
      );
      nextMinute = (Math.floor(elapsedMs / 60_000) + 1) * 60_000;
    }
    if (!snapshotTaken && elapsedMs >= settings.warmupMinutes * 60_000) {
      snapshotTaken = true;
      await snapshot(gateway, settings, 'warm');
    }
    if (elapsedMs >= durationMs) return samples;
    await new Promise((resolve) => setTimeout(resolve, Math.min(SAMPLE_EVERY_MS, durationMs - elapsedMs)));
  }
}

/**
 * Creates the key the clients use through the admin API: RPM and TPM limits high enough never to
 * refuse, so that every request goes through admission's token estimate as on a limited key.
 * @returns the key's secret. @throws Error when the admin API does not answer 200/201 with it
 */
async function createLimitedKey(origin: string, adminToken: string): Promise<string> {
  const answer = await request(`${origin}/admin/api/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'soak-limited', rpm: 100_000_000, tpm: 1_000_000_000 }),
  });
  const text = await answer.body.text();
  const apiKey = (JSON.parse(text) as { apiKey?: string }).apiKey;
  if ((answer.statusCode !== 200 && answer.statusCode !== 201) || !apiKey)
    throw new Error(`soak: creating the limited key answered ${answer.statusCode}: ${text.slice(0, 300)}`);
  return apiKey;
}

/** Runs the soak and prints its report. Resolves true when the growth stayed under the target. @throws Error when a server fails to start */
export async function runSoak(settings: SoakSettings): Promise<boolean> {
  process.stdout.write(
    `Tollgate memory soak: ${settings.minutes} min (warm-up ${settings.warmupMinutes} min), ${settings.concurrency} clients, seed ${settings.seed}, consumers ${settings.consumers}\n`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-soak-'));
  const upstream = await startSoakUpstream();
  let gateway: SoakGateway | undefined;
  try {
    const configPath = join(dataDir, 'soak-config.json');
    writeFileSync(configPath, JSON.stringify(buildSoakConfig(upstream.origin, SOAK_UPSTREAM_BEHAVIOURS)));
    const adminToken = randomBytes(24).toString('hex');
    gateway = await spawnSoakGateway({
      PORT: '0',
      HOST: '127.0.0.1',
      TOLLGATE_CONFIG: configPath,
      TOLLGATE_DATA_DIR: join(dataDir, 'data'),
      TOLLGATE_ADMIN_TOKEN: adminToken,
      TOLLGATE_RESPONSE_STORE_MEMORY_MB: String(SOAK_RESPONSE_STORE_MIB),
      ...(settings.consumers === 'off' ? { TOLLGATE_CONSUMERS: 'off' } : {}),
    });
    const key = await createLimitedKey(gateway.origin, adminToken);
    process.stdout.write(`  gateway pid ${gateway.pid} at ${gateway.origin}; upstream ${upstream.origin}\n`);
    const tally = emptySoakTally();
    const stop = new AbortController();
    const startedAt = performance.now();
    const clients = runSoakClients({
      origin: gateway.origin,
      concurrency: settings.concurrency,
      seed: settings.seed,
      stop: stop.signal,
      tally,
      key,
    });
    const samples = await sampleWhileLoaded(gateway, settings, tally, startedAt);
    stop.abort();
    await clients;
    await snapshot(gateway, settings, 'end');
    await new Promise((resolve) => setTimeout(resolve, IDLE_AFTER_MS));
    const idle = await gateway.memory();
    const summary = summarizeSoak(samples, settings.warmupMinutes * 60_000, TARGET_PERCENT);
    const rows = minuteSamples(samples);
    if (rows[rows.length - 1] !== samples[samples.length - 1]) rows.push(samples[samples.length - 1] as SoakSample);
    process.stdout.write(`\n${formatSoakTable(rows)}\n\n${formatSoakVerdict(summary)}\n`);
    process.stdout.write(
      `RSS ${IDLE_AFTER_MS / 1000} s after the load stopped: ${(idle.rssBytes / 1048576).toFixed(1)} MiB (heap used ${(idle.heapUsedBytes / 1048576).toFixed(1)} MiB)\n`,
    );
    process.stdout.write(
      `Requests: ${tally.sent} (${[...tally.byKind]
        .sort((a, b) => b[1] - a[1])
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ')}); upstream answers by behaviour: ${JSON.stringify(upstream.received)}\n`,
    );
    mkdirSync(REPORT_DIR, { recursive: true });
    writeFileSync(
      join(REPORT_DIR, 'soak-latest.json'),
      `${JSON.stringify({ generatedAt: new Date().toISOString(), settings, summary, idleAfterLoad: idle, samples }, null, 2)}\n`,
    );
    process.stdout.write('Written to test-artifacts/bench/soak-latest.json\n');
    return summary.pass;
  } catch (error) {
    if (gateway) process.stderr.write(`gateway output (tail):\n${gateway.outputTail().slice(-4000)}\n`);
    throw error;
  } finally {
    await gateway?.stop();
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

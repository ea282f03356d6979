/**
 * The peer-gateway side of `npm run bench:peers` (run-bench.ts --peers): install each peer (one
 * line when it cannot be), start the installed ones next to Tollgate's servers, say which bench
 * cases each one runs and which it cannot serve, and stop them. A peer's failure never aborts the
 * bench: it becomes a line and `not run` or `failed` rows.
 */
import type { BenchShape } from '../bench-cases.ts';
import type { PeerGatewayReport, UnmeasuredRow } from '../format-bench-report.ts';
import { peerBenchCase, type PeerBenchCase, type PeerTarget } from './peer-cases.ts';
import type { InstalledPeer, PeerGateway, PeerStartOptions, StartedPeer } from './peer-gateways.ts';

/** A peer after its install and start-up: running (`started`), or not with the reason. */
export interface PeerRun {
  readonly gateway: PeerGateway;
  readonly installed?: InstalledPeer;
  readonly started?: StartedPeer;
  /** Why it is not running: `install failed` or `start failed`, with the error. */
  readonly failure?: { readonly status: 'install failed' | 'start failed'; readonly error: string };
}

/** Writes progress lines (stdout in the bench). */
export type ProgressWriter = (text: string) => void;

const message = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();

/**
 * Installs every peer in turn (or reuses its cached install), one progress line each.
 * Never throws: a failed install is returned as a PeerRun with its failure.
 */
export async function installPeers(gateways: ReadonlyArray<PeerGateway>, write: ProgressWriter): Promise<PeerRun[]> {
  const runs: PeerRun[] = [];
  for (const gateway of gateways) {
    write(`Peer ${gateway.name} ${gateway.version}: installing ${gateway.spec} … `);
    try {
      const installed = await gateway.install();
      write(`${installed.cached ? 'cached' : `installed in ${installed.installSeconds} s`} (${installed.dir})\n`);
      runs.push({ gateway, installed });
    } catch (error) {
      write(`could not be installed: ${message(error)}\n`);
      runs.push({ gateway, failure: { status: 'install failed', error: message(error) } });
    }
  }
  return runs;
}

/**
 * Starts every installed peer in turn on a free port, one line for each that does not start.
 * Never throws: a peer that does not start is returned with its failure.
 */
export async function startPeers(
  runs: ReadonlyArray<PeerRun>,
  options: PeerStartOptions,
  write: ProgressWriter,
): Promise<PeerRun[]> {
  const started: PeerRun[] = [];
  for (const run of runs) {
    if (!run.installed) {
      started.push(run);
      continue;
    }
    try {
      started.push({ ...run, started: await run.gateway.start(run.installed, options) });
    } catch (error) {
      write(`Peer ${run.gateway.name} ${run.gateway.version} did not start: ${message(error)}\n`);
      started.push({ ...run, failure: { status: 'start failed', error: message(error) } });
    }
  }
  return started;
}

/** Stops every running peer (SIGTERM, SIGKILL after 10 s), all at once. */
export async function stopPeers(runs: ReadonlyArray<PeerRun>): Promise<void> {
  await Promise.all(runs.map(async (run) => run.started?.stop()));
}

/** What a peer does with one shape: a case to measure, or a row without figures and the reason. */
export type PeerCaseEntry =
  { readonly benchCase: PeerBenchCase } | { readonly unmeasured: Omit<UnmeasuredRow, 'connections'> };

/**
 * For `shape`, per peer in run order: the case to send when it runs and serves the shape; else an
 * `n/a` row (the peer cannot serve it against an OpenAI-compatible upstream) or a `not run` row
 * (install or start-up failed), with the reason.
 */
export function peerCaseEntries(shape: BenchShape, runs: ReadonlyArray<PeerRun>, mockOrigin: string): PeerCaseEntry[] {
  return runs.map((run): PeerCaseEntry => {
    const benchCase = peerBenchCase(shape, run.gateway.target, run.gateway.extraHeaders(mockOrigin));
    const row = { id: benchCase.id, label: benchCase.label, target: run.gateway.target, shape: shape.id };
    const notServed = run.gateway.notServed[shape.id];
    if (notServed !== undefined) return { unmeasured: { ...row, status: 'n/a', reason: notServed } };
    if (run.failure)
      return {
        unmeasured: {
          ...row,
          status: 'not run',
          reason: `${run.gateway.name} ${run.failure.status}: ${run.failure.error}`,
        },
      };
    return { benchCase };
  });
}

/** The reason a peer case failed, with how its process ended when it did. */
export function peerFailureReason(run: PeerRun | undefined, error: unknown): string {
  const exited = run?.started?.exitDescription();
  const text = message(error);
  return `${text.length > 400 ? `${text.slice(0, 400)}…` : text}${exited ? ` (${run?.gateway.name} ${exited})` : ''}`;
}

/** The report's description of each peer. */
export function peerGatewayReports(runs: ReadonlyArray<PeerRun>): PeerGatewayReport[] {
  return runs.map((run) => ({
    target: run.gateway.target,
    name: run.gateway.name,
    version: run.gateway.version,
    spec: run.gateway.spec,
    status: run.failure?.status ?? 'measured',
    ...(run.failure ? { error: run.failure.error } : {}),
    ...(run.installed ? { installDir: run.installed.dir, cached: run.installed.cached } : {}),
    notes: run.gateway.notes,
  }));
}

/** The running peers by target, as bench servers (PID and origin). */
export function runningPeerServers(
  runs: ReadonlyArray<PeerRun>,
): Partial<Record<PeerTarget, { pid: number; origin: string }>> {
  const servers: Partial<Record<PeerTarget, { pid: number; origin: string }>> = {};
  for (const run of runs)
    if (run.started) servers[run.gateway.target] = { pid: run.started.pid, origin: run.started.origin };
  return servers;
}

/**
 * The entries as an operator starts them drain on a SIGTERM to their process group (Ctrl-C, systemd's
 * default, most supervisors): `npm start` and `npm run consumers` exactly as the README runs them,
 * and the image's commands `node dist/infra/processes/tollgate-server.js` and
 * `node dist/infra/processes/tollgate-consumers.js` after `npm run build` (built once into a temporary directory). Each
 * runs as its own process group (`detached`) and gets `process.kill(-pid, 'SIGTERM')`:
 * - the gateway, embedded, with a slow stream of the `mock` provider in flight: the stream ends with
 *   `data: [DONE]`, the started process (npm itself, or node) exits 0 and only after the stream
 *   ended, the request is recorded once in the embedded event log;
 * - the consumers, on the run's Kafka, ClickHouse and Redis, under steady traffic and with batches
 *   of one event (so there is always a batch in hand): the process exits 0 after
 *   `shutdown: complete`, and the ledger's committed offsets cover exactly the rows it inserted
 *   (nothing inserted and left uncommitted, nothing committed and not inserted).
 * Under npm the group's signal can reach node twice (from the sender and npm's forward; the kernel
 * merges them when the second arrives before the first was taken): never a "second signal".
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFileEventLog } from '../../../infra/event-log/file/file-event-log.ts';
import { decodeTrafficEvent } from '../../../schemas/events/traffic-event-codec.ts';
import type { TrafficEvent } from '../../../schemas/events/traffic-events.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { withoutEngines } from '../../support/engines.ts';
import { freePort } from '../../support/free-port.ts';
import {
  engineEnvironment,
  isolatedEngineSettings,
  startTestSystem,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import { withoutEngineVariables } from '../../support/spawn-gateway.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const API_KEY = 'sk-entries-drain-0001';
/** The mock's delay before each stream frame, ms: a dozen frames, about 2.5 s of stream after the signal. */
const CHUNK_DELAY_MS = 200;
const PROMPT = 'tell me a long story about a toll gate on a mountain road at night';

/** `npm run build` into OUT_DIR inside the repository (node_modules must resolve from it). */
let distDir = '';

/** A started entry: its own process group, led by the spawned process. */
interface GroupLeader {
  readonly pid: number;
  output(): string;
  /** The spawned process's exit, and when the test saw it (performance.now()). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

const started: GroupLeader[] = [];

/** Spawns `command args` as the leader of a new process group (https://nodejs.org/api/child_process.html#optionsdetached). */
function startGroup(command: string, args: readonly string[], env: NodeJS.ProcessEnv): GroupLeader {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const leader = { pid: child.pid!, output: () => output, exited };
  started.push(leader);
  return leader;
}

/** SIGKILL to what is left of every group this test started (a failed case). */
function killLeftovers(): void {
  for (const leader of started.splice(0)) {
    try {
      process.kill(-leader.pid, 'SIGKILL');
    } catch {
      // the group is gone
    }
  }
}

async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  leader: GroupLeader,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms; output:\n${leader.output()}`);
}

/** RequestCompleted events of `requestId` the stopped gateway left in its embedded event log. */
async function completedRecords(dataDir: string, requestId: string): Promise<TrafficEvent[]> {
  const log = createFileEventLog({ dataDir, pollIntervalMs: 20 });
  const events: TrafficEvent[] = [];
  const subscription = await log.subscribe({
    groupId: 'entries-drain-reader',
    topics: [TOPICS.requests],
    handleBatch: async (records) => void events.push(...records.map((record) => decodeTrafficEvent(record.value))),
  });
  const mine = (): TrafficEvent[] =>
    events.filter((e) => e.type === 'RequestCompleted' && e.event.requestId === requestId);
  try {
    await expect.poll(() => mine().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    // Anything recorded twice would be in the log already: the process has exited.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    await subscription.stop();
    await log.close();
  }
  return mine();
}

beforeAll(async () => {
  mkdirSync(join(ROOT, '.tollgate'), { recursive: true });
  distDir = mkdtempSync(join(ROOT, '.tollgate', 'dist-test-'));
  const build = spawn('npm', ['run', '-s', 'build', '--', distDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  build.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  build.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => build.once('exit', resolve));
  // Type errors are `npm test`'s first step (tsc --noEmit); here the emitted entries must exist.
  for (const entry of [
    'infra/processes/tollgate-server.js',
    'infra/processes/consumer-thread-worker.js',
    'infra/processes/tollgate-consumers.js',
    'schemas/analytics/migrations',
    'gateway/console/web/index.html',
  ]) {
    expect(existsSync(join(distDir, entry)), `${entry} in the build:\n${output}`).toBe(true);
  }
}, 120_000);

afterEach(killLeftovers);

afterAll(() => {
  killLeftovers();
  if (distDir) rmSync(distDir, { recursive: true, force: true });
});

/** How each entry is started: as the README says, and as the image's CMD runs it. */
const GATEWAY_ENTRIES = [
  { entry: 'npm start', command: 'npm', args: () => ['start'], viaNpm: true },
  {
    entry: 'node dist/infra/processes/tollgate-server.js',
    command: process.execPath,
    args: () => [join(distDir, 'infra/processes/tollgate-server.js')],
    viaNpm: false,
  },
];

describe.each(GATEWAY_ENTRIES)('$entry on a SIGTERM to its process group', ({ command, args, viaNpm }) => {
  it('finishes the stream in flight with its terminator, records it once, and exits 0 after the stream ended', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-entries-drain-'));
    const configPath = join(dataDir, 'tollgate.json');
    const channel = {
      id: 'slow-mock',
      provider: 'mock',
      protocol: 'openai-chat',
      models: ['slow'],
      mock: { chunkDelayMs: CHUNK_DELAY_MS },
    };
    writeFileSync(configPath, JSON.stringify({ channels: [channel], keys: [{ name: 'drain', key: API_KEY }] }));
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = {
      ...withoutEngineVariables(process.env, ['TOLLGATE_ADMIN_USER', 'TOLLGATE_ADMIN_PASSWORD']),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      TOLLGATE_DATA_DIR: dataDir,
      TOLLGATE_CONFIG: configPath,
    };
    const gateway = startGroup(command, args(), env);
    await waitFor('/readyz 200', async () => (await fetch(`${origin}/readyz`)).status === 200, gateway);
    if (!viaNpm)
      expect((await fetch(`${origin}/console/assets/app.js`)).status, "the console's web files are in the build").toBe(
        200,
      );

    const response = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow', stream: true, messages: [{ role: 'user', content: PROMPT }] }),
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? '';
    expect(text).toContain('data: ');

    process.kill(-gateway.pid, 'SIGTERM');
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) text += read.value;
    } catch (error) {
      await Promise.race([gateway.exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      throw new Error(
        `the stream broke (${(error as Error).message}) after:\n${text.slice(-300)}\ngateway output:\n${gateway.output()}`,
        { cause: error },
      );
    }
    const streamEndedAt = performance.now();

    expect(text.trimEnd().endsWith('data: [DONE]'), `the stream's end:\n${text.slice(-300)}`).toBe(true);
    expect(text).toContain('"finish_reason":"stop"');
    const exit = await gateway.exited;
    expect(exit, gateway.output()).toMatchObject({ code: 0, signal: null });
    expect(exit.at).toBeGreaterThanOrEqual(streamEndedAt);
    expect(gateway.output()).toContain('shutdown: complete');
    expect(gateway.output()).not.toContain('second signal');

    const records = await completedRecords(dataDir, requestId!);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ event: { status: 'completed', stream: true } });
  }, 90_000);
});

const CONSUMER_ENTRIES = [
  { entry: 'npm run consumers', command: 'npm', args: () => ['run', 'consumers'] },
  {
    entry: 'node dist/infra/processes/tollgate-consumers.js',
    command: process.execPath,
    args: () => [join(distDir, 'infra/processes/tollgate-consumers.js')],
  },
];

describe.skipIf(withoutEngines).each(CONSUMER_ENTRIES)(
  '$entry on a SIGTERM to its process group (Kafka, ClickHouse, Redis)',
  ({ command, args }) => {
    let system: TestSystem | undefined;
    afterEach(async () => {
      await system?.close();
      system = undefined;
    }, 60_000);

    it('finishes the batch in hand, commits it, and exits 0', async () => {
      const settings = await isolatedEngineSettings('production');
      system = await startTestSystem({
        settings,
        channels: [{ id: 'steady', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] }],
        prices: [],
        consumers: false,
      });
      const origin = system.origin;
      // Traffic the whole time: with batches of one event the consumers always hold a batch.
      let sending = true;
      let sent = 0;
      let trafficError: unknown;
      const traffic = (async () => {
        while (sending) {
          const reply = await fetch(`${origin}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'chat-model', messages: [{ role: 'user', content: `request ${sent}` }] }),
          });
          expect(reply.status).toBe(200);
          await reply.arrayBuffer();
          sent += 1;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })().catch((error: unknown) => void (trafficError = error));
      const env = {
        ...process.env,
        ...engineEnvironment(settings),
        LOG_LEVEL: 'info',
        TOLLGATE_LOG_FORMAT: 'json',
        TOLLGATE_METRICS_PORT: 'off',
        TOLLGATE_CONSUMER_BATCH_SIZE: '1',
        TOLLGATE_CONSUMER_BATCH_WAIT_MS: '0',
      };
      const consumers = startGroup(command, args(), env);
      const analytics = system.analytics;
      const rows = async (): Promise<number> =>
        Number(
          (await analytics.query<{ n: string }>('SELECT toString(count()) AS n FROM consumption_log FINAL'))[0]?.n ?? 0,
        );
      await waitFor('consumers running', () => consumers.output().includes('consumers running'), consumers);
      await waitFor('rows in consumption_log', async () => (await rows()) >= 5, consumers);

      process.kill(-consumers.pid, 'SIGTERM');
      const exit = await consumers.exited;
      sending = false;
      await traffic;
      expect(trafficError).toBeUndefined();
      expect(exit, consumers.output()).toMatchObject({ code: 0, signal: null });
      expect(consumers.output()).toContain('shutdown: complete');
      expect(consumers.output()).not.toContain('second signal');

      // Every RequestCompleted up to the ledger's committed offsets is a row, and no row lies beyond them.
      const committed = await system.eventLog.committedOffsets!('tollgate.ledger', TOPICS.requests);
      const committedCount = committed.reduce((sum, partition) => sum + Number(partition.offset), 0);
      expect(committedCount).toBeGreaterThanOrEqual(5);
      expect(await rows()).toBe(committedCount);
      expect(sent).toBeGreaterThan(committedCount);
    }, 90_000);
  },
);

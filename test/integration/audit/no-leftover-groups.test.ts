/**
 * Readers leave nothing behind, on both engine sets (embedded: the file log in a temp data dir;
 * production: Kafka under a topic prefix of its own): `tollgate events --follow` run as operators
 * run it (`npm run tollgate`, in a process group of its own) and stopped by SIGINT or SIGTERM to
 * the whole group, and a gateway node (its config follower) started and stopped, leave no Kafka
 * consumer group and no offsets folder. On Kafka, a gateway killed with SIGKILL leaves its
 * follower's empty throwaway group only until the next reader starts after the dead member's
 * session expired.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { openEventLog, type EngineSettings } from '../../../infra/open-adapters.ts';
import {
  engineEnvironment,
  eventually,
  isolatedEngineSettings,
  ENGINE_SETS,
  type EngineSet,
} from '../../support/pipeline-harness.ts';
import { spawnGateway, withoutEngineVariables } from '../../support/spawn-gateway.ts';
import { leftoverGroups, publishTraffic, requestCompleted, runCommand } from './audit-traffic.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Every consumer group (Kafka) or offsets folder (file log) of this run's deployment. */
async function everyGroup(settings: EngineSettings): Promise<string[]> {
  const folders = await readdir(join(settings.dataDir, 'offsets')).catch(() => []);
  return settings.kafkaBrokers ? leftoverGroups(settings, '') : folders;
}

/** Resolves once no process of group `pgid` is left (npm may exit before the command finished cleaning up). */
async function groupGone(pgid: number, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** A gateway's environment on this run's event log only (no Redis or ClickHouse: not needed for the follower). */
function gatewayEnvironment(settings: EngineSettings): NodeJS.ProcessEnv {
  const {
    redisUrl: _redis,
    clickhouseUrl: _clickhouse,
    clickhouseDatabase: _database,
    redisKeyPrefix: _keys,
    ...eventLogOnly
  } = settings;
  const secrets = {
    TOLLGATE_MASTER_KEY: randomBytes(32).toString('base64'),
    TOLLGATE_KEY_HMAC_SECRET: randomBytes(32).toString('base64'),
  };
  return {
    ...withoutEngineVariables(process.env, ['TOLLGATE_ADMIN_USER', 'TOLLGATE_ADMIN_PASSWORD', 'TOLLGATE_TOPIC_PREFIX']),
    ...engineEnvironment(eventLogOnly),
    ...(settings.kafkaBrokers ? secrets : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
}

/** `npm run tollgate -- <args>` in a new process group; resolves once `ready` matched a stdout line. */
async function startTollgate(
  settings: EngineSettings,
  args: string[],
  ready: RegExp,
): Promise<{ pid: number; exited: Promise<number | null>; output: () => string }> {
  const env = {
    ...withoutEngineVariables(process.env, ['TOLLGATE_TOPIC_PREFIX', 'CLICKHOUSE_DATABASE']),
    ...engineEnvironment(settings),
  };
  const child = spawn('npm', ['run', '-s', 'tollgate', '--', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line matching ${ready} within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    void exited.then(() => reject(new Error(`exited before ready:\n${output}`)));
  });
  return { pid: child.pid ?? -1, exited, output: () => output };
}

describe.each<EngineSet>(ENGINE_SETS)('no consumer group or offsets folder left behind on %s engines', (engines) => {
  let settings: EngineSettings;
  let log: EventLog;

  beforeAll(async () => {
    settings = await isolatedEngineSettings(engines);
    log = openEventLog(settings);
    publishTraffic(log, [
      requestCompleted({ requestId: 'req-1', keyId: 'key-a', occurredAt: Date.parse('2025-03-01T10:00:00Z') }),
    ]);
    await log.flush();
  }, 60_000);

  afterAll(async () => {
    await log?.close();
  });

  it('after events, and events --follow', async () => {
    expect((await runCommand(settings, ['events'])).code).toBe(0);
    const stop = new AbortController();
    const following = runCommand(settings, ['events', '--follow'], stop.signal, () => stop.abort());
    expect((await following).code).toBe(0);
    expect(await everyGroup(settings)).toEqual([]);
  }, 60_000);

  it.each<NodeJS.Signals>(['SIGINT', 'SIGTERM'])(
    'after events --follow (npm run tollgate) stopped by %s to its process group',
    async (signal) => {
      const run = await startTollgate(settings, ['events', '--follow', '--topic', 'requests'], /"rc-req-1"/);
      // The terminal signals the whole group, and npm forwards the signal to its child once more right behind it.
      process.kill(-run.pid, signal);
      await new Promise((resolve) => setTimeout(resolve, 50));
      try {
        process.kill(-run.pid, signal);
      } catch {
        // the group is gone already
      }
      await run.exited;
      expect(await groupGone(run.pid), run.output()).toBe(true);
      expect(await everyGroup(settings), run.output()).toEqual([]);
    },
    90_000,
  );

  it('after a gateway node started and stopped (its config follower)', async () => {
    const gateway = await spawnGateway(gatewayEnvironment(settings), 60_000);
    expect((await fetch(`${gateway.origin}/readyz`)).status).toBe(200);
    if (settings.kafkaBrokers) expect((await leftoverGroups(settings, 'tollgate.config.')).length).toBe(1);
    await gateway.stop();
    expect((await gateway.exited).code).toBe(0);
    // Embedded mode runs the consumers in the gateway process: their groups are meant to stay.
    expect((await everyGroup(settings)).filter((group) => group.includes('tollgate.config.'))).toEqual([]);
  }, 90_000);

  it.skipIf(engines === 'embedded')(
    'after a gateway node killed with SIGKILL: its empty group goes once the session expired and a reader starts',
    async () => {
      const gateway = await spawnGateway(gatewayEnvironment(settings), 60_000);
      gateway.kill('SIGKILL');
      await gateway.exited;
      expect(await leftoverGroups(settings, 'tollgate.config.')).toHaveLength(1);
      // The dead member holds the group until its session times out (10 s); any reader's start then deletes it.
      await eventually(
        async () => {
          await runCommand(settings, ['events', '--topic', 'requests']);
          return leftoverGroups(settings, 'tollgate.');
        },
        [],
        40_000,
      );
    },
    90_000,
  );
});

/**
 * The CLI end to end: the real `tollgate` script spawned as a child process, talking HTTP to an
 * in-process gateway app whose admin routes append through a real control-plane node on real
 * Kafka (KAFKA_BROKERS, unique topic prefix per run). A second node with its own Kafka client
 * and projection stands for another gateway: what the CLI does on one must reach it within a
 * second. Checks that stdout's last line is the key alone, that only its digest is stored, and
 * the exit codes of usage (2) and API (1) errors.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAdminRoutes } from '../../../gateway/control-plane/admin-routes.ts';
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import type { ConfigFollower } from '../../../schemas/control-plane/config-follower.ts';
import { startConfigFollower } from '../../../infra/control-plane/config-follower.ts';
import { digestApiKey } from '../../../gateway/control-plane/key-material.ts';
import { installClientErrorHandlers } from '../../../gateway/http/client-error-handler.ts';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { silentLogger } from '../../../schemas/event-log/event-log-logger.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import { withTopicPrefix } from '../../../infra/event-log/prefixed-event-log.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';

const ADMIN_TOKEN = `it-admin-${randomBytes(8).toString('hex')}`;
const MASTER_KEY = randomBytes(32);
const HMAC_SECRET = randomBytes(32);
const CLI = join(import.meta.dirname, '../../../infra/processes/tollgate-cli.ts');
const KEY_PATTERN = /^sk-[a-z2-7]{12}-[0-9A-Za-z]{32}$/;

interface Node {
  readonly log: EventLog;
  readonly projection: ControlPlaneProjection;
  readonly node: ConfigFollower;
}

const spoolDir = mkdtempSync(join(tmpdir(), 'tollgate-admin-it-'));
const nodes: Node[] = [];
let app: FastifyInstance;
let origin: string;

/** One gateway node's control plane: its own Kafka client, projection and config follower. */
async function startNode(brokers: string, prefix: string, name: string): Promise<Node> {
  const log = withTopicPrefix(
    createKafkaEventLog({ brokers: brokers.split(','), spoolDir: join(spoolDir, name), clientId: `admin-it-${name}` }),
    prefix,
  );
  const projection = new ControlPlaneProjection(MASTER_KEY);
  const node = await startConfigFollower({ eventLog: log, projection, log: silentLogger });
  const started = { log, projection, node };
  nodes.push(started);
  await node.ready();
  return started;
}

beforeAll(async () => {
  const brokers = await requireEngineUrl('KAFKA_BROKERS');
  const prefix = `admin-it-${randomBytes(6).toString('hex')}.`;
  const a = await startNode(brokers, prefix, 'a');
  await startNode(brokers, prefix, 'b');
  app = Fastify({ logger: false });
  installClientErrorHandlers(app, 1024 * 1024);
  registerAdminRoutes(app, {
    view: a.projection,
    append: (events) => a.node.append(events),
    secrets: { masterKey: MASTER_KEY, hmacSecret: HMAC_SECRET },
    adminToken: ADMIN_TOKEN,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await app?.close();
  for (const { node, log } of nodes) {
    await node.stop();
    await log.close();
  }
  rmSync(spoolDir, { recursive: true, force: true });
});

/** Spawns `node --import tsx infra/processes/tollgate-cli.ts …args`; `input` goes to stdin. */
function tollgate(args: string[], input = ''): Promise<{ code: number | null; stdout: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, TOLLGATE_URL: origin, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: stdout.trimEnd().split('\n'), stderr }));
    child.stdin.end(input);
  });
}

/** Polls `predicate` every 10 ms; returns the elapsed ms, or throws after `timeoutMs`. */
async function within(timeoutMs: number, predicate: () => boolean): Promise<number> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - start;
}

describe.skipIf(withoutEngines)('tollgate CLI against a gateway on Kafka', () => {
  it('creates a key (the key alone on the last line), and another node sees it, then its revocation, within a second', async () => {
    const [a, b] = nodes as [Node, Node];
    const user = await tollgate(['users', 'create', '--name', 'Ada', '--quota', '100']);
    expect(user.code).toBe(0);
    const userId = /^created user (usr_[0-9a-f]+)$/.exec(user.stdout[0]!)![1]!;

    const created = await tollgate([
      'keys',
      'create',
      '--name',
      'ci',
      '--user',
      userId,
      '--rpm',
      '60',
      '--tpm',
      '50000',
      '--quota',
      '2.5',
      '--expires',
      '2099-12-31T23:59:59Z',
      '--models',
      'gpt-x,claude-y',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.at(-1)!;
    expect(key).toMatch(KEY_PATTERN);
    const digest = digestApiKey(HMAC_SECRET, key);
    const onA = a.projection.keyByDigest(digest);
    expect(onA).toMatchObject({
      name: 'ci',
      userId,
      rpm: 60,
      tpm: 50000,
      quotaNanoUsd: 2_500_000_000n,
      expiresAt: Date.parse('2099-12-31T23:59:59Z'),
      models: new Set(['gpt-x', 'claude-y']),
      enabled: true,
      revokedAt: null,
    });
    await within(1000, () => b.projection.keyByDigest(digest) !== undefined);

    const list = await tollgate(['keys', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout.join('\n')).toContain(onA!.keyId);
    expect(list.stdout.join('\n')).not.toContain(key.slice(16));
    expect(list.stdout.join('\n')).not.toContain(digest);

    const revoked = await tollgate(['keys', 'revoke', onA!.keyId, '--reason', 'leaked']);
    expect(revoked.code, revoked.stderr).toBe(0);
    const elapsed = await within(1000, () => b.projection.keyByDigest(digest)?.revokedAt !== null);
    expect(elapsed).toBeLessThan(1000);
    expect(b.projection.keyByDigest(digest)!.revokedAt).toBeLessThanOrEqual(Date.now());
  });

  it('rotates with a grace period and prints the new key last', async () => {
    const [, b] = nodes as [Node, Node];
    const created = await tollgate(['keys', 'create', '--name', 'svc']);
    const oldKey = created.stdout.at(-1)!;
    const old = b.projection;
    await within(1000, () => old.keyByDigest(digestApiKey(HMAC_SECRET, oldKey)) !== undefined);
    const oldId = old.keyByDigest(digestApiKey(HMAC_SECRET, oldKey))!.keyId;
    const before = Date.now();
    const rotated = await tollgate(['keys', 'rotate', oldId, '--grace', '300']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKey = rotated.stdout.at(-1)!;
    expect(newKey).toMatch(KEY_PATTERN);
    await within(
      1000,
      () =>
        b.projection.keyByDigest(digestApiKey(HMAC_SECRET, newKey)) !== undefined &&
        b.projection.key(oldId)!.revokedAt !== null,
    );
    expect(b.projection.key(oldId)!.revokedAt).toBeGreaterThanOrEqual(before + 300_000);
    expect(b.projection.keyByDigest(digestApiKey(HMAC_SECRET, newKey))).toMatchObject({ name: 'svc', revokedAt: null });
  });

  it('upserts a channel with the credential read from stdin; the other node decrypts it', async () => {
    const [, b] = nodes as [Node, Node];
    const upsert = await tollgate(
      [
        'channels',
        'upsert',
        'ds-it',
        '--provider',
        'deepseek',
        '--api-key',
        '-',
        '--models',
        'deepseek-chat',
        '--rpm',
        '100',
      ],
      'sk-upstream-from-stdin\n',
    );
    expect(upsert.code, upsert.stderr).toBe(0);
    expect(upsert.stdout.join('\n')).not.toContain('sk-upstream-from-stdin');
    await within(1000, () => b.projection.channels().some((c) => c.config.id === 'ds-it'));
    expect(b.projection.channels().find((c) => c.config.id === 'ds-it')).toMatchObject({
      config: { apiKey: 'sk-upstream-from-stdin', provider: 'deepseek' },
      rpm: 100,
    });
  });

  it('manages a team, its members, a service key, a budget and an alert webhook; the other node folds them', async () => {
    const [, b] = nodes as [Node, Node];
    const user = await tollgate(['users', 'create', '--name', 'Grace']);
    const userId = /^created user (usr_[0-9a-f]+)$/.exec(user.stdout[0]!)![1]!;
    const team = await tollgate([
      'teams',
      'create',
      '--name',
      'Search',
      '--rpd',
      '1000',
      '--models',
      'gpt-x,gpt-y',
      '--tag',
      'project=search',
      '--model-limit',
      'gpt-x:rpm=10,tpd=5000',
    ]);
    expect(team.code, team.stderr).toBe(0);
    const teamId = /^created team (team_[0-9a-f]+)$/.exec(team.stdout[0]!)![1]!;
    const member = await tollgate(['teams', 'add-member', teamId, userId, '--role', 'team_admin']);
    expect(member.code, member.stderr).toBe(0);
    expect(member.stdout.join('\n')).toContain(`${userId}:team_admin`);

    const key = await tollgate([
      'keys',
      'create',
      '--name',
      'svc',
      '--team',
      teamId,
      '--models',
      'gpt-x',
      '--tag',
      'feature=chat',
      '--tag',
      'env=prod',
      '--tpd',
      '99',
    ]);
    expect(key.code, key.stderr).toBe(0);
    const digest = digestApiKey(HMAC_SECRET, key.stdout.at(-1)!);
    const outside = await tollgate(['keys', 'create', '--name', 'bad', '--team', teamId, '--models', 'gpt-z']);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toBe(
      `error: models: 'gpt-z' is not among the models of team '${teamId}' (field: models) [HTTP 400]\n`,
    );

    const budget = await tollgate([
      'budgets',
      'set',
      '--name',
      'search daily',
      '--scope',
      'team',
      '--scope-id',
      teamId,
      '--limit-usd',
      '25',
      '--period',
      'day',
      '--time-zone',
      'Europe/Berlin',
      '--thresholds',
      '50,80',
    ]);
    expect(budget.code, budget.stderr).toBe(0);
    const budgetId = /^set budget (bgt_[0-9a-f]+)$/.exec(budget.stdout[0]!)![1]!;
    const badBudget = await tollgate([
      'budgets',
      'set',
      '--name',
      'x',
      '--scope',
      'team',
      '--scope-id',
      'team_nope',
      '--limit-usd',
      '1',
      '--period',
      'day',
    ]);
    expect(badBudget.code).toBe(1);
    expect(badBudget.stderr).toBe("error: scopeId: team 'team_nope' does not exist (field: scopeId) [HTTP 400]\n");

    const webhook = await tollgate([
      'alert-webhooks',
      'create',
      '--name',
      'ops',
      '--url',
      'https://hooks.example.com/t',
    ]);
    expect(webhook.code, webhook.stderr).toBe(0);
    const secret = webhook.stdout.at(-1)!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const webhooks = await tollgate(['alert-webhooks', 'list']);
    expect(webhooks.stdout.join('\n')).not.toContain(secret.slice(6));

    await within(1000, () => b.projection.budget(budgetId) !== undefined && b.projection.alertWebhooks().length > 0);
    expect(b.projection.team(teamId)).toMatchObject({
      name: 'Search',
      rpd: 1000,
      models: new Set(['gpt-x', 'gpt-y']),
      tags: ['project=search'],
      modelLimits: [{ model: 'gpt-x', rpm: 10, tpm: null, rpd: null, tpd: 5000 }],
      members: new Map([[userId, 'team_admin']]),
    });
    expect(b.projection.teamsOfUser(userId).map((t) => t.teamId)).toEqual([teamId]);
    expect(b.projection.keyByDigest(digest)).toMatchObject({
      userId: null,
      teamId,
      tags: ['feature=chat', 'env=prod'],
      tpd: 99,
    });
    expect(b.projection.budgetsFor('team', teamId)).toMatchObject([
      { budgetId, limitNanoUsd: 25_000_000_000n, period: 'day', timeZone: 'Europe/Berlin', thresholds: [50, 80] },
    ]);

    const list = await tollgate(['budgets', 'list', '--scope', 'team']);
    expect(list.stdout.join('\n')).toContain(budgetId);
    expect((await tollgate(['budgets', 'remove', budgetId])).stdout).toEqual([`removed budget ${budgetId}`]);
    expect((await tollgate(['teams', 'remove-member', teamId, userId])).code).toBe(0);
    expect((await tollgate(['teams', 'disable', teamId])).code).toBe(0);
    await within(1000, () => b.projection.budget(budgetId) === undefined && b.projection.team(teamId)!.disabled);
    expect(b.projection.team(teamId)!.members.size).toBe(0);
  });

  it('exits 2 on usage errors and 1 on API errors, with the message on stderr', async () => {
    const usage = await tollgate(['keys', 'create', '--rpm', '5']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toEqual(['']);
    expect(usage.stderr.split('\n')[0]).toBe('usage error: missing required --name');
    const api = await tollgate(['keys', 'create', '--name', 'late', '--expires', '2001-01-01T00:00:00Z']);
    expect(api.code).toBe(1);
    expect(api.stderr).toBe('error: expiresAt: must be in the future (field: expiresAt) [HTTP 400]\n');
  });
});

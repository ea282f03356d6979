/**
 * Team, budget, alert-webhook and key-ownership commands: each bad input is a 400 (404 for an
 * unknown id in the path) naming the field, with nothing appended; good input gives the events
 * expected, checked through the Avro codec by the recording control plane.
 */
import { describe, expect, it } from 'vitest';
import { decryptCredential } from '../../../gateway/control-plane/credential-cipher.ts';
import {
  createAlertWebhook,
  createKey,
  createTeam,
  createUser,
  removeAlertWebhook,
  removeBudget,
  removeTeamMember,
  setBudget,
  setTeamMember,
  updateAlertWebhook,
  updateKey,
  updateTeam,
  type CommandContext,
} from '../../../gateway/control-plane/commands.ts';
import { isWebhookSecret } from '../../../gateway/control-plane/commands-alert-webhooks.ts';
import { RecordingControlPlane } from './recording-control-plane.ts';
import { commandRefusal, runCommand } from './run-command.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const masterKey = Buffer.alloc(32, 7);
const ctx: CommandContext = {
  now: NOW,
  actor: 'admin',
  secrets: { masterKey, hmacSecret: Buffer.from('h'.repeat(40)) },
};

/** A control plane with user `userId`, team `teamId` (models m1, m2) and key `keyId`. */
async function world() {
  const cp = new RecordingControlPlane(masterKey);
  const { userId } = await runCommand(cp, () => createUser(cp, { name: 'Ada' }, ctx));
  const { teamId } = await runCommand(cp, () => createTeam(cp, { name: 'Search', models: ['m1', 'm2'] }, ctx));
  const { keyId } = await runCommand(cp, () => createKey(cp, { name: 'k', userId }, ctx));
  return { cp, userId, teamId, keyId, published: cp.published.length };
}

describe('teams', () => {
  it('creates a team with every setting and updates only what is given', async () => {
    const { cp, teamId } = await world();
    const team = cp.team(teamId)!;
    expect(teamId).toMatch(/^team_[0-9a-f]{16}$/);
    expect(team).toMatchObject({ name: 'Search', models: new Set(['m1', 'm2']), rpm: null, tags: [], disabled: false });
    await runCommand(cp, () =>
      updateTeam(
        cp,
        teamId,
        {
          rpd: 100,
          tags: ['project=search'],
          modelLimits: [{ model: 'm1', rpm: 5 }],
          disabled: true,
        },
        ctx,
      ),
    );
    expect(cp.team(teamId)).toMatchObject({
      name: 'Search',
      models: new Set(['m1', 'm2']),
      rpd: 100,
      tags: ['project=search'],
      modelLimits: [{ model: 'm1', rpm: 5, tpm: null, rpd: null, tpd: null }],
      disabled: true,
    });
  });

  it.each([
    [{}, 'name', 'name: is required'],
    [{ name: 't', rpd: -1 }, 'rpd', 'rpd: must be a positive integer or null'],
    [{ name: 't', tags: ['env'] }, 'tags.0', "tags.0: 'env' is not name=value"],
    [{ name: 't', tags: ['e v=x'] }, 'tags.0', 'tags.0: the name of'],
    [{ name: 't', tags: ['env=a,b'] }, 'tags.0', 'tags.0: the value of'],
    [{ name: 't', tags: ['env=a', 'env=b'] }, 'tags.1', "tags.1: tag name 'env' appears twice"],
    [
      { name: 't', modelLimits: [{ rpm: 1 }] },
      'modelLimits.0.model',
      'modelLimits.0.model: must be a model name string',
    ],
    [{ name: 't', modelLimits: [{ model: 'm', rpm: 0 }] }, 'modelLimits.0.rpm', 'modelLimits.0.rpm: must be'],
    [
      { name: 't', modelLimits: [{ model: 'm' }, { model: 'm' }] },
      'modelLimits.1.model',
      "modelLimits.1.model: model 'm' appears twice",
    ],
    [{ name: 't', members: [] }, 'members', "unknown field 'members'"],
  ])('createTeam %j → 400 on %s', async (input, field, message) => {
    const { cp, published } = await world();
    const refusal = commandRefusal(() => createTeam(cp, input, ctx));
    expect(refusal).toMatchObject({ status: 400, field });
    expect(refusal.message.startsWith(message)).toBe(true);
    expect(cp.published.length).toBe(published);
  });

  it('refuses updates of an unknown team (404) or with nothing to change (400)', async () => {
    const { cp, teamId } = await world();
    expect(commandRefusal(() => updateTeam(cp, 'team_x', { name: 'a' }, ctx))).toMatchObject({
      status: 404,
      field: 'id',
    });
    expect(commandRefusal(() => updateTeam(cp, teamId, {}, ctx))).toMatchObject({ status: 400 });
  });

  it('sets, changes and removes members; refuses unknown teams, users and non-members', async () => {
    const { cp, teamId, userId } = await world();
    await runCommand(cp, () => setTeamMember(cp, teamId, userId, {}, ctx));
    expect(cp.team(teamId)!.members.get(userId)).toBe('member');
    await runCommand(cp, () => setTeamMember(cp, teamId, userId, { role: 'team_admin' }, ctx));
    expect(cp.teamsOfUser(userId).map((t) => [t.teamId, t.members.get(userId)])).toEqual([[teamId, 'team_admin']]);
    const published = cp.published.length;
    expect(commandRefusal(() => setTeamMember(cp, 'team_x', userId, {}, ctx))).toMatchObject({
      status: 400,
      field: 'teamId',
    });
    expect(commandRefusal(() => setTeamMember(cp, teamId, 'usr_x', {}, ctx))).toMatchObject({
      status: 400,
      field: 'userId',
    });
    expect(commandRefusal(() => setTeamMember(cp, teamId, userId, { role: 'owner' }, ctx))).toMatchObject({
      status: 400,
      field: 'role',
    });
    expect(cp.published.length).toBe(published);
    await runCommand(cp, () => removeTeamMember(cp, teamId, userId, ctx));
    expect(cp.team(teamId)!.members.size).toBe(0);
    expect(commandRefusal(() => removeTeamMember(cp, teamId, userId, ctx))).toMatchObject({
      status: 404,
      field: 'userId',
    });
  });
});

describe('a key’s team, tags and limits', () => {
  it('creates a service key of a team with tags, daily and per-model limits; an update keeps them', async () => {
    const { cp, teamId } = await world();
    const { keyId } = await runCommand(cp, () =>
      createKey(
        cp,
        {
          name: 'svc',
          teamId,
          models: ['m1'],
          tags: ['feature=chat'],
          rpd: 10,
          tpd: 1000,
          modelLimits: [{ model: 'm1', tpm: 9 }],
        },
        ctx,
      ),
    );
    expect(cp.key(keyId)).toMatchObject({ userId: null, teamId, tags: ['feature=chat'], rpd: 10, tpd: 1000 });
    await runCommand(cp, () => updateKey(cp, keyId, { name: 'svc2' }, ctx));
    expect(cp.key(keyId)).toMatchObject({
      name: 'svc2',
      teamId,
      tags: ['feature=chat'],
      rpd: 10,
      tpd: 1000,
      models: new Set(['m1']),
      modelLimits: [{ model: 'm1', rpm: null, tpm: 9, rpd: null, tpd: null }],
    });
    await runCommand(cp, () => updateKey(cp, keyId, { teamId: null, tags: [] }, ctx));
    expect(cp.key(keyId)).toMatchObject({ teamId: null, tags: [], rpd: 10 });
  });

  it.each([
    [{ name: 'k', teamId: 'team_x' }, 'teamId', "teamId: team 'team_x' does not exist"],
    [{ name: 'k', teamId: '' }, 'teamId', 'teamId: must not be empty'],
    [{ name: 'k', tags: ['x'] }, 'tags.0', "tags.0: 'x' is not name=value"],
    [{ name: 'k', tpd: 0 }, 'tpd', 'tpd: must be a positive integer or null'],
    [{ name: 'k', modelLimits: {} }, 'modelLimits', 'modelLimits: must be an array'],
  ])('createKey %j → 400 on %s', async (input, field, message) => {
    const { cp, published } = await world();
    const refusal = commandRefusal(() => createKey(cp, input, ctx));
    expect(refusal).toMatchObject({ status: 400, field });
    expect(refusal.message.startsWith(message)).toBe(true);
    expect(cp.published.length).toBe(published);
  });

  it('refuses, by name, a model outside the team’s allowlist, on create and on update', async () => {
    const { cp, teamId, keyId, published } = await world();
    expect(commandRefusal(() => createKey(cp, { name: 'k', teamId, models: ['m1', 'm3'] }, ctx))).toEqual({
      status: 400,
      message: `models: 'm3' is not among the models of team '${teamId}'`,
      field: 'models',
    });
    await runCommand(cp, () => updateKey(cp, keyId, { models: ['m9'] }, ctx));
    expect(commandRefusal(() => updateKey(cp, keyId, { teamId }, ctx))).toMatchObject({ status: 400, field: 'models' });
    expect(cp.published.length).toBe(published + 1);
  });
});

describe('budgets', () => {
  it('creates a budget with the node’s default time zone, changes it, and removes it', async () => {
    const { cp, teamId } = await world();
    const { budgetId, created } = await runCommand(cp, () =>
      setBudget(
        cp,
        undefined,
        { name: 'daily', scope: 'team', scopeId: teamId, limitUsd: '12.5', period: 'day', thresholds: [80, 50] },
        ctx,
        'Europe/Berlin',
      ),
    );
    expect(created).toBe(true);
    expect(budgetId).toMatch(/^bgt_[0-9a-f]{16}$/);
    expect(cp.budgetsFor('team', teamId)).toEqual([
      {
        budgetId,
        name: 'daily',
        scope: 'team',
        scopeId: teamId,
        limitNanoUsd: 12_500_000_000n,
        limitTokens: null,
        period: 'day',
        rollingMs: null,
        timeZone: 'Europe/Berlin',
        thresholds: [50, 80],
        downgradeModel: null,
        createdAt: NOW,
      },
    ]);
    await runCommand(cp, () =>
      setBudget(
        cp,
        budgetId,
        { period: 'rolling', rollingMs: 3_600_000, limitTokens: 1000, downgradeModel: 'm1' },
        ctx,
      ),
    );
    expect(cp.budget(budgetId)).toMatchObject({
      period: 'rolling',
      rollingMs: 3_600_000,
      limitNanoUsd: 12_500_000_000n,
      limitTokens: 1000,
      downgradeModel: 'm1',
      timeZone: 'Europe/Berlin',
    });
    await runCommand(cp, () => setBudget(cp, budgetId, { period: 'week' }, ctx));
    expect(cp.budget(budgetId)).toMatchObject({ period: 'week', rollingMs: null });
    await runCommand(cp, () => removeBudget(cp, budgetId, ctx));
    expect(cp.budgets()).toEqual([]);
    expect(commandRefusal(() => removeBudget(cp, budgetId, ctx))).toMatchObject({ status: 404, field: 'id' });
  });

  it('names a key budget by the key id even when given the public id', async () => {
    const { cp, keyId } = await world();
    const publicId = cp.key(keyId)!.publicId;
    const { budgetId } = await runCommand(cp, () =>
      setBudget(cp, undefined, { name: 'k', scope: 'key', scopeId: publicId, limitTokens: 0, period: 'lifetime' }, ctx),
    );
    expect(cp.budget(budgetId)!.scopeId).toBe(keyId);
  });

  const base = { name: 'b', scope: 'tag', scopeId: 'feature=search', limitUsd: 5, period: 'month' };
  it.each([
    [{ ...base, period: 'year' }, 'period', "period: must be one of 'lifetime', 'day', 'week', 'month', 'rolling'"],
    [{ ...base, scope: 'org' }, 'scope', "scope: must be one of 'key', 'user', 'team', 'end_user', 'tag'"],
    [{ ...base, limitUsd: -1 }, 'limitUsd', 'limitUsd: must be a USD amount ≥ 0'],
    [{ ...base, limitTokens: -5 }, 'limitTokens', 'limitTokens: must be a whole number of tokens ≥ 0'],
    [{ ...base, limitUsd: null }, 'limitUsd', 'limitUsd: set limitUsd, limitTokens or both'],
    [{ ...base, thresholds: [0] }, 'thresholds.0', 'thresholds.0: must be a whole percent > 0 and ≤ 100'],
    [{ ...base, thresholds: [50, 101] }, 'thresholds.1', 'thresholds.1: must be a whole percent > 0 and ≤ 100'],
    [{ ...base, thresholds: [50, 50] }, 'thresholds.1', 'thresholds.1: 50 appears twice'],
    [{ ...base, period: 'rolling' }, 'rollingMs', 'rollingMs: is required for a rolling budget'],
    [{ ...base, period: 'rolling', rollingMs: 59_999 }, 'rollingMs', 'rollingMs: must be ≥ 60000'],
    [{ ...base, rollingMs: 60_000 }, 'rollingMs', "rollingMs: only a rolling budget has one (this one is 'month')"],
    [{ ...base, timeZone: 'Mars/Olympus' }, 'timeZone', 'timeZone: must be an IANA time zone name'],
    [{ ...base, scope: 'team', scopeId: 'team_x' }, 'scopeId', "scopeId: team 'team_x' does not exist"],
    [{ ...base, scope: 'user', scopeId: 'usr_x' }, 'scopeId', "scopeId: user 'usr_x' does not exist"],
    [{ ...base, scope: 'key', scopeId: 'key_x' }, 'scopeId', "scopeId: key 'key_x' does not exist"],
    [{ ...base, scope: 'end_user', scopeId: 'u'.repeat(257) }, 'scopeId', 'scopeId: an end-user id has at most 256'],
    [{ ...base, scopeId: 'feature' }, 'scopeId', "scopeId: 'feature' is not name=value"],
    [{ ...base, scopeId: 'f=a=b' }, 'scopeId', 'scopeId: the value of'],
    [{ ...base, downgradeModel: '' }, 'downgradeModel', 'downgradeModel: must not be empty'],
    [{ ...base, extra: 1 }, 'extra', "unknown field 'extra'"],
  ])('setBudget %j → 400 on %s, nothing appended', async (input, field, message) => {
    const { cp, published } = await world();
    const refusal = commandRefusal(() => setBudget(cp, undefined, input, ctx));
    expect(refusal).toMatchObject({ status: 400, field });
    expect(refusal.message.startsWith(message), refusal.message).toBe(true);
    expect(cp.published.length).toBe(published);
  });

  it('refuses changing a budget’s scope, or an unknown budget', async () => {
    const { cp, teamId } = await world();
    const { budgetId } = await runCommand(cp, () => setBudget(cp, undefined, base, ctx));
    expect(commandRefusal(() => setBudget(cp, budgetId, { scope: 'team', scopeId: teamId }, ctx))).toMatchObject({
      status: 400,
      field: 'scope',
    });
    expect(commandRefusal(() => setBudget(cp, budgetId, { scopeId: 'a=b' }, ctx))).toMatchObject({
      status: 400,
      field: 'scopeId',
    });
    expect(commandRefusal(() => setBudget(cp, 'bgt_x', { name: 'x' }, ctx))).toMatchObject({
      status: 404,
      field: 'id',
    });
  });
});

describe('alert webhooks', () => {
  it('generates a whsec_ secret, returns it once and publishes it only encrypted', async () => {
    const { cp } = await world();
    const { webhookId, secret } = await runCommand(cp, () =>
      createAlertWebhook(cp, { name: 'ops', url: 'https://hooks.example.com/x' }, ctx),
    );
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(isWebhookSecret(secret)).toBe(true);
    expect(JSON.stringify(cp.published, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(
      secret.slice(6),
    );
    const webhook = cp.alertWebhook(webhookId)!;
    expect(webhook).toMatchObject({ name: 'ops', format: 'json', enabled: true });
    expect(decryptCredential(masterKey, webhook.secretCiphertext)).toBe(secret);
    await runCommand(cp, () => updateAlertWebhook(cp, webhookId, { format: 'slack', enabled: false }, ctx));
    expect(cp.alertWebhook(webhookId)).toMatchObject({ format: 'slack', enabled: false });
    expect(decryptCredential(masterKey, cp.alertWebhook(webhookId)!.secretCiphertext)).toBe(secret);
    await runCommand(cp, () => removeAlertWebhook(cp, webhookId, ctx));
    expect(cp.alertWebhooks()).toEqual([]);
  });

  it('keeps a given secret', async () => {
    const { cp } = await world();
    const given = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    const { webhookId, secret } = await runCommand(cp, () =>
      createAlertWebhook(cp, { name: 'ops', url: 'http://127.0.0.1:9/x', secret: given }, ctx),
    );
    expect(secret).toBe(given);
    expect(decryptCredential(masterKey, cp.alertWebhook(webhookId)!.secretCiphertext)).toBe(given);
  });

  it.each([
    [{ name: 'w', url: 'ftp://example.com/x' }, 'url', 'url: must be an http(s) URL'],
    [{ name: 'w', url: 'not a url' }, 'url', 'url: must be an http(s) URL'],
    [{ name: 'w', url: 'https://x.example', format: 'xml' }, 'format', "format: must be 'json' or 'slack'"],
    [{ name: 'w', url: 'https://x.example', secret: 'short' }, 'secret', 'secret: must be whsec_'],
    [{ url: 'https://x.example' }, 'name', 'name: is required'],
  ])('createAlertWebhook %j → 400 on %s', async (input, field, message) => {
    const { cp, published } = await world();
    const refusal = commandRefusal(() => createAlertWebhook(cp, input, ctx));
    expect(refusal).toMatchObject({ status: 400, field });
    expect(refusal.message.startsWith(message)).toBe(true);
    expect(cp.published.length).toBe(published);
  });

  it('refuses unknown webhooks with 404', async () => {
    const { cp } = await world();
    expect(commandRefusal(() => removeAlertWebhook(cp, 'whk_x', ctx))).toMatchObject({ status: 404, field: 'id' });
    expect(commandRefusal(() => updateAlertWebhook(cp, 'whk_x', { name: 'a' }, ctx))).toMatchObject({ status: 404 });
  });
});

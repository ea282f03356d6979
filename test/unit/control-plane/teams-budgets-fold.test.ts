/**
 * The fold of teams, members, budgets, alert webhooks and a key's team fields: every event goes
 * through the Avro codec first, as on the config topic; dangling references are warned about and
 * ignored; the audit never shows a webhook's secret.
 */
import { describe, expect, it } from 'vitest';
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import { decodeControlEvent, encodeControlEvent } from '../../../schemas/control-plane/control-event-codec.ts';
import type { ControlEvent } from '../../../schemas/control-plane/control-plane-events.ts';
import {
  alertWebhookRemoved,
  alertWebhookSet,
  budgetRemoved,
  budgetSet,
  keyCreated,
  keyUpdated,
  TEST_MASTER_KEY,
  teamCreated,
  teamMemberRemoved,
  teamMemberSet,
  teamUpdated,
  userCreated,
} from './control-event-fixtures.ts';

/** A projection fed through the codec, as a node reading the config topic. */
function foldOf(events: ReadonlyArray<ControlEvent>): ControlPlaneProjection {
  const projection = new ControlPlaneProjection(TEST_MASTER_KEY);
  projection.applyBatch(events.map((event) => decodeControlEvent(encodeControlEvent(event))));
  return projection;
}

describe('teams in the fold', () => {
  it('creates a team, keeps createdAt and members across updates, and lists a user’s teams', () => {
    const p = foldOf([
      userCreated(),
      teamCreated({ occurredAt: 10 }),
      teamMemberSet({ role: 'team_admin' }),
      teamUpdated({ occurredAt: 20 }),
    ]);
    expect(p.team('team_1')).toEqual({
      teamId: 'team_1',
      name: 'Search v2',
      rpm: null,
      tpm: null,
      rpd: null,
      tpd: null,
      models: null,
      modelLimits: [],
      tags: [],
      disabled: true,
      members: new Map([['usr_1', 'team_admin']]),
      createdAt: 10,
    });
    expect(p.teams().map((t) => t.teamId)).toEqual(['team_1']);
    expect(p.teamsOfUser('usr_1').map((t) => t.teamId)).toEqual(['team_1']);
    expect(p.teamsOfUser('usr_nobody')).toEqual([]);
    expect(p.warnings()).toEqual([]);
  });

  it('folds a team’s models, per-model limits and tags', () => {
    const team = foldOf([teamCreated()]).team('team_1')!;
    expect(team.models).toEqual(new Set(['gpt-4o-mini']));
    expect(team.modelLimits).toEqual([{ model: 'gpt-4o-mini', rpm: 60, tpm: null, rpd: null, tpd: 1_000_000 }]);
    expect(team.tags).toEqual(['project=search']);
    expect([team.rpm, team.rpd, team.disabled]).toEqual([600, 10_000, false]);
  });

  it('changes a member’s role and removes members', () => {
    const p = foldOf([
      userCreated(),
      teamCreated(),
      teamMemberSet(),
      teamMemberSet({ role: 'team_admin' }),
      teamMemberRemoved(),
    ]);
    expect(p.team('team_1')!.members.size).toBe(0);
    expect(p.teamsOfUser('usr_1')).toEqual([]);
  });

  it('warns about and ignores dangling references', () => {
    const p = foldOf([
      teamUpdated({ teamId: 'team_x' }),
      teamMemberSet({ teamId: 'team_x' }),
      teamCreated(),
      teamMemberSet({ userId: 'usr_x' }),
      teamMemberRemoved('team_1', 'usr_1'),
    ]);
    expect(p.team('team_x')).toBeUndefined();
    expect(p.team('team_1')!.members.size).toBe(0);
    expect(p.warnings()).toEqual([
      'TeamUpdated for unknown team team_x ignored',
      'TeamMemberSet of user usr_1 for unknown team team_x ignored',
      'TeamMemberSet of unknown user usr_x for team team_1 ignored',
      'TeamMemberRemoved of user usr_1 ignored: not a member of team team_1',
    ]);
  });
});

describe('a key’s team, tags and limits in the fold', () => {
  it('folds them from KeyCreated and replaces them with KeyUpdated', () => {
    const p = foldOf([
      teamCreated(),
      keyCreated({
        teamId: 'team_1',
        tags: ['feature=chat'],
        rpd: 100,
        tpd: 200,
        modelLimits: [{ model: 'm', rpm: 1, tpm: 2, rpd: 3, tpd: 4 }],
      }),
    ]);
    expect(p.key('key_abc')).toMatchObject({
      teamId: 'team_1',
      tags: ['feature=chat'],
      rpd: 100,
      tpd: 200,
      modelLimits: [{ model: 'm', rpm: 1, tpm: 2, rpd: 3, tpd: 4 }],
    });
    p.apply(decodeControlEvent(encodeControlEvent(keyUpdated())));
    expect(p.key('key_abc')).toMatchObject({ teamId: null, tags: [], rpd: null, tpd: null, modelLimits: [] });
  });

  it('keeps an unknown team on a key, with a warning', () => {
    const p = foldOf([keyCreated({ teamId: 'team_gone' })]);
    expect(p.key('key_abc')!.teamId).toBe('team_gone');
    expect(p.warnings()).toEqual(["KeyCreated key_abc: team team_gone is unknown (kept as the key's team)"]);
  });
});

describe('budgets in the fold', () => {
  it('upserts a budget, keeping createdAt, and finds it by scope', () => {
    const p = foldOf([
      teamCreated(),
      budgetSet({ occurredAt: 100 }),
      budgetSet({ occurredAt: 200, limitNanoUsd: '5', thresholds: [90, 50, 50] }),
    ]);
    const budget = p.budget('bgt_1')!;
    expect(budget).toEqual({
      budgetId: 'bgt_1',
      name: 'search daily',
      scope: 'team',
      scopeId: 'team_1',
      limitNanoUsd: 5n,
      limitTokens: null,
      period: 'day',
      rollingMs: null,
      timeZone: 'Europe/Berlin',
      thresholds: [50, 90],
      downgradeModel: null,
      createdAt: 100,
    });
    expect(p.budgetsFor('team', 'team_1')).toEqual([budget]);
    expect(p.budgetsFor('team', 'team_2')).toEqual([]);
    expect(p.budgetsFor('user', 'team_1')).toEqual([]);
    expect(p.budgets()).toEqual([budget]);
  });

  it('moves a budget whose scope changed and forgets a removed one', () => {
    const p = foldOf([
      teamCreated(),
      budgetSet({ budgetId: 'bgt_1', scope: 'tag', scopeId: 'a=b' }),
      budgetSet({ budgetId: 'bgt_2', scope: 'tag', scopeId: 'a=b' }),
      budgetSet({ budgetId: 'bgt_1', scope: 'end_user', scopeId: 'alice' }),
    ]);
    expect(p.budgetsFor('tag', 'a=b').map((b) => b.budgetId)).toEqual(['bgt_2']);
    expect(p.budgetsFor('end_user', 'alice').map((b) => b.budgetId)).toEqual(['bgt_1']);
    p.apply(budgetRemoved('bgt_2'));
    expect(p.budgetsFor('tag', 'a=b')).toEqual([]);
    expect(p.budgets().map((b) => b.budgetId)).toEqual(['bgt_1']);
  });

  it('ignores, with a warning, a budget that cannot be enforced', () => {
    const p = foldOf([
      userCreated(),
      budgetSet({ budgetId: 'bgt_a', scope: 'team', scopeId: 'team_x' }),
      budgetSet({ budgetId: 'bgt_b', scope: 'key', scopeId: 'key_x' }),
      budgetSet({ budgetId: 'bgt_c', scope: 'user', scopeId: 'usr_1', limitNanoUsd: null, limitTokens: null }),
      budgetSet({ budgetId: 'bgt_d', scope: 'user', scopeId: 'usr_1', period: 'rolling', rollingMs: 1000 }),
      budgetSet({ budgetId: 'bgt_e', scope: 'user', scopeId: 'usr_1', period: 'week', rollingMs: 60_000 }),
      budgetSet({ budgetId: 'bgt_f', scope: 'user', scopeId: 'usr_1', timeZone: 'Mars/Olympus' }),
      budgetRemoved('bgt_g'),
      budgetSet({ budgetId: 'bgt_h', scope: 'user', scopeId: 'usr_1', limitNanoUsd: '-1' }),
    ]);
    expect(p.budgets().map((b) => [b.budgetId, b.limitNanoUsd])).toEqual([['bgt_h', 0n]]);
    expect(p.warnings()).toEqual([
      'BudgetSet bgt_a ignored: its team team_x is unknown',
      'BudgetSet bgt_b ignored: its key key_x is unknown',
      'BudgetSet bgt_c ignored: it has neither limitNanoUsd nor limitTokens',
      'BudgetSet bgt_d ignored: a rolling budget needs rollingMs ≥ 60000',
      'BudgetSet bgt_e ignored: rollingMs is set on a week budget',
      "BudgetSet bgt_f ignored: unknown time zone 'Mars/Olympus'",
      'BudgetRemoved for unknown budget bgt_g ignored',
      expect.stringMatching(/^BudgetSet .*: limitNanoUsd is not a non-negative integer; limit set to 0$/),
    ]);
  });
});

describe('alert webhooks in the fold', () => {
  it('upserts and removes webhooks; the audit shows hasSecret, never the ciphertext', () => {
    const first = alertWebhookSet({ occurredAt: 1 });
    const p = foldOf([first, alertWebhookSet({ occurredAt: 2, name: 'ops 2', format: 'slack' })]);
    expect(p.alertWebhooks()).toEqual([
      {
        webhookId: 'whk_1',
        name: 'ops 2',
        url: 'https://hooks.example.com/tollgate',
        format: 'slack',
        secretCiphertext: expect.any(String),
        enabled: true,
        createdAt: 1,
      },
    ]);
    const audit = p.history().at(-1)!;
    expect(audit.entityId).toBe('whk_1');
    expect(audit.changes).toMatchObject({ hasSecret: true, name: 'ops 2' });
    expect(audit.changes).not.toHaveProperty('secretCiphertext');
    p.apply(alertWebhookRemoved());
    expect(p.alertWebhooks()).toEqual([]);
    expect(p.alertWebhook('whk_1')).toBeUndefined();
    p.apply(alertWebhookRemoved());
    expect(p.warnings()).toEqual(['AlertWebhookRemoved for unknown webhook whk_1 ignored']);
  });
});

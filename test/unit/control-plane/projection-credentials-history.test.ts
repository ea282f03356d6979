/**
 * The projection's console credentials (UserCredentialsSet, userByLogin) and its audit history:
 * every applied event in order, entity ids, changes without secrets, the 100 000-entry cap.
 */
import { describe, expect, it } from 'vitest';
import { AuditHistory, auditEntryOf } from '../../../schemas/control-plane/audit-history.ts';
import { encryptCredential } from '../../../gateway/control-plane/credential-cipher.ts';
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import {
  channelRemoved,
  channelUpserted,
  keyCreated,
  keyRevoked,
  keyUpdated,
  priceSet,
  TEST_MASTER_KEY,
  userCreated,
  userCredentialsSet,
  userUpdated,
} from './control-event-fixtures.ts';

const HASH_A = `scrypt$16384$8$1$${'a'.repeat(22)}$${'A'.repeat(43)}`;
const HASH_B = `scrypt$16384$8$1$${'b'.repeat(22)}$${'B'.repeat(43)}`;

function projection(warnings: string[] = []): ControlPlaneProjection {
  return new ControlPlaneProjection(TEST_MASTER_KEY, { onWarning: (message) => warnings.push(message) });
}

describe('ControlPlaneProjection: console credentials', () => {
  it('sets login and password hash, finds the user by login case-insensitively, keeps them across updates', () => {
    const p = projection();
    p.applyBatch([userCreated(), userCredentialsSet({ login: 'Ada.L', passwordHash: HASH_A })]);
    expect(p.user('usr_1')).toMatchObject({ login: 'ada.l', passwordHash: HASH_A });
    expect(p.userByLogin('ada.l')?.userId).toBe('usr_1');
    expect(p.userByLogin('ADA.L')?.userId).toBe('usr_1');
    expect(p.userByLogin('ada')).toBeUndefined();
    p.applyBatch([userUpdated({ name: 'Ada Lovelace', disabled: true }), userCreated({ name: 'again' })]);
    expect(p.user('usr_1')).toMatchObject({ name: 'again', disabled: true, login: 'ada.l', passwordHash: HASH_A });
  });

  it('moves the login index when the login changes', () => {
    const p = projection();
    p.applyBatch([
      userCreated(),
      userCredentialsSet({ login: 'first', passwordHash: HASH_A }),
      userCredentialsSet({ login: 'second', passwordHash: HASH_B }),
    ]);
    expect(p.userByLogin('first')).toBeUndefined();
    expect(p.userByLogin('second')).toMatchObject({ userId: 'usr_1', passwordHash: HASH_B });
  });

  it('ignores credentials of an unknown user, and a login another user holds (first holder wins), with warnings', () => {
    const warnings: string[] = [];
    const p = projection(warnings);
    p.applyBatch([
      userCredentialsSet({ userId: 'usr_ghost', login: 'ghost' }),
      userCreated({ userId: 'usr_1' }),
      userCreated({ userId: 'usr_2' }),
      userCredentialsSet({ userId: 'usr_1', login: 'shared', passwordHash: HASH_A }),
      userCredentialsSet({ userId: 'usr_2', login: 'shared', passwordHash: HASH_B }),
    ]);
    expect(p.userByLogin('ghost')).toBeUndefined();
    expect(p.user('usr_ghost')).toBeUndefined();
    expect(p.userByLogin('shared')).toMatchObject({ userId: 'usr_1', passwordHash: HASH_A });
    expect(p.user('usr_2')).toMatchObject({ login: null, passwordHash: null });
    expect(warnings).toEqual([
      'UserCredentialsSet for unknown user usr_ghost ignored',
      "UserCredentialsSet for user usr_2 ignored: login 'shared' belongs to user usr_1",
    ]);
    expect(warnings.join(' ')).not.toContain(HASH_B);
  });
});

describe('ControlPlaneProjection: history', () => {
  it('lists every applied event once, in order, with entity ids and without secrets', () => {
    const p = projection();
    const secretKey = 'sk-upstream-very-secret';
    const events = [
      userCreated({ occurredAt: 1 }),
      userCredentialsSet({ passwordHash: HASH_A }),
      keyCreated({ digest: 'f'.repeat(64) }),
      keyUpdated({ name: 'renamed' }),
      keyRevoked({ reason: 'leaked' }),
      channelUpserted({}, secretKey),
      channelUpserted({ channelId: 'ch-empty' }, ''),
      channelRemoved('ch-1'),
      priceSet({ priceId: 'p-1' }),
      keyUpdated({ keyId: 'key_unknown' }),
    ];
    p.applyBatch(events);
    p.applyBatch(events); // duplicates are not history
    const history = p.history();
    expect(history.map((e) => e.eventId)).toEqual(events.map((e) => e.event.eventId));
    expect(history.map((e) => [e.type, e.entityId])).toEqual([
      ['UserCreated', 'usr_1'],
      ['UserCredentialsSet', 'usr_1'],
      ['KeyCreated', 'key_abc'],
      ['KeyUpdated', 'key_abc'],
      ['KeyRevoked', 'key_abc'],
      ['ChannelUpserted', 'ch-1'],
      ['ChannelUpserted', 'ch-empty'],
      ['ChannelRemoved', 'ch-1'],
      ['PriceSet', 'p-1'],
      ['KeyUpdated', 'key_unknown'],
    ]);
    expect(history[0]).toEqual({
      eventId: events[0]!.event.eventId,
      occurredAt: 1,
      actor: 'admin',
      type: 'UserCreated',
      entityId: 'usr_1',
      changes: { userId: 'usr_1', name: 'Ada', role: 'user', rpm: 60, tpm: null, quotaNanoUsd: '5000000000' },
    });
    expect(history[1]!.changes).toEqual({ userId: 'usr_1', login: 'ada' });
    expect(history[2]!.changes).not.toHaveProperty('digest');
    expect(history[2]!.changes).toMatchObject({
      publicId: 'abcdefghijkl',
      models: ['gpt-4o-mini', 'claude-sonnet-4-5'],
    });
    expect(history[5]!.changes).toMatchObject({ hasApiKey: true, provider: 'mock', modelMap: { 'gpt-4o': 'mock-1' } });
    expect(history[5]!.changes).not.toHaveProperty('apiKeyCiphertext');
    expect(history[6]!.changes).toMatchObject({ hasApiKey: false });
    const text = JSON.stringify(history);
    for (const secret of [HASH_A, 'f'.repeat(64), secretKey]) expect(text).not.toContain(secret);
    for (const event of events)
      if (event.type === 'ChannelUpserted') expect(text).not.toContain(event.event.apiKeyCiphertext);
    expect(text).not.toMatch(/passwordHash|apiKeyCiphertext|digest/);
  });

  it('shows a key pool in the audit by ids and limits, never a ciphertext', () => {
    const p = projection();
    const pool = channelUpserted({
      credentials: [
        { id: 'key-a', apiKeyCiphertext: encryptCredential(TEST_MASTER_KEY, 'sk-a'), rpm: 60, tpm: null },
        { id: 'key-b', apiKeyCiphertext: encryptCredential(TEST_MASTER_KEY, 'sk-b'), rpm: null, tpm: 1000 },
      ],
    });
    p.apply(pool);
    const changes = p.history()[0]!.changes;
    expect(changes).toMatchObject({
      hasApiKey: true,
      credentials: [
        { id: 'key-a', rpm: 60, tpm: null },
        { id: 'key-b', rpm: null, tpm: 1000 },
      ],
    });
    expect(JSON.stringify(changes)).not.toContain('apiKeyCiphertext');
  });

  it('counts a credential that does not decrypt as present', () => {
    const p = projection();
    p.apply(channelUpserted({}, 'secret', Buffer.alloc(32, 1)));
    expect(p.history()[0]!.changes).toMatchObject({ hasApiKey: true });
  });

  it('returns the same array until the next applied event', () => {
    const p = projection();
    p.apply(userCreated());
    const first = p.history();
    expect(p.history()).toBe(first);
    p.apply(userCreated());
    expect(p.history()).not.toBe(first);
    expect(p.history()).toHaveLength(2);
  });
});

describe('AuditHistory', () => {
  it('keeps only the newest entries beyond its capacity', () => {
    const history = new AuditHistory(10);
    const entries = Array.from({ length: 37 }, (_, i) => auditEntryOf(priceSet({ priceId: `p-${i}` }), false));
    for (const [i, entry] of entries.entries()) {
      history.record(entry);
      const list = history.list();
      expect(list.length).toBe(Math.min(i + 1, 10));
      expect(list.at(-1)).toBe(entry);
    }
    expect(history.list().map((e) => e.entityId)).toEqual(entries.slice(-10).map((e) => e.entityId));
  });

  it('holds 100 000 entries by default', () => {
    const history = new AuditHistory();
    const entry = auditEntryOf(priceSet(), false);
    for (let i = 0; i < 100_123; i += 1) history.record({ ...entry, eventId: String(i) });
    const list = history.list();
    expect(list).toHaveLength(100_000);
    expect(list[0]!.eventId).toBe('123');
    expect(list.at(-1)!.eventId).toBe('100122');
  });
});

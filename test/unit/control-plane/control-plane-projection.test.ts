/** The projection's fold: idempotency, order, revocation and rotation grace, channels, prices. */
import { describe, expect, it } from 'vitest';
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import { encryptCredential } from '../../../gateway/control-plane/credential-cipher.ts';
import { resolveChannel } from '../../../gateway/routing/channel.ts';
import type { ControlEvent } from '../../../schemas/control-plane/control-plane-events.ts';
import {
  adminTokenCreated,
  adminTokenRevoked,
  channelRemoved,
  channelUpserted,
  keyCreated,
  keyRevoked,
  keyUpdated,
  priceSet,
  TEST_MASTER_KEY,
  userCreated,
  userUpdated,
} from './control-event-fixtures.ts';

const projection = (): ControlPlaneProjection => new ControlPlaneProjection(TEST_MASTER_KEY);
const snapshot = (p: ControlPlaneProjection) => ({
  version: p.version,
  keys: p.keys(),
  users: p.users(),
  channels: p.channels(),
  prices: p.prices(),
});

describe('ControlPlaneProjection', () => {
  it('applies the same eventId only once', () => {
    const p = projection();
    const events = [userCreated(), keyCreated(), channelUpserted(), priceSet(), keyRevoked({ effectiveAt: 1_000 })];
    expect(p.applyBatch(events)).toBe(5);
    const before = snapshot(p);
    expect(p.applyBatch(events)).toBe(0);
    for (const event of events) p.apply(event);
    expect(snapshot(p)).toEqual(before);
    expect(p.version).toBe(5);
    expect(p.hasApplied(events[0]!.event.eventId)).toBe(true);
  });

  it('lets later events win per entity, keeping createdAt', () => {
    const p = projection();
    p.applyBatch([
      userCreated({ occurredAt: 10 }),
      userUpdated({ occurredAt: 20, name: 'B' }),
      userUpdated({ occurredAt: 30, name: 'C', disabled: false, quotaNanoUsd: '42' }),
    ]);
    expect(p.user('usr_1')).toEqual({
      userId: 'usr_1',
      name: 'C',
      role: 'admin',
      rpm: null,
      tpm: 10_000,
      quotaNanoUsd: 42n,
      disabled: false,
      createdAt: 10,
      login: null,
      passwordHash: null,
    });
    p.apply(keyCreated({ occurredAt: 11 }));
    p.apply(keyUpdated({ occurredAt: 12, name: 'second', models: ['a'], quotaNanoUsd: '7', enabled: true }));
    const key = p.key('key_abc');
    expect(key).toMatchObject({
      name: 'second',
      enabled: true,
      quotaNanoUsd: 7n,
      createdAt: 11,
      userId: 'usr_1',
      publicId: 'abcdefghijkl',
    });
    expect([...(key?.models ?? [])]).toEqual(['a']);
    expect(p.keyByDigest('d'.repeat(64))).toBe(key);
    expect(p.keyByDigest('e'.repeat(64))).toBeUndefined();
  });

  it('revokes at effectiveAt and never un-revokes or postpones', () => {
    const p = projection();
    p.apply(keyCreated());
    p.apply(keyRevoked({ effectiveAt: 5_000 }));
    expect(p.key('key_abc')?.revokedAt).toBe(5_000);
    p.apply(keyRevoked({ effectiveAt: 9_000 }));
    expect(p.key('key_abc')?.revokedAt).toBe(5_000);
    p.apply(keyRevoked({ effectiveAt: 2_000 }));
    expect(p.key('key_abc')?.revokedAt).toBe(2_000);
    p.apply(keyUpdated({ enabled: true }));
    p.apply(keyCreated());
    expect(p.key('key_abc')?.revokedAt).toBe(2_000);
  });

  it('models a rotation: the new key works, the old one until the grace period ends', () => {
    const p = projection();
    const now = 1_767_225_600_000;
    p.apply(keyCreated({ keyId: 'key_old', digest: 'a'.repeat(64) }));
    p.applyBatch([
      keyCreated({ keyId: 'key_new', digest: 'b'.repeat(64), occurredAt: now }),
      keyRevoked({ keyId: 'key_old', effectiveAt: now + 3_600_000, reason: 'rotated' }),
    ]);
    const old = p.keyByDigest('a'.repeat(64));
    expect(old?.revokedAt).toBe(now + 3_600_000);
    expect(old && old.revokedAt !== null && old.revokedAt > now).toBe(true);
    expect(p.keyByDigest('b'.repeat(64))?.revokedAt).toBeNull();
  });

  it('ignores updates and revocations of unknown keys, with a warning', () => {
    const warnings: string[] = [];
    const p = new ControlPlaneProjection(TEST_MASTER_KEY, { onWarning: (message) => warnings.push(message) });
    p.applyBatch([keyUpdated({ keyId: 'key_x' }), keyRevoked({ keyId: 'key_y' })]);
    expect(p.keys()).toEqual([]);
    expect(warnings).toEqual(['KeyUpdated for unknown key key_x ignored', 'KeyRevoked for unknown key key_y ignored']);
    expect(p.version).toBe(2);
  });

  it('replaces the digest index when a key is re-created with another digest', () => {
    const p = projection();
    p.apply(keyCreated({ digest: '1'.repeat(64) }));
    p.apply(keyCreated({ digest: '2'.repeat(64) }));
    expect(p.keyByDigest('1'.repeat(64))).toBeUndefined();
    expect(p.keyByDigest('2'.repeat(64))?.keyId).toBe('key_abc');
  });

  it('decrypts channel credentials into a routable ChannelConfig', () => {
    const p = projection();
    p.apply(channelUpserted({ mock: { latencyMs: 1, chunkDelayMs: 2, failStatus: 429 } }, 'upstream-secret'));
    const [record] = p.channels();
    expect(record?.config).toEqual({
      id: 'ch-1',
      provider: 'mock',
      protocol: 'openai-chat',
      apiKey: 'upstream-secret',
      models: ['mock-1'],
      modelMap: { 'gpt-4o': 'mock-1' },
      priority: 1,
      weight: 2.5,
      enabled: true,
      timeoutMs: 30_000,
      deadlineMs: 600_000,
      minStreamRate: { bytes: 256, windowMs: 300_000 },
      headers: {},
      mock: { latencyMs: 1, chunkDelayMs: 2, failStatus: 429 },
    });
    expect(record).toMatchObject({ rpm: 600, tpm: null });
    const channel = resolveChannel(record!.config, 'http://127.0.0.1:1234');
    expect(channel).toMatchObject({ id: 'ch-1', apiKey: 'upstream-secret', protocol: 'openai-chat', enabled: true });
    expect([...channel.models]).toEqual(['mock-1', 'gpt-4o']);
  });

  it('keeps a channel whose credential does not decrypt, disabled, with a warning', () => {
    const warnings: string[] = [];
    const p = new ControlPlaneProjection(TEST_MASTER_KEY, { onWarning: (message) => warnings.push(message) });
    p.apply(channelUpserted({}, 'secret', Buffer.alloc(32, 9)));
    expect(p.channels()[0]?.config).toMatchObject({ id: 'ch-1', enabled: false, apiKey: '' });
    expect(warnings).toEqual([
      'channel ch-1 disabled: its credential cannot be decrypted with this TOLLGATE_MASTER_KEY (wrong key or tampered event)',
    ]);
    expect(p.warnings()).toEqual(warnings);
    expect(warnings.join()).not.toContain('secret,');
  });

  it('leaves out a channel that routing could not resolve, with a warning', () => {
    const p = projection();
    p.apply(channelUpserted({ channelId: 'ok' }));
    p.apply(channelUpserted({ channelId: 'bad', provider: 'no-such-provider' }));
    p.apply(channelUpserted({ channelId: 'empty', models: [], modelMap: {} }));
    expect(p.channels().map((c) => c.config.id)).toEqual(['ok']);
    expect(p.warnings()).toHaveLength(2);
    expect(p.warnings()[0]).toMatch(/^channel bad left out: provider: /);
    expect(p.warnings()[1]).toMatch(/^channel empty left out: models: must serve at least one model/);
  });

  it('replaces channels in place and removes them', () => {
    const p = projection();
    p.applyBatch([
      channelUpserted({ channelId: 'a' }),
      channelUpserted({ channelId: 'b' }),
      channelUpserted({ channelId: 'a', weight: 9, occurredAt: 99 }),
    ]);
    expect(p.channels().map((c) => [c.config.id, c.config.weight, c.updatedAt])).toEqual([
      ['a', 9, 99],
      ['b', 2.5, 1_767_225_600_000],
    ]);
    p.apply(channelRemoved('a'));
    expect(p.channels().map((c) => c.config.id)).toEqual(['b']);
    expect(p.channel('a')).toBeUndefined();
  });

  it('upserts prices by priceId in the config-file entry shape, listed in the order last set', () => {
    const p = projection();
    p.applyBatch([
      priceSet(),
      priceSet({ priceId: 'price_2', model: 'x', channel: 'ch-1', cacheReadPerMTok: null, cacheWritePerMTok: 0.5 }),
      priceSet({ inputPerMTok: 3 }),
    ]);
    expect(p.prices()).toEqual([
      {
        priceId: 'price_2',
        model: 'x',
        channel: 'ch-1',
        inputPerMTok: 2.5,
        outputPerMTok: 10,
        cacheWritePerMTok: 0.5,
        effectiveFrom: '2025-01-01T00:00:00.000Z',
      },
      {
        priceId: 'price_1',
        model: 'gpt-4o',
        inputPerMTok: 3,
        outputPerMTok: 10,
        cacheReadPerMTok: 1.25,
        effectiveFrom: '2025-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('keeps personal admin tokens by digest; a revocation is final; unknown or repeated events warn', () => {
    const p = projection();
    p.applyBatch([
      adminTokenCreated(),
      adminTokenCreated({ name: 'mallory' }),
      adminTokenRevoked({ reason: 'left' }),
      adminTokenRevoked({ tokenId: 'adm_unknown' }),
    ]);
    expect(p.adminTokenByDigest('a'.repeat(64))).toMatchObject({
      tokenId: 'adm_0123456789abcdef',
      name: 'alice',
      createdBy: 'admin',
      revokedAt: expect.any(Number),
      revokedBy: 'admin',
    });
    expect(p.adminTokens()).toHaveLength(1);
    expect(p.warnings()).toEqual([
      expect.stringMatching(/AdminTokenCreated for existing token adm_0123456789abcdef ignored/),
      expect.stringMatching(/AdminTokenRevoked for unknown token adm_unknown ignored/),
    ]);
    expect(p.history().find((e) => e.type === 'AdminTokenCreated')).toMatchObject({
      entityId: 'adm_0123456789abcdef',
      changes: { tokenId: 'adm_0123456789abcdef', name: 'alice' },
    });
    expect(JSON.stringify(p.history())).not.toContain('a'.repeat(64));
  });

  it('fails closed on a malformed quota', () => {
    const p = projection();
    p.apply(userCreated({ quotaNanoUsd: '1.5' }));
    expect(p.user('usr_1')?.quotaNanoUsd).toBe(0n);
    expect(p.warnings()[0]).toMatch(/quotaNanoUsd is not a non-negative integer; quota set to 0/);
  });

  it('notifies listeners once per batch that applied something', () => {
    const p = projection();
    let calls = 0;
    const off = p.onChange(() => (calls += 1));
    const batch: ControlEvent[] = [userCreated(), keyCreated(), channelUpserted()];
    p.applyBatch(batch);
    expect(calls).toBe(1);
    p.applyBatch(batch);
    expect(calls).toBe(1);
    p.apply(priceSet());
    expect(calls).toBe(2);
    p.onChange(() => {
      throw new Error('listener bug');
    });
    p.apply(channelRemoved());
    expect(calls).toBe(3);
    off();
    p.apply(userUpdated());
    expect(calls).toBe(3);
  });

  it('rebuilds the same state from a replay', () => {
    const history = [
      userCreated(),
      keyCreated(),
      channelUpserted({}, encryptCredential(TEST_MASTER_KEY, 'x')),
      keyRevoked({ effectiveAt: 77 }),
      priceSet(),
      channelUpserted({ channelId: 'ch-2' }),
      channelRemoved('ch-1'),
    ];
    const a = projection();
    history.forEach((event) => a.apply(event));
    const b = projection();
    b.applyBatch(history);
    expect(snapshot(b)).toEqual(snapshot(a));
  });
});

/** The config file as control events: only differences, nothing twice, never a secret in clear. */
import { describe, expect, it } from 'vitest';
import { eventsForConfigFile, sameChannelConfig } from '../../../gateway/control-plane/config-file-events.ts';
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import { digestApiKey } from '../../../gateway/control-plane/key-material.ts';
import { configFileSchema } from '../../../gateway/config/config-schema.ts';
import { encodeControlEvent } from '../../../schemas/control-plane/control-event-codec.ts';
import { keyRevoked, keyUpdated, TEST_HMAC_SECRET, TEST_MASTER_KEY } from './control-event-fixtures.ts';

const secrets = { masterKey: TEST_MASTER_KEY, hmacSecret: TEST_HMAC_SECRET };
const NOW = 1_767_225_600_000;
const file = (overrides: Record<string, unknown> = {}) =>
  configFileSchema.parse({
    channels: [
      { id: 'openai-main', provider: 'openai', apiKey: 'sk-upstream-1', models: ['gpt-4o'], priority: 2 },
      {
        id: 'mock-a',
        provider: 'mock',
        protocol: 'anthropic-messages',
        models: ['mock-1'],
        modelMap: { b: 'x', a: 'y' },
        mock: { chunkDelayMs: 20, failStatus: 503 },
      },
    ],
    keys: [
      { name: 'demo', key: 'sk-tollgate-demo' },
      { name: 'demo again', key: 'sk-tollgate-demo' },
      { name: 'ci', key: 'sk-ci-key-123' },
    ],
    prices: [
      { model: 'gpt-4o', inputPerMTok: 2.5, outputPerMTok: 10 },
      {
        model: 'gpt-4o',
        channel: 'openai-main',
        inputPerMTok: 2,
        outputPerMTok: 8,
        cacheReadPerMTok: 1,
        effectiveFrom: '2026-01-01',
      },
    ],
    ...overrides,
  });

describe('eventsForConfigFile', () => {
  it('turns a fresh file into KeyCreated, ChannelUpserted and PriceSet events without secrets in clear', () => {
    const view = new ControlPlaneProjection(TEST_MASTER_KEY);
    const events = eventsForConfigFile(file(), view, secrets, NOW);
    expect(events.map((e) => e.type)).toEqual([
      'KeyCreated',
      'KeyCreated',
      'ChannelUpserted',
      'ChannelUpserted',
      'PriceSet',
      'PriceSet',
    ]);
    for (const event of events) expect(event.event).toMatchObject({ actor: 'config-file', occurredAt: NOW });
    const digest = digestApiKey(TEST_HMAC_SECRET, 'sk-tollgate-demo');
    expect(events[0]?.event).toMatchObject({
      keyId: `key_${digest.slice(0, 12)}`,
      publicId: digest.slice(0, 12),
      digest,
      name: 'demo',
      userId: null,
      rpm: null,
      tpm: null,
      quotaNanoUsd: null,
      expiresAt: null,
      models: null,
    });
    const bytes = Buffer.concat(events.map(encodeControlEvent)).toString('latin1');
    for (const secret of ['sk-tollgate-demo', 'sk-ci-key-123', 'sk-upstream-1']) expect(bytes).not.toContain(secret);
    view.applyBatch(events);
    expect(view.keyByDigest(digest)?.name).toBe('demo');
    expect(view.channels().map((c) => c.config)).toEqual(file().channels);
    expect(view.prices().map((p) => p.priceId)).toEqual([
      'config:gpt-4o:*:1970-01-01T00:00:00.000Z',
      'config:gpt-4o:openai-main:2026-01-01T00:00:00.000Z',
    ]);
  });

  it('appends nothing when the same file is applied again', () => {
    const view = new ControlPlaneProjection(TEST_MASTER_KEY);
    view.applyBatch(eventsForConfigFile(file(), view, secrets, NOW));
    expect(eventsForConfigFile(file(), view, secrets, NOW + 1)).toEqual([]);
    // also when the modelMap is written in another order
    const reordered = file();
    const mock = reordered.channels[1]!;
    expect(sameChannelConfig(mock, { ...mock, modelMap: { a: 'y', b: 'x' } })).toBe(true);
  });

  it('re-upserts only a changed channel, keeping limits set through the admin API', () => {
    const view = new ControlPlaneProjection(TEST_MASTER_KEY);
    const first = eventsForConfigFile(file(), view, secrets, NOW);
    view.applyBatch(first);
    const upsert = first.find((e) => e.type === 'ChannelUpserted' && e.event.channelId === 'openai-main');
    if (upsert?.type !== 'ChannelUpserted') throw new Error('no upsert');
    view.apply({ type: 'ChannelUpserted', event: { ...upsert.event, eventId: 'admin-limits', rpm: 120, tpm: 9_000 } });
    const changed = file();
    const channels = [{ ...changed.channels[0]!, apiKey: 'sk-upstream-2' }, changed.channels[1]!];
    const events = eventsForConfigFile({ ...changed, channels }, view, secrets, NOW + 5);
    expect(events.map((e) => [e.type, 'channelId' in e.event ? e.event.channelId : ''])).toEqual([
      ['ChannelUpserted', 'openai-main'],
    ]);
    expect(events[0]?.event).toMatchObject({ rpm: 120, tpm: 9_000 });
    view.applyBatch(events);
    expect(view.channel('openai-main')?.config.apiKey).toBe('sk-upstream-2');
  });

  it('renames a key while keeping its admin settings, and never un-revokes', () => {
    const view = new ControlPlaneProjection(TEST_MASTER_KEY);
    view.applyBatch(eventsForConfigFile(file(), view, secrets, NOW));
    const keyId = `key_${digestApiKey(TEST_HMAC_SECRET, 'sk-ci-key-123').slice(0, 12)}`;
    view.applyBatch([
      keyUpdated({ keyId, name: 'ci', rpm: 5, quotaNanoUsd: '100', models: ['m'], enabled: true, expiresAt: null }),
      keyRevoked({ keyId, effectiveAt: 50 }),
    ]);
    const renamed = file({
      keys: [
        { name: 'demo', key: 'sk-tollgate-demo' },
        { name: 'ci (renamed)', key: 'sk-ci-key-123' },
      ],
    });
    const events = eventsForConfigFile(renamed, view, secrets, NOW);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'KeyUpdated',
      event: { keyId, name: 'ci (renamed)', rpm: 5, quotaNanoUsd: '100', models: ['m'], enabled: true },
    });
    view.applyBatch(events);
    expect(view.key(keyId)).toMatchObject({ name: 'ci (renamed)', revokedAt: 50 });
  });

  it('does not delete what the file no longer lists, and sets a changed price', () => {
    const view = new ControlPlaneProjection(TEST_MASTER_KEY);
    view.applyBatch(eventsForConfigFile(file(), view, secrets, NOW));
    const smaller = file({ channels: [], keys: [], prices: [{ model: 'gpt-4o', inputPerMTok: 3, outputPerMTok: 10 }] });
    const events = eventsForConfigFile(smaller, view, secrets, NOW);
    expect(events.map((e) => e.type)).toEqual(['PriceSet']);
    view.applyBatch(events);
    expect(view.channels()).toHaveLength(2);
    expect(view.keys()).toHaveLength(2);
    expect(view.prices().find((p) => p.priceId === 'config:gpt-4o:*:1970-01-01T00:00:00.000Z')?.inputPerMTok).toBe(3);
  });

  it('re-encrypts a channel whose stored credential no longer decrypts', () => {
    const oldKey = Buffer.alloc(32, 1);
    const before = new ControlPlaneProjection(oldKey);
    const events = eventsForConfigFile(file(), before, { ...secrets, masterKey: oldKey }, NOW);
    const view = new ControlPlaneProjection(TEST_MASTER_KEY);
    view.applyBatch(events);
    expect(view.channels().every((c) => !c.config.enabled)).toBe(true);
    const repair = eventsForConfigFile(file(), view, secrets, NOW);
    expect(repair.map((e) => e.type)).toEqual(['ChannelUpserted', 'ChannelUpserted']);
    view.applyBatch(repair);
    expect(view.channel('openai-main')?.config).toMatchObject({ enabled: true, apiKey: 'sk-upstream-1' });
  });
});

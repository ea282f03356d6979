/**
 * The credential pool (routing/credential-pool.ts): fair round robin over a channel's usable
 * credentials, a preferred credential first when usable, local cooldowns that end on time, shared
 * cooldowns read in the background (never while ordering), a failing store that never throws, and
 * the cooldown lengths.
 */
import { describe, expect, it } from 'vitest';
import {
  cooldownMsFor,
  CredentialPool,
  DEFAULT_RATE_LIMITED_COOLDOWN_MS,
  DEFAULT_REFUSED_COOLDOWN_MS,
  MAX_COOLDOWN_MS,
} from '../../../gateway/routing/credential-pool.ts';
import { createMemoryCredentialCooldowns } from '../../../infra/state-store/memory/memory-credential-cooldowns.ts';
import type { CredentialCooldownStore } from '../../../schemas/state-store/credential-cooldowns.ts';

const channel = {
  id: 'ch',
  apiKey: '',
  credentials: ['a', 'b', 'c'].map((id) => ({ id, apiKey: `sk-${id}`, rpm: null, tpm: null })),
};
const ids = (pool: CredentialPool, preferred?: string) => pool.order(channel, preferred).map((c) => c.id);

describe('credential pool', () => {
  it('starts each request one credential further (round robin), skipping none while all are usable', () => {
    const pool = new CredentialPool();
    expect([ids(pool), ids(pool), ids(pool), ids(pool)]).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
      ['a', 'b', 'c'],
    ]);
  });

  it('puts the preferred credential first when usable, and ignores it when cooling or unknown', () => {
    let now = 1_000_000;
    const pool = new CredentialPool({ clock: () => now });
    expect(ids(pool, 'c')).toEqual(['c', 'a', 'b']);
    pool.markCooling('ch', 'c', 'rate-limited', 5_000);
    expect(ids(pool, 'c')).toEqual(['b', 'a']);
    expect(ids(pool, 'nope')).toEqual(['a', 'b']);
    now += 5_000;
    expect(ids(pool, 'c')).toEqual(['c', 'a', 'b']);
  });

  it('skips a cooling credential until its cooldown ends; a channel with all cooling has none', () => {
    let now = 1_000_000;
    const pool = new CredentialPool({ clock: () => now });
    pool.markCooling('ch', 'a', 'rate-limited', 30_000);
    pool.markCooling('ch', 'b', 'unauthorized', 600_000);
    pool.markCooling('ch', 'c', 'forbidden', 600_000);
    expect(ids(pool)).toEqual([]);
    now += 29_999;
    expect(ids(pool)).toEqual([]);
    now += 1;
    expect(ids(pool)).toEqual(['a']);
    expect(pool.stateOf(channel)).toEqual([
      { id: 'a', coolingUntil: 0, lastErrorKind: 'rate-limited', requests: 0, rotations: 1 },
      { id: 'b', coolingUntil: 1_600_000, lastErrorKind: 'unauthorized', requests: 0, rotations: 1 },
      { id: 'c', coolingUntil: 1_600_000, lastErrorKind: 'forbidden', requests: 0, rotations: 1 },
    ]);
  });

  it('shares cooldowns through the store, read by refresh and never while ordering', async () => {
    const now = Date.now();
    const shared = createMemoryCredentialCooldowns();
    let reads = 0;
    const counted: CredentialCooldownStore = {
      ...shared,
      readCooling: (channelIds, at) => {
        reads++;
        return shared.readCooling(channelIds, at);
      },
    };
    const nodeA = new CredentialPool({ store: counted, channelIds: ['ch'], clock: () => now });
    const nodeB = new CredentialPool({ store: counted, channelIds: ['ch'], clock: () => now });
    nodeA.markCooling('ch', 'b', 'rate-limited', 60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ids(nodeB)).toEqual(['a', 'b', 'c']);
    expect(reads).toBe(0);
    expect(await nodeB.refresh()).toBe(true);
    expect(ids(nodeB)).toEqual(['c', 'a']);
    expect(nodeB.stateOf(channel)[1]).toMatchObject({
      id: 'b',
      coolingUntil: now + 60_000,
      lastErrorKind: 'rate-limited',
    });
    expect(reads).toBe(1);
  });

  it('keeps routing on its own marks when the store fails, logging the outage once', async () => {
    const warnings: string[] = [];
    const broken: CredentialCooldownStore = {
      markCooling: () => Promise.reject(new Error('down')),
      readCooling: () => Promise.reject(new Error('down')),
      close: async () => {},
    };
    const pool = new CredentialPool({
      store: broken,
      channelIds: ['ch'],
      log: { warn: (_details, message) => warnings.push(message), info: () => {} },
    });
    pool.markCooling('ch', 'a', 'rate-limited', 60_000);
    expect(await pool.refresh()).toBe(false);
    expect(await pool.refresh()).toBe(false);
    expect(ids(pool)).not.toContain('a');
    expect(warnings).toHaveLength(1);
  });

  it('cools down for Retry-After when given (1 s to 1 h), else 60 s after a 429 and 10 min after a 401/403', () => {
    expect(cooldownMsFor('rate-limited', 30_000)).toBe(30_000);
    expect(cooldownMsFor('rate-limited', 20)).toBe(1_000);
    expect(cooldownMsFor('unauthorized', 86_400_000)).toBe(MAX_COOLDOWN_MS);
    expect(cooldownMsFor('rate-limited', undefined)).toBe(DEFAULT_RATE_LIMITED_COOLDOWN_MS);
    expect(cooldownMsFor('forbidden', undefined)).toBe(DEFAULT_REFUSED_COOLDOWN_MS);
    expect([DEFAULT_RATE_LIMITED_COOLDOWN_MS, DEFAULT_REFUSED_COOLDOWN_MS]).toEqual([60_000, 600_000]);
  });
});

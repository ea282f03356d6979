/**
 * The InFlightRegistry contract (in-flight-registry-contract.ts) on the memory adapter, its own
 * clock deciding expiry, and being the memory state store's registry in open-adapters.ts (so the
 * gateway nodes of one process that share the store see each other).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryInFlightRegistry } from '../../../infra/state-store/memory/memory-in-flight-registry.ts';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import { openInFlightRegistry } from '../../../infra/open-adapters.ts';
import { describeInFlightRegistryContract, T0 } from './in-flight-registry-contract.ts';

describeInFlightRegistryContract('memory', (count) => {
  const shared = createMemoryInFlightRegistry();
  return Array.from({ length: count }, () => shared);
});

describe('memory in-flight registry', () => {
  it('decides expiry by its clock when no time is given', async () => {
    let now = T0;
    const registry = createMemoryInFlightRegistry({ clock: () => now });
    await registry.publishAndReadOthers('dead', new Map([['ch', 2]]), 1_000);
    now = T0 + 999;
    expect(await registry.publishAndReadOthers('alive', new Map(), 1_000)).toEqual(new Map([['ch', 2]]));
    now = T0 + 1_000;
    expect(await registry.publishAndReadOthers('alive', new Map(), 1_000)).toEqual(new Map());
  });

  it("is the memory state store's registry when there is no Redis, and a new one otherwise", async () => {
    const state = createMemoryStateStore();
    const settings = { dataDir: '/nonexistent' };
    expect(openInFlightRegistry(settings, state)).toBe(state.inFlight);
    const first = openInFlightRegistry(settings, state);
    await first.publishAndReadOthers('node-a', new Map([['ch', 1]]), 3_000);
    expect(await openInFlightRegistry(settings, state).publishAndReadOthers('node-b', new Map(), 3_000)).toEqual(
      new Map([['ch', 1]]),
    );
    const unshared = openInFlightRegistry(settings);
    expect(unshared).not.toBe(state.inFlight);
    expect(await unshared.publishAndReadOthers('node-b', new Map(), 3_000)).toEqual(new Map());
    // the registry is not part of the store's snapshot content
    expect(Object.keys(state.exportContent())).not.toContain('inFlight');
  });
});

/**
 * The InFlightRegistry contract (schemas/state-store/in-flight-registry.ts), one suite every
 * adapter runs (memory in memory-in-flight-registry.test.ts, Redis and the Redis Cluster under
 * test/integration/state-store/): each node reads the sum of the OTHER live nodes' counts, a
 * publication replaces the node's previous one, a node that stops publishing is forgotten once
 * its TTL has passed (and not a millisecond before), a withdrawn node at once, and malformed
 * input is refused before anything changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { InFlightRegistry } from '../../../schemas/state-store/in-flight-registry.ts';

/** The instant the tests run at (ms since epoch). */
export const T0 = 1_700_000_000_000;

/** Makes `count` registries sharing one fresh state (Redis: separate connections, like separate nodes). */
export type InFlightRegistryFactory = (count: number) => InFlightRegistry[];

const counts = (entries: Record<string, number>): Map<string, number> => new Map(Object.entries(entries));

/** Registers the contract suite of one adapter; `make` is called inside the tests only. */
export function describeInFlightRegistryContract(adapter: string, make: InFlightRegistryFactory): void {
  describe(`InFlightRegistry contract: ${adapter}`, () => {
    const open: InFlightRegistry[] = [];
    const fresh = (count: number): InFlightRegistry[] => {
      const registries = make(count);
      open.push(...new Set(registries));
      return registries;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((registry) => registry.close()));
    });

    it("sums the other live nodes' counts per channel, never the caller's own", async () => {
      const [a, b, c] = fresh(3) as [InFlightRegistry, InFlightRegistry, InFlightRegistry];
      expect(await a.publishAndReadOthers('node-a', counts({ ch1: 2, ch2: 1 }), 3_000, T0)).toEqual(new Map());
      expect(await b.publishAndReadOthers('node-b', counts({ ch1: 5, ch3: 0 }), 3_000, T0 + 1)).toEqual(
        counts({ ch1: 2, ch2: 1 }),
      );
      expect(await c.publishAndReadOthers('node-c', new Map(), 3_000, T0 + 2)).toEqual(counts({ ch1: 7, ch2: 1 }));
      expect(await a.publishAndReadOthers('node-a', counts({ ch1: 2, ch2: 1 }), 3_000, T0 + 3)).toEqual(
        counts({ ch1: 5 }),
      );
    });

    it("replaces a node's previous counts with each publication", async () => {
      const [a, b] = fresh(2) as [InFlightRegistry, InFlightRegistry];
      await a.publishAndReadOthers('node-a', counts({ ch1: 4, ch2: 3 }), 3_000, T0);
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0)).toEqual(counts({ ch1: 4, ch2: 3 }));
      await a.publishAndReadOthers('node-a', counts({ ch2: 1 }), 3_000, T0 + 10);
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 10)).toEqual(counts({ ch2: 1 }));
      await a.publishAndReadOthers('node-a', new Map(), 3_000, T0 + 20);
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 20)).toEqual(new Map());
    });

    it('forgets a node that stopped publishing once its TTL has passed', async () => {
      const [a, b] = fresh(2) as [InFlightRegistry, InFlightRegistry];
      await a.publishAndReadOthers('crashed', counts({ ch1: 3 }), 3_000, T0);
      await a.publishAndReadOthers('short-lived', counts({ ch1: 1 }), 500, T0);
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 499)).toEqual(counts({ ch1: 4 }));
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 500)).toEqual(counts({ ch1: 3 }));
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 2_999)).toEqual(counts({ ch1: 3 }));
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 3_000)).toEqual(new Map());
      // a node that publishes again is live again
      await a.publishAndReadOthers('crashed', counts({ ch1: 2 }), 3_000, T0 + 4_000);
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 4_001)).toEqual(counts({ ch1: 2 }));
    });

    it('forgets a withdrawn node at once, and a withdrawal of an unknown node changes nothing', async () => {
      const [a, b] = fresh(2) as [InFlightRegistry, InFlightRegistry];
      await a.publishAndReadOthers('node-a', counts({ ch1: 3 }), 3_000, T0);
      await a.withdraw('someone-else');
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 1)).toEqual(counts({ ch1: 3 }));
      await a.withdraw('node-a');
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 2)).toEqual(new Map());
    });

    it('keeps channel ids verbatim, whatever they contain', async () => {
      const [a, b] = fresh(2) as [InFlightRegistry, InFlightRegistry];
      const odd = new Map([
        ['openai:{eu}"1"', 1],
        ['__proto__', 2],
        ['ch 3\n', 3],
      ]);
      await a.publishAndReadOthers('node:{a}', odd, 3_000, T0);
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0)).toEqual(odd);
    });

    it('refuses malformed input before anything changes', async () => {
      const [a, b] = fresh(2) as [InFlightRegistry, InFlightRegistry];
      await a.publishAndReadOthers('node-a', counts({ ch1: 1 }), 3_000, T0);
      for (const [nodeId, published, ttlMs] of [
        ['', counts({ ch1: 9 }), 3_000],
        ['node-a', counts({ ch1: -1 }), 3_000],
        ['node-a', counts({ ch1: 1.5 }), 3_000],
        ['node-a', counts({ '': 9 }), 3_000],
        ['node-a', counts({ ch1: 9 }), 0],
        ['node-a', counts({ ch1: 9 }), Number.NaN],
      ] as const)
        await expect(a.publishAndReadOthers(nodeId, published, ttlMs, T0 + 1)).rejects.toThrow(RangeError);
      await expect(a.withdraw('')).rejects.toThrow(RangeError);
      expect(await b.publishAndReadOthers('node-b', new Map(), 3_000, T0 + 2)).toEqual(counts({ ch1: 1 }));
    });
  });
}

/**
 * The InFlightBoard over the memory in-flight registry (the one the memory state store carries):
 * local counts at once, begin/end idempotent, two boards over one registry seeing each other after
 * a refresh, a stopped board withdrawn, the background loop every refreshMs, and fail-open on an
 * outage (the last read kept until it is as old as the TTL, then local counts only; logged once).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InFlightBoard } from '../../../gateway/routing/in-flight-board.ts';
import { createMemoryInFlightRegistry } from '../../../infra/state-store/memory/memory-in-flight-registry.ts';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import type { InFlightRegistry } from '../../../schemas/state-store/in-flight-registry.ts';
import { StateStoreUnavailableError } from '../../../schemas/state-store/state-store-unavailable.ts';

/** A registry that answers like `inner` until `down` is set, then rejects as the Redis adapter does in an outage. */
function interruptible(inner: InFlightRegistry): InFlightRegistry & { down: boolean } {
  const registry = {
    down: false,
    publishAndReadOthers: (...args: Parameters<InFlightRegistry['publishAndReadOthers']>) =>
      registry.down
        ? Promise.reject(new StateStoreUnavailableError('in-flight registry (Redis)', 'unreachable', 0))
        : inner.publishAndReadOthers(...args),
    withdraw: (nodeId: string) =>
      registry.down
        ? Promise.reject(new StateStoreUnavailableError('in-flight registry (Redis)', 'unreachable', 0))
        : inner.withdraw(nodeId),
    close: () => inner.close(),
  };
  return registry;
}

describe('in-flight board', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts local attempts at once; each end function ends its own attempt once', () => {
    const board = new InFlightBoard({ registry: createMemoryInFlightRegistry() });
    expect(board.inFlight('ch')).toBe(0);
    const first = board.begin('ch');
    const second = board.begin('ch');
    board.begin('other');
    expect(board.inFlight('ch')).toBe(2);
    first();
    first();
    first();
    expect(board.inFlight('ch')).toBe(1);
    second();
    expect(board.inFlight('ch')).toBe(0);
    expect(board.localInFlight('other')).toBe(1);
    expect(board.nodeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(board.ttlMs).toBe(3_000);
  });

  it("sees the other board's attempts after both refreshed, never its own twice", async () => {
    const state = createMemoryStateStore();
    const a = new InFlightBoard({ registry: state.inFlight, nodeId: 'a' });
    const b = new InFlightBoard({ registry: state.inFlight, nodeId: 'b' });
    const endA1 = a.begin('ch');
    a.begin('ch');
    b.begin('ch');
    b.begin('ch-b');
    expect(b.inFlight('ch')).toBe(1); // before any refresh: local only
    expect(await a.refresh()).toBe(true);
    expect(await b.refresh()).toBe(true);
    expect(b.inFlight('ch')).toBe(3);
    expect(a.inFlight('ch')).toBe(2); // a read before b published
    expect(await a.refresh()).toBe(true);
    expect(a.inFlight('ch')).toBe(3);
    expect(a.inFlight('ch-b')).toBe(1);
    endA1();
    expect(a.inFlight('ch')).toBe(2); // its own end counts at once
    expect(b.inFlight('ch')).toBe(3); // the other sees it at its next refresh after a published
    await a.refresh();
    await b.refresh();
    expect(b.inFlight('ch')).toBe(2);
    await a.stop();
    await b.refresh();
    expect(b.inFlight('ch')).toBe(1);
    await b.stop();
  });

  it('publishes and reads every refreshMs in the background until stopped', async () => {
    vi.useFakeTimers();
    const registry = createMemoryInFlightRegistry();
    const publish = vi.spyOn(registry, 'publishAndReadOthers');
    const board = new InFlightBoard({ registry, nodeId: 'n', refreshMs: 250 });
    expect(await board.start()).toBe(true);
    expect(publish).toHaveBeenCalledTimes(1);
    expect(publish.mock.calls[0]?.slice(0, 3)).toEqual(['n', new Map(), 750]);
    board.begin('ch');
    await vi.advanceTimersByTimeAsync(500);
    expect(publish).toHaveBeenCalledTimes(3);
    expect(publish.mock.calls[2]?.[1]).toEqual(new Map([['ch', 1]]));
    await board.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(publish).toHaveBeenCalledTimes(3);
  });

  it('fails open: keeps the last read until it is as old as the TTL, then counts locally; logs once per outage', async () => {
    let now = 1_700_000_000_000;
    const shared = createMemoryInFlightRegistry({ clock: () => now });
    const flaky = interruptible(shared);
    const log = { warn: vi.fn(), info: vi.fn() };
    const board = new InFlightBoard({ registry: flaky, nodeId: 'me', refreshMs: 1_000, clock: () => now, log });
    await shared.publishAndReadOthers('other', new Map([['ch', 4]]), 60_000);
    board.begin('ch');
    expect(await board.refresh()).toBe(true);
    expect(board.inFlight('ch')).toBe(5);
    flaky.down = true;
    now += 1_000;
    expect(await board.refresh()).toBe(false);
    now += 1_000;
    expect(await board.refresh()).toBe(false);
    expect(board.inFlight('ch')).toBe(5); // 2 000 ms old: younger than the TTL (3 000 ms)
    now += 1_000;
    expect(board.inFlight('ch')).toBe(1); // as old as the TTL: this node's count only
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0]?.[0]).toEqual({ reason: 'the in-flight registry (Redis) is unreachable' });
    await board.stop(); // its withdrawal fails too, and is not an error
    flaky.down = false;
    expect(await board.refresh()).toBe(true);
    expect(board.inFlight('ch')).toBe(5);
    expect(log.info).toHaveBeenCalledTimes(1);
  });

  it('refuses an empty node id and a refresh period that is not a positive whole number of ms', () => {
    const registry = createMemoryInFlightRegistry();
    expect(() => new InFlightBoard({ registry, nodeId: '' })).toThrow(RangeError);
    expect(() => new InFlightBoard({ registry, refreshMs: 0 })).toThrow(RangeError);
    expect(() => new InFlightBoard({ registry, refreshMs: 1.5 })).toThrow(RangeError);
  });
});

/**
 * The embedded store's snapshot: a store recreated from a snapshot answers exactly as the one it
 * was taken of (spend, health, watermarks, budget windows), and a damaged file is refused rather than trusted.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import {
  decodeMemoryStateSnapshot,
  encodeMemoryStateSnapshot,
  readMemoryStateSnapshot,
  writeMemoryStateSnapshot,
} from '../../../infra/state-store/memory/memory-state-snapshot.ts';

const T0 = 1_800_000_000_000;
const usage = (offset: number) => ({ topic: 'tollgate.usage', partition: 0, offset: String(offset) });
const requests = (offset: number) => ({ topic: 'tollgate.requests', partition: 0, offset: String(offset) });

async function populated() {
  const store = createMemoryStateStore();
  await store.addSpendBatch([
    { position: usage(10), keyId: 'key-a', userId: 'user-1', costNanoUsd: 9_223_372_036_854_775_000n },
    { position: usage(20), keyId: 'key-b', userId: null, costNanoUsd: 1_234n },
  ]);
  await store.recordChannelObservation({
    eventId: 'e1',
    position: requests(5),
    channelId: 'ch',
    at: T0,
    ok: false,
    latencyMs: 30,
    retryAfterMs: 5_000,
  });
  await store.recordChannelObservation({
    eventId: 'e2',
    position: requests(9),
    channelId: 'ch',
    at: T0 + 10,
    ok: true,
    latencyMs: 120,
    totalMs: 2_400,
  });
  return store;
}

describe('memory state snapshot', () => {
  it('round-trips: same spend, same health, and the watermarks still skip what was applied', async () => {
    const store = await populated();
    const decoded = decodeMemoryStateSnapshot(
      encodeMemoryStateSnapshot({ writtenAt: T0, covers: { 'tollgate.usage': 30 }, state: store.exportContent() }),
    );
    expect(decoded.covers).toEqual({ 'tollgate.usage': 30 });
    const copy = createMemoryStateStore(decoded.state);
    expect(await copy.getSpend('key-a', 'user-1')).toEqual(await store.getSpend('key-a', 'user-1'));
    expect(await copy.getChannelHealth(['ch'], T0 + 20)).toEqual(await store.getChannelHealth(['ch'], T0 + 20));
    expect(await copy.addSpend(usage(20), 'key-b', null, 5n)).toBe(false);
    expect(await copy.addSpend(usage(21), 'key-b', null, 5n)).toBe(true);
    expect((await copy.getSpend('key-b', null)).keyNanoUsd).toBe(1_239n);
    expect(copy.watermarkOf('health', 'tollgate.requests', 0)).toBe(9);
  });

  it('round-trips the budget windows (spend beyond 2^53, watermarks, alert marks) but not their holds', async () => {
    const store = await populated();
    const window = { budgetId: 'b-1', windowStartMs: T0, windowEndMs: T0 + 86_400_000 };
    const lifetime = { budgetId: 'b-2', windowStartMs: 0, windowEndMs: null };
    await store.budgets.addBudgetSpendBatch(
      [
        { position: usage(10), requestId: 'r1', counter: window, costNanoUsd: 2n ** 62n + 3n, tokens: 40 },
        { position: usage(10), requestId: 'r1', counter: lifetime, costNanoUsd: 7n, tokens: 2 },
      ],
      T0,
    );
    await store.budgets.markThresholdAlerted(window, 75);
    const claim = { counter: window, limitNanoUsd: null, limitTokens: null, reserveNanoUsd: 5n, reserveTokens: 5 };
    await store.budgets.reserve('r2', [claim], T0 + 60_000, T0);
    const decoded = decodeMemoryStateSnapshot(
      encodeMemoryStateSnapshot({ writtenAt: T0, covers: {}, state: store.exportContent() }),
    );
    const copy = createMemoryStateStore(decoded.state);
    expect(await copy.budgets.readBudgetUse([window, lifetime], T0)).toEqual([
      {
        counter: window,
        spentNanoUsd: 2n ** 62n + 3n,
        spentTokens: 40,
        heldNanoUsd: 0n,
        heldTokens: 0,
        alertedPercents: [75],
      },
      { counter: lifetime, spentNanoUsd: 7n, spentTokens: 2, heldNanoUsd: 0n, heldTokens: 0, alertedPercents: [] },
    ]);
    // the per-window watermark came along
    await copy.budgets.addBudgetSpendBatch(
      [{ position: usage(10), requestId: 'r1', counter: window, costNanoUsd: 1n, tokens: 1 }],
      T0,
    );
    expect((await copy.budgets.readBudgetUse([window], T0))[0]?.spentNanoUsd).toBe(2n ** 62n + 3n);
  });

  it('reads a snapshot written before budgets existed as holding no budget spend', async () => {
    const file = JSON.parse(
      encodeMemoryStateSnapshot({ writtenAt: T0, covers: {}, state: (await populated()).exportContent() }),
    ) as { covers: object; state: { budgets?: unknown }; sha256: string };
    delete file.state.budgets;
    file.sha256 = createHash('sha256')
      .update(JSON.stringify([file.covers, file.state]))
      .digest('hex');
    const decoded = decodeMemoryStateSnapshot(JSON.stringify(file));
    expect(decoded.state.budgets).toBeUndefined();
    expect(createMemoryStateStore(decoded.state).budgets.exportContent()).toEqual({ counters: [] });
  });

  it('reads channel health written before totalLatencyEwmaMs existed as 0, and keeps its digest valid after a fold', async () => {
    const file = JSON.parse(
      encodeMemoryStateSnapshot({ writtenAt: T0, covers: {}, state: (await populated()).exportContent() }),
    ) as { covers: object; state: { channels: Array<{ state: Record<string, unknown> }> }; sha256: string };
    expect(file.state.channels[0]?.state.totalLatencyEwmaMs).toBe(2_400);
    delete file.state.channels[0]?.state.totalLatencyEwmaMs;
    file.sha256 = createHash('sha256')
      .update(JSON.stringify([file.covers, file.state]))
      .digest('hex');
    const old = createMemoryStateStore(decodeMemoryStateSnapshot(JSON.stringify(file)).state);
    expect((await old.getChannelHealth(['ch'], T0 + 20))[0]).toMatchObject({
      latencyEwmaMs: 120,
      totalLatencyEwmaMs: 0,
    });
    // folding into the old state and snapshotting again writes a file that decodes (fields in the schema's order)
    await old.recordChannelObservation({
      eventId: 'e3',
      position: requests(10),
      channelId: 'ch',
      at: T0 + 20,
      ok: true,
      latencyMs: 100,
      totalMs: 900,
    });
    const again = decodeMemoryStateSnapshot(
      encodeMemoryStateSnapshot({ writtenAt: T0, covers: {}, state: old.exportContent() }),
    );
    expect((await createMemoryStateStore(again.state).getChannelHealth(['ch'], T0 + 21))[0]).toMatchObject({
      totalLatencyEwmaMs: 900,
    });
  });

  it('refuses a truncated file, an altered one, and another format', async () => {
    const text = encodeMemoryStateSnapshot({ writtenAt: T0, covers: {}, state: (await populated()).exportContent() });
    expect(() => decodeMemoryStateSnapshot(text.slice(0, -10))).toThrow();
    expect(() => decodeMemoryStateSnapshot(text.replace('"1234"', '"1235"'))).toThrow(/sha256/);
    expect(() => decodeMemoryStateSnapshot(text.replace('"version":1', '"version":2'))).toThrow(/memory-state/);
  });

  it('reads none, unusable or found from the data dir, and writes atomically over the old file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-snapshot-'));
    const path = join(dir, 'state', 'memory-state.json');
    expect(await readMemoryStateSnapshot(path)).toEqual({ kind: 'none' });
    await writeMemoryStateSnapshot(path, {
      writtenAt: T0,
      covers: { 'tollgate.usage': 1 },
      state: (await populated()).exportContent(),
    });
    expect((await readMemoryStateSnapshot(path)).kind).toBe('found');
    writeFileSync(path, 'not json');
    expect((await readMemoryStateSnapshot(path)).kind).toBe('unusable');
  });
});

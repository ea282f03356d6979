/**
 * The consumers' state store across threads: calls made on one end of a MessageChannel run on the
 * memory state store served at the other (its budget ledger included), results (bigint spend included) come back, a RangeError
 * stays a RangeError (the health consumer skips those events), and a closed port fails calls.
 */
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import { consumerStateOverPort, serveConsumerState } from '../../../infra/processes/consumer-state-over-port.ts';
import { DEFAULT_HEALTH_POLICY } from '../../../schemas/state-store/state-store.ts';

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) channel.port1.close();
});

function bridge() {
  const served = createMemoryStateStore();
  const channel = new MessageChannel();
  channels.push(channel);
  serveConsumerState(served, channel.port1);
  return { served, remote: consumerStateOverPort(channel.port2) };
}

const position = (offset: number) => ({ topic: 'tollgate.requests', partition: 0, offset: String(offset) });

describe('consumer state over a MessagePort', () => {
  it('adds spend on the served store, once per log position', async () => {
    const { served, remote } = bridge();
    const increment = { position: position(7), keyId: 'key_a', userId: 'usr_a', costNanoUsd: 9_007_199_254_740_993n };
    expect(await remote.addSpendBatch([increment])).toBe(1);
    expect(await remote.addSpendBatch([increment])).toBe(0);
    expect(await served.getSpend('key_a', 'usr_a')).toEqual({
      keyNanoUsd: 9_007_199_254_740_993n,
      userNanoUsd: 9_007_199_254_740_993n,
    });
  });

  it('folds channel observations there, and a RangeError arrives as a RangeError', async () => {
    const { served, remote } = bridge();
    const observation = {
      eventId: 'e1',
      position: position(1),
      channelId: 'ch-1',
      at: Date.now(),
      ok: false,
      latencyMs: 40,
      errorKind: 'upstream_5xx',
    };
    expect(await remote.recordChannelObservation(observation)).toBe(true);
    expect(await remote.recordChannelObservation(observation)).toBe(false);
    const [health] = await served.getChannelHealth(['ch-1']);
    expect(health?.consecutiveFailures).toBe(1);
    const invalid = remote.recordChannelObservation({
      ...observation,
      eventId: 'e2',
      position: position(2),
      latencyMs: -1,
    });
    await expect(invalid).rejects.toBeInstanceOf(RangeError);
  });

  it("folds a partition's observations in one call, in order, returning the invalid ones it skipped", async () => {
    const { served, remote } = bridge();
    const at = Date.now();
    const failure = (i: number, latencyMs = 40) => ({
      eventId: `e${i}`,
      position: position(i),
      channelId: 'ch-2',
      at: at + i,
      ok: false,
      latencyMs,
      errorKind: 'upstream_5xx',
    });
    const skipped = await remote.recordChannelObservationsInOrder(
      [failure(1), failure(2, -5), failure(3), failure(4)],
      DEFAULT_HEALTH_POLICY,
    );
    expect(skipped).toEqual([{ eventId: 'e2', message: expect.stringMatching(/latency/i) }]);
    const [health] = await served.getChannelHealth(['ch-2']);
    expect(health?.consecutiveFailures).toBe(3);
    expect(await remote.recordChannelObservation(failure(4))).toBe(false);
  });

  it('adds budget spend, reads uses and marks alerts on the served store’s budget ledger', async () => {
    const { served, remote } = bridge();
    const now = Date.now();
    const counter = { budgetId: 'b-1', windowStartMs: now, windowEndMs: now + 86_400_000 };
    await served.budgets.reserve(
      'r1',
      [{ counter, limitNanoUsd: null, limitTokens: null, reserveNanoUsd: 50n, reserveTokens: 5 }],
      now + 60_000,
      now,
    );
    const increment = {
      position: { topic: 'tollgate.usage', partition: 0, offset: '3' },
      requestId: 'r1',
      counter,
      costNanoUsd: 2n ** 60n + 1n,
      tokens: 12,
    };
    const uses = await remote.budgets.addBudgetSpendBatch([increment], now);
    expect(uses).toEqual([
      { counter, spentNanoUsd: 2n ** 60n + 1n, spentTokens: 12, heldNanoUsd: 0n, heldTokens: 0, alertedPercents: [] },
    ]);
    await remote.budgets.addBudgetSpendBatch([increment], now);
    await remote.budgets.markThresholdAlerted(counter, 80);
    expect(await remote.budgets.readBudgetUse([counter], now)).toMatchObject([
      { spentNanoUsd: 2n ** 60n + 1n, alertedPercents: [80] },
    ]);
    await expect(remote.budgets.markThresholdAlerted(counter, 0)).rejects.toBeInstanceOf(RangeError);
  });

  it('answers budget calls with an Error when the served store has no budget ledger', async () => {
    const { addSpendBatch, recordChannelObservation } = createMemoryStateStore();
    const channel = new MessageChannel();
    channels.push(channel);
    serveConsumerState({ addSpendBatch, recordChannelObservation }, channel.port1);
    const remote = consumerStateOverPort(channel.port2);
    await expect(remote.budgets.readBudgetUse([], Date.now())).rejects.toThrow(/no budget ledger/);
  });

  it('rejects calls once the port is closed', async () => {
    const { remote } = bridge();
    remote.close();
    await expect(remote.addSpendBatch([])).rejects.toThrow('state store port is closed');
  });
});

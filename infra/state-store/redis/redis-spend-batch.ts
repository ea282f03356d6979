/**
 * How the Redis state store applies a spend batch (ADD_SPEND_LUA, redis-scripts.ts). On a single
 * Redis: one script call over every counter, so a record's key and user counters change together.
 * On a Redis Cluster: one call per counter (a counter and its applied hash share a hash tag, one
 * slot), sent concurrently; first the counters are read, and when one of them could pass 2^63 − 1
 * nano-USD within the batch, the batch is applied record by record instead, taking a record's key
 * increment back when its user counter refuses it. Either way a refused record changes nothing and
 * the records after it are not applied (state-store.ts contract), except when another partition's
 * writes push a counter to overflow between the read and the write (a counter then within one batch
 * of 9.2e9 USD): that counter's call is refused alone.
 */
import { MAX_SPEND_NANO_USD } from '../../../schemas/state-store/spend-increment.ts';
import { offsetOf } from '../../../schemas/state-store/applied-watermark.ts';
import type { SpendIncrement } from '../../../schemas/state-store/state-store.ts';
import { appliedField, type RedisStateKeys } from './redis-state-keys.ts';

/** One ADD_SPEND_LUA call: its KEYS, its ARGV, and the batch index of each of its records. */
export interface SpendScriptCall {
  readonly keys: string[];
  readonly args: string[];
  readonly records: number[];
  readonly counterNumbers: Map<string, number>;
}

/** ADD_SPEND_LUA's reply: per record 1/0, per counter its watermark before the call ('' = none). */
export type SpendScriptReply = [number[], string[]];

/** The commands a batch needs, each under the store's deadline and breaker. */
export interface SpendScriptRunner {
  run(call: SpendScriptCall): Promise<SpendScriptReply>;
  /** REVERT_SPEND_LUA on one counter. */
  revert(counter: string, applied: string, field: string, amount: string, watermark: string): Promise<void>;
  /** The counters' values (null = none), one GET each. */
  read(counters: ReadonlyArray<string>): Promise<Array<string | null>>;
}

/** The script calls of a batch: one over every counter, or (`perCounter`) one per counter. */
export function spendScriptCalls(
  increments: ReadonlyArray<SpendIncrement>,
  keys: RedisStateKeys,
  perCounter: boolean,
): SpendScriptCall[] {
  const field = appliedField((increments[0] as SpendIncrement).position);
  const calls = new Map<string, SpendScriptCall>();
  const callOf = (counter: string): SpendScriptCall => {
    const id = perCounter ? counter : '';
    let call = calls.get(id);
    if (!call) calls.set(id, (call = { keys: [], args: [field], records: [], counterNumbers: new Map() }));
    return call;
  };
  const numberIn = (call: SpendScriptCall, counter: string, applied: string): string => {
    let number = call.counterNumbers.get(counter);
    if (number === undefined) call.counterNumbers.set(counter, (number = call.keys.push(counter, applied) / 2));
    return String(number);
  };
  increments.forEach((increment, index) => {
    const offset = String(offsetOf(increment.position));
    const amount = increment.costNanoUsd.toString();
    const counters: Array<[string, string]> = [[keys.keySpend(increment.keyId), keys.keySpendApplied(increment.keyId)]];
    if (increment.userId !== null)
      counters.push([keys.userSpend(increment.userId), keys.userSpendApplied(increment.userId)]);
    for (const group of perCounter ? counters.map((counter) => [counter]) : [counters]) {
      const call = callOf(group[0]![0]);
      call.args.push(
        offset,
        amount,
        ...group.map(([counter, applied]) => numberIn(call, counter, applied)),
        ...(group.length === 1 ? ['0'] : []),
      );
      call.records.push(index);
    }
  });
  return [...calls.values()];
}

/** Runs `calls` concurrently; returns how many of the batch's records some counter took. */
async function runConcurrently(
  calls: ReadonlyArray<SpendScriptCall>,
  size: number,
  runner: SpendScriptRunner,
): Promise<number> {
  const applied = new Uint8Array(size);
  await Promise.all(
    calls.map(async (call) => {
      const [flags] = await runner.run(call);
      flags.forEach((flag, i) => void (flag === 1 && (applied[call.records[i] as number] = 1)));
    }),
  );
  return applied.reduce((sum, flag) => sum + flag, 0);
}

/** True when some counter, read now, would pass 2^63 − 1 if every record of its call were added. */
async function mayOverflow(calls: ReadonlyArray<SpendScriptCall>, runner: SpendScriptRunner): Promise<boolean> {
  const values = await runner.read(calls.map((call) => call.keys[0] as string));
  return calls.some((call, i) => {
    let total = BigInt(values[i] ?? '0');
    for (let a = 2; a < call.args.length; a += 4) total += BigInt(call.args[a] as string);
    return total > MAX_SPEND_NANO_USD;
  });
}

/** Record by record, key counter then user counter; a refused user increment takes the key's back. */
async function runOneByOne(
  increments: ReadonlyArray<SpendIncrement>,
  keys: RedisStateKeys,
  runner: SpendScriptRunner,
): Promise<number> {
  let count = 0;
  for (const increment of increments) {
    const [keyCall, userCall] = spendScriptCalls([increment], keys, true) as [
      SpendScriptCall,
      SpendScriptCall | undefined,
    ];
    const [[keyApplied], [keyBefore]] = await runner.run(keyCall);
    let userApplied = 0;
    if (userCall) {
      try {
        [[userApplied = 0]] = await runner.run(userCall);
      } catch (error) {
        if (keyApplied === 1)
          await runner.revert(
            keyCall.keys[0] as string,
            keyCall.keys[1] as string,
            keyCall.args[0] as string,
            increment.costNanoUsd.toString(),
            keyBefore ?? '',
          );
        throw error;
      }
    }
    if (keyApplied === 1 || userApplied === 1) count += 1;
  }
  return count;
}

/**
 * Applies a validated, non-empty batch of one partition (see the module doc).
 * @returns how many records were applied to some counter
 * @throws what a script rejects with (an overflow: the records before the refused one stay applied)
 */
export async function applySpendBatch(
  increments: ReadonlyArray<SpendIncrement>,
  keys: RedisStateKeys,
  cluster: boolean,
  runner: SpendScriptRunner,
): Promise<number> {
  const calls = spendScriptCalls(increments, keys, cluster);
  if (cluster && (await mayOverflow(calls, runner))) return runOneByOne(increments, keys, runner);
  return runConcurrently(calls, increments.length, runner);
}

/**
 * The consumers' view of a state store held by another thread of this process, over a
 * MessagePort (https://nodejs.org/api/worker_threads.html#class-messageport). The embedded server
 * keeps its in-memory state store on the request thread, where the gateway reads spend and
 * health, and runs the consumers on a worker thread: the worker calls through
 * consumerStateOverPort, the request thread answers with serveConsumerState. Part of the server
 * root's consumer thread wiring (consumer-thread.ts, consumer-thread-worker.ts), the one place
 * where the state store's port and the consumers' view of it meet.
 *
 * Messages (structured clone, so bigint nano-USD travel as they are):
 *   request  { id, op: 'addSpendBatch', increments }
 *          | { id, op: 'recordChannelObservation', observation, policy? }
 *          | { id, op: 'recordChannelObservationsInOrder', observations, policy }  (one message per partition's batch)
 *          | { id, op: 'addBudgetSpendBatch', increments, nowMs }
 *          | { id, op: 'readBudgetUse', counters, nowMs }
 *          | { id, op: 'markThresholdAlerted', counter, percent }
 *   reply    { id, ok: true, value } | { id, ok: false, name, message }
 * A RangeError from the store arrives as a RangeError (the health consumer skips those events);
 * any other failure as an Error with the store's name and message. The budget ops are answered by
 * the served store's `budgets` (the memory store carries the process's budget ledger); a store
 * without one answers them with an Error.
 */
import type { MessagePort } from 'node:worker_threads';
import {
  recordChannelObservationsOneByOne,
  type ObservationBatchWriter,
  type SkippedObservation,
} from '../../consumers/health/health-consumer.ts';
import type { ConsumerBudgetLedger, ConsumerStateStore } from '../../consumers/start-consumer-pipeline.ts';
import type { BudgetCounter, BudgetSpendIncrement, BudgetWindowUse } from '../../schemas/state-store/budget-ledger.ts';
import type { ChannelObservation, HealthPolicy, SpendIncrement } from '../../schemas/state-store/state-store.ts';

type StateRequest =
  | { readonly id: number; readonly op: 'addSpendBatch'; readonly increments: ReadonlyArray<SpendIncrement> }
  | {
      readonly id: number;
      readonly op: 'recordChannelObservation';
      readonly observation: ChannelObservation;
      readonly policy?: HealthPolicy;
    }
  | {
      readonly id: number;
      readonly op: 'recordChannelObservationsInOrder';
      readonly observations: ReadonlyArray<ChannelObservation>;
      readonly policy: HealthPolicy;
    }
  | {
      readonly id: number;
      readonly op: 'addBudgetSpendBatch';
      readonly increments: ReadonlyArray<BudgetSpendIncrement>;
      readonly nowMs: number;
    }
  | {
      readonly id: number;
      readonly op: 'readBudgetUse';
      readonly counters: ReadonlyArray<BudgetCounter>;
      readonly nowMs: number;
    }
  | {
      readonly id: number;
      readonly op: 'markThresholdAlerted';
      readonly counter: BudgetCounter;
      readonly percent: number;
    };

/** A request before its id is assigned. */
type DistributiveOmitId<T> = T extends unknown ? Omit<T, 'id'> : never;

type StateReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly name: string; readonly message: string };

/**
 * Answers the consumer-side calls arriving on `port` with `state` until the port closes. The port
 * does not keep the process alive.
 */
export function serveConsumerState(state: ConsumerStateStore, port: MessagePort): void {
  port.on('message', (request: StateRequest) => {
    answer(state, request).then(
      (value) => port.postMessage({ id: request.id, ok: true, value } satisfies StateReply),
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        port.postMessage({
          id: request.id,
          ok: false,
          name: failure.name,
          message: failure.message,
        } satisfies StateReply);
      },
    );
  });
  port.unref();
}

/** The served store's answer to one request; rejects with Error for a budget op when the store has no budget ledger. */
async function answer(state: ConsumerStateStore, request: StateRequest): Promise<unknown> {
  switch (request.op) {
    case 'addSpendBatch':
      return state.addSpendBatch(request.increments);
    case 'recordChannelObservation':
      return state.recordChannelObservation(request.observation, request.policy);
    case 'recordChannelObservationsInOrder':
      return recordChannelObservationsOneByOne(state, request.observations, request.policy);
    default: {
      const budgets = state.budgets;
      if (!budgets) throw new Error('the served state store has no budget ledger');
      if (request.op === 'addBudgetSpendBatch') return budgets.addBudgetSpendBatch(request.increments, request.nowMs);
      if (request.op === 'readBudgetUse') return budgets.readBudgetUse(request.counters, request.nowMs);
      return budgets.markThresholdAlerted(request.counter, request.percent);
    }
  }
}

/**
 * A ConsumerStateStore whose calls run on the thread serving `port` (serveConsumerState). Calls
 * reject with `state store port is closed` once the port closed. The port holds this thread open
 * only while a call is pending.
 */
export function consumerStateOverPort(
  port: MessagePort,
): ConsumerStateStore & ObservationBatchWriter & { readonly budgets: ConsumerBudgetLedger; close(): void } {
  const pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let closed = false;
  const failAll = (): void => {
    closed = true;
    for (const [id, entry] of pending) {
      pending.delete(id);
      entry.reject(new Error('state store port is closed'));
    }
  };
  port.on('message', (reply: StateReply) => {
    const entry = pending.get(reply.id);
    if (!entry) return;
    pending.delete(reply.id);
    if (pending.size === 0) port.unref();
    if (reply.ok) entry.resolve(reply.value as never);
    else {
      const error = reply.name === 'RangeError' ? new RangeError(reply.message) : new Error(reply.message);
      if (reply.name !== 'RangeError') error.name = reply.name;
      entry.reject(error);
    }
  });
  port.on('close', failAll);
  port.unref();
  const call = <T>(request: DistributiveOmitId<StateRequest>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (closed) return reject(new Error('state store port is closed'));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      port.ref();
      port.postMessage({ ...request, id });
    });
  return {
    addSpendBatch: (increments) => call<number>({ op: 'addSpendBatch', increments }),
    recordChannelObservation: (observation, policy) =>
      call<boolean>({ op: 'recordChannelObservation', observation, ...(policy ? { policy } : {}) }),
    recordChannelObservationsInOrder: (observations, policy) =>
      call<SkippedObservation[]>({ op: 'recordChannelObservationsInOrder', observations, policy }),
    budgets: {
      addBudgetSpendBatch: (increments, nowMs) =>
        call<BudgetWindowUse[]>({ op: 'addBudgetSpendBatch', increments, nowMs }),
      readBudgetUse: (counters, nowMs) => call<BudgetWindowUse[]>({ op: 'readBudgetUse', counters, nowMs }),
      markThresholdAlerted: (counter, percent) => call<void>({ op: 'markThresholdAlerted', counter, percent }),
    },
    close() {
      port.close();
      failAll();
    },
  };
}

/**
 * The state the consumers write, for a consumers root that opens its own engines
 * (tollgate-consumers.ts, the consumer thread without a port): the state store and the budget
 * ledger of the same engine. On Redis they are two adapters sharing its key prefix; in memory the
 * store carries its own ledger (`budgets`, snapshotted with it).
 */
import type { ConsumerStateStore } from '../../consumers/start-consumer-pipeline.ts';
import { openBudgetLedger, openStateStore, usesRedis, type EngineSettings } from '../open-adapters.ts';

/** The consumers' state store with its budget ledger; close() closes both. */
export function openConsumerState(settings: EngineSettings): ConsumerStateStore & { close(): Promise<void> } {
  const state = openStateStore(settings);
  const budgets = openBudgetLedger(settings, state);
  if (!usesRedis(settings)) return Object.assign(state, { budgets });
  return {
    addSpendBatch: (increments) => state.addSpendBatch(increments),
    recordChannelObservation: (observation, policy) => state.recordChannelObservation(observation, policy),
    budgets,
    close: async () => {
      await Promise.all([state.close(), budgets.close()]);
    },
  };
}

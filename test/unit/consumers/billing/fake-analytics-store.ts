/**
 * An in-memory AnalyticsStore for consumer unit tests: records every insert, can be told to
 * fail the next inserts. Every query answers no rows (integration tests use real engines).
 */
import type { AnalyticsStore, AnalyticsValue } from '../../../../schemas/analytics/analytics-store.ts';

/** The fake, with what it has been given. */
export interface FakeAnalyticsStore extends AnalyticsStore {
  readonly inserts: Array<{ table: string; rows: ReadonlyArray<Record<string, AnalyticsValue>> }>;
  /** When > 0, that many next inserts reject. */
  failNext: number;
}

/** Creates an empty fake. */
export function createFakeAnalyticsStore(): FakeAnalyticsStore {
  const store: FakeAnalyticsStore = {
    inserts: [],
    failNext: 0,
    async exec() {},
    async insert(table, rows) {
      if (store.failNext > 0) {
        store.failNext -= 1;
        throw new Error('Code: 210. Connection refused');
      }
      store.inserts.push({ table, rows });
    },
    async query<T>() {
      return [] as T[];
    },
    async version() {
      return '0.0-fake';
    },
    async close() {},
  };
  return store;
}

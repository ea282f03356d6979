/**
 * The in-process response store (embedded mode, no REDIS_URL): a Map of serialised records with
 * expiry times, the same contract as the Redis adapter (response-store.ts). Records live as long
 * as the process at most. Besides the per-record limit the whole store is bounded: when the JSON
 * held exceeds `maxTotalBytes` (default DEFAULT_MEMORY_RESPONSE_STORE_BYTES, 32 MiB), the oldest
 * records are forgotten first, as if they had expired. Expired records are dropped when read and
 * swept every 256 writes.
 *
 * The default is small because this store lives in the gateway's heap in embedded mode, beside
 * everything else the process holds, and never gives memory back while it is full: V8 keeps a
 * record's JSON as a string of 1–2 bytes per character, so the heap holds up to about twice the
 * bytes counted. Deployments that continue long chains run Redis (REDIS_URL), or raise the cap.
 */
import {
  parseStoredResponse,
  responseStoreLimits,
  storableRecordText,
  type ResponsePutResult,
  type ResponseStore,
  type ResponseStoreLimits,
  type StoredResponse,
} from '../../../schemas/state-store/response-store.ts';

/** Options of the memory store: the record limits (response-store.ts). Sizes in bytes of JSON text; `clock` (ms since epoch) is for tests. */
export interface MemoryResponseStoreOptions extends ResponseStoreLimits {
  /** Most JSON held in all, bytes of UTF-8 (default 32 MiB); the oldest records go first beyond it. */
  readonly maxTotalBytes?: number;
  readonly clock?: () => number;
}

const SWEEP_EVERY_PUTS = 256;
/** Default cap of the JSON all records hold together, bytes of UTF-8 (32 MiB, four records of the 8 MiB maximum). */
export const DEFAULT_MEMORY_RESPONSE_STORE_BYTES = 32 * 1024 * 1024;

interface Entry {
  readonly text: string;
  readonly bytes: number;
  readonly expiresAt: number;
}

/** Creates an empty in-process ResponseStore. @throws RangeError when `retentionMs` is not a positive integer */
export function createMemoryResponseStore(options: MemoryResponseStoreOptions = {}): ResponseStore {
  const { retentionMs, maxRecordBytes } = responseStoreLimits(options);
  const maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MEMORY_RESPONSE_STORE_BYTES;
  const clock = options.clock ?? Date.now;
  // Map order is insertion order: re-inserting on put keeps the oldest record first.
  const entries = new Map<string, Entry>();
  let totalBytes = 0;
  let puts = 0;
  const slot = (keyId: string, id: string): string => `${keyId}\u0000${id}`;
  const remove = (key: string): boolean => {
    const entry = entries.get(key);
    if (!entry) return false;
    entries.delete(key);
    totalBytes -= entry.bytes;
    return true;
  };
  const sweep = (now: number): void => {
    for (const [key, entry] of entries) if (entry.expiresAt <= now) remove(key);
  };
  const read = (keyId: string, id: string): StoredResponse | undefined => {
    const key = slot(keyId, id);
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= clock()) {
      remove(key);
      return undefined;
    }
    return parseStoredResponse(entry.text);
  };

  return {
    retentionMs,
    maxRecordBytes,

    async put(record: StoredResponse): Promise<ResponsePutResult> {
      const stored = storableRecordText(record, maxRecordBytes);
      if (!stored) return 'too-large';
      const { text, bytes } = stored;
      const now = clock();
      if (++puts % SWEEP_EVERY_PUTS === 0) sweep(now);
      const key = slot(record.keyId, record.id);
      remove(key);
      entries.set(key, { text, bytes, expiresAt: now + retentionMs });
      totalBytes += bytes;
      for (const oldest of entries.keys()) {
        if (totalBytes <= maxTotalBytes || oldest === key) break;
        remove(oldest);
      }
      return 'stored';
    },

    async get(keyId: string, id: string): Promise<StoredResponse | undefined> {
      return read(keyId, id);
    },

    async getMany(keyId: string, ids: ReadonlyArray<string>): Promise<Array<StoredResponse | undefined>> {
      return ids.map((id) => read(keyId, id));
    },

    async delete(keyId: string, id: string): Promise<boolean> {
      const present = read(keyId, id) !== undefined;
      remove(slot(keyId, id));
      return present;
    },

    async close(): Promise<void> {
      entries.clear();
      totalBytes = 0;
    },
  };
}

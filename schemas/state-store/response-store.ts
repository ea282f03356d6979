/**
 * The stored-responses port: Responses API answers kept for `previous_response_id`,
 * `GET /v1/responses/{id}`, `DELETE /v1/responses/{id}` and `GET /v1/responses/{id}/input_items`
 * (https://platform.openai.com/docs/api-reference/responses). A record belongs to the API key that
 * created it: every read and delete names that key's id, and another key's records are invisible
 * (as if unknown). Records live for the store's retention (default 30 days: "Response objects
 * are saved for 30 days by default", https://platform.openai.com/docs/guides/conversation-state)
 * and are then forgotten.
 * Adapters: Redis (REDIS_URL or REDIS_CLUSTER_NODES; every gateway node sees the same records; key layout in
 * REDIS-KEYS.md) and in-process memory (embedded mode). Chosen by `openResponseStore`
 * (infra/open-adapters.ts).
 *
 * Outage: while its engine cannot answer in time, an adapter rejects with
 * StateStoreUnavailableError (state-store-unavailable.ts) within its deadline; the memory adapter never does.
 */
import { assertValidTtl, parseStoredJson } from './stored-value.ts';

/** One stored response. Never holds an API key: `keyId` is the key's public id. */
export interface StoredResponse {
  /** The Response object's `id` (`resp_…`); see `isValidResponseId`. */
  readonly id: string;
  /** Id of the API key that created it (`key_…`); only that key can read, continue or delete it. */
  readonly keyId: string;
  /** When the gateway stored it, ms since epoch. */
  readonly createdAt: number;
  /** The `previous_response_id` the request named, or null. */
  readonly previousResponseId: string | null;
  /**
   * Ids of every earlier response of the chain, oldest first (the previous response's own
   * `ancestorIds` followed by the previous response's id): the whole chain loads in one read.
   */
  readonly ancestorIds: ReadonlyArray<string>;
  /** This request's input items (not the earlier turns'), normalised to item objects with ids. */
  readonly inputItems: ReadonlyArray<Readonly<Record<string, unknown>>>;
  /** The Response object exactly as the client received it (terminal event's `response` for streams). */
  readonly response: Readonly<Record<string, unknown>>;
}

/** What `put` did: `too-large` means the record was refused (see `maxRecordBytes`), nothing was written. */
export type ResponsePutResult = 'stored' | 'too-large';

/** Where stored responses live. Times in ms, sizes in bytes of the record's JSON text (UTF-8). */
export interface ResponseStore {
  /** How long a record lives after it is put, ms (the retention). */
  readonly retentionMs: number;
  /** Largest record accepted, bytes of its JSON text; larger records are refused by `put`. */
  readonly maxRecordBytes: number;
  /**
   * Stores `record` for `retentionMs` (replacing a record of the same key id and id).
   * Resolves `too-large` (and stores nothing) when its JSON exceeds `maxRecordBytes`.
   * @throws RangeError when `record.id` or any ancestor id is not a valid response id
   */
  put(record: StoredResponse): Promise<ResponsePutResult>;
  /** The record `id` of key `keyId`, or undefined when unknown, expired, deleted or another key's. */
  get(keyId: string, id: string): Promise<StoredResponse | undefined>;
  /** `get` for several ids in one round trip, in the order given (undefined where missing). */
  getMany(keyId: string, ids: ReadonlyArray<string>): Promise<Array<StoredResponse | undefined>>;
  /** Forgets the record; resolves true when it existed (for this key), false otherwise. */
  delete(keyId: string, id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Default retention: 30 days, in ms. */
export const DEFAULT_RESPONSE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Default largest record: 8 MiB of JSON text (a long tool-using turn with images stays below). */
export const DEFAULT_MAX_RESPONSE_RECORD_BYTES = 8 * 1024 * 1024;

/** Longest id accepted, characters. */
const MAX_ID_LENGTH = 100;

/**
 * True for ids the gateway will store or look up: 1–100 characters (Fastify's longest path parameter) of `[A-Za-z0-9_-]` (OpenAI's
 * `resp_…` ids and the gateway's own fit; no `:` so Redis key parts cannot run together).
 */
export function isValidResponseId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH && /^[A-Za-z0-9_-]+$/.test(id);
}

/** Rejects a record whose ids are not valid response ids. @throws RangeError naming the bad id */
export function assertStorableRecord(record: StoredResponse): void {
  for (const id of [record.id, ...record.ancestorIds]) {
    if (!isValidResponseId(id)) throw new RangeError(`not a valid response id: ${JSON.stringify(id).slice(0, 80)}`);
  }
}

/** An adapter's limits as given in its options, the defaults where a limit is not given. Times in ms, sizes in bytes. */
export interface ResponseStoreLimits {
  /** Record lifetime, ms (default DEFAULT_RESPONSE_RETENTION_MS, 30 days). */
  readonly retentionMs?: number;
  /** Largest record accepted, bytes of its JSON text (default DEFAULT_MAX_RESPONSE_RECORD_BYTES, 8 MiB). */
  readonly maxRecordBytes?: number;
}

/**
 * The limits every adapter applies: `options` with the defaults filled in.
 * @throws RangeError when `retentionMs` is not a positive integer number of ms
 */
export function responseStoreLimits(options: ResponseStoreLimits): Required<ResponseStoreLimits> {
  const retentionMs = options.retentionMs ?? DEFAULT_RESPONSE_RETENTION_MS;
  assertValidTtl(retentionMs, 'retentionMs');
  return { retentionMs, maxRecordBytes: options.maxRecordBytes ?? DEFAULT_MAX_RESPONSE_RECORD_BYTES };
}

/**
 * What `put` stores: the record's JSON text (serializeStoredResponse) and its size in bytes of
 * UTF-8, or undefined when that exceeds `maxRecordBytes` (`put` then resolves `too-large`).
 * @throws RangeError when `record.id` or any ancestor id is not a valid response id
 */
export function storableRecordText(
  record: StoredResponse,
  maxRecordBytes: number,
): { readonly text: string; readonly bytes: number } | undefined {
  assertStorableRecord(record);
  const text = serializeStoredResponse(record);
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > maxRecordBytes ? undefined : { text, bytes };
}

/** The record as stored: JSON text with the fields in a fixed order. */
export function serializeStoredResponse(record: StoredResponse): string {
  return JSON.stringify({
    id: record.id,
    keyId: record.keyId,
    createdAt: record.createdAt,
    previousResponseId: record.previousResponseId,
    ancestorIds: record.ancestorIds,
    inputItems: record.inputItems,
    response: record.response,
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stored value back to a StoredResponse; undefined when it is not one (never throws). */
export function parseStoredResponse(text: string): StoredResponse | undefined {
  const value = parseStoredJson(text);
  if (!isObject(value)) return undefined;
  const { id, keyId, createdAt, previousResponseId, ancestorIds, inputItems, response } = value;
  if (typeof id !== 'string' || typeof keyId !== 'string' || typeof createdAt !== 'number') return undefined;
  if (previousResponseId !== null && typeof previousResponseId !== 'string') return undefined;
  if (!Array.isArray(ancestorIds) || !ancestorIds.every((a) => typeof a === 'string')) return undefined;
  if (!Array.isArray(inputItems) || !inputItems.every(isObject) || !isObject(response)) return undefined;
  return { id, keyId, createdAt, previousResponseId, ancestorIds, inputItems, response };
}

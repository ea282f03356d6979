/**
 * The answer hook of a Responses create (gateway/exchange/client-answer-hook.ts): saves the
 * Response object exactly as the client received it — the JSON body, or the `response` of the
 * terminal `response.completed` / `response.incomplete` event of a stream — when `store` is not
 * false and the status is `completed` or `incomplete`
 * (https://platform.openai.com/docs/api-reference/responses/create#responses_create-store).
 * On pass-through answers of a chained request it also puts the request's `previous_response_id`
 * into every Response object the client sees (the upstream never saw that id, so it echoes null),
 * as the API echoes it (https://platform.openai.com/docs/api-reference/responses/object).
 * Saving happens before the answer's last bytes are written (waiting at most 2 s for the store),
 * so the client can continue at once. Never rejects: a failed or refused save is logged and the client still gets its answer.
 */
import type { FastifyBaseLogger } from 'fastify';
import { isValidResponseId, type ResponseStore } from '../../../schemas/state-store/response-store.ts';
import { isStateStoreUnavailable } from '../../../schemas/state-store/state-store-unavailable.ts';
import type { ClientAnswerHook } from '../../exchange/client-answer-hook.ts';
import type { UpstreamSseEvent } from '../../upstream/upstream-adapter.ts';
import { isJsonObject } from '../../inbound/openai-common/request-field-error.ts';

/** What one create request contributes to its stored record. */
export interface StoredResponseCapture {
  readonly requestId: string;
  readonly keyId: string;
  /** The `previous_response_id` the request named (already resolved), or null. */
  readonly previousResponseId: string | null;
  /** The chain before this response, oldest first (record `ancestorIds`). */
  readonly ancestorIds: ReadonlyArray<string>;
  /** This request's input items, normalised (normalize-input-items.ts). */
  readonly inputItems: ReadonlyArray<Record<string, unknown>>;
  /** Whether to save the answer (`store` not false); false: only the echo is done. */
  readonly store: boolean;
}

/**
 * Longest wait for a save before the answer goes on anyway, ms: a store that hangs (Redis
 * reconnecting) must not hold the client's answer; the save still completes or fails on its own.
 */
const MAX_SAVE_WAIT_MS = 2_000;

/** Resolves when `work` settles or after `ms`, whichever comes first (never rejects). */
async function boundedWait(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([work, timeout]);
  clearTimeout(timer);
}

const LIFECYCLE_EVENTS: ReadonlySet<string> = new Set([
  'response.created',
  'response.queued',
  'response.in_progress',
  'response.completed',
  'response.incomplete',
  'response.failed',
]);
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete']);
const STORED_STATUSES: ReadonlySet<unknown> = new Set(['completed', 'incomplete']);

/** An SSE event as text again: `event:` (when named), one `data:` line per data line, blank line. */
function frameSseEvent(event: UpstreamSseEvent, data: string = event.data): string {
  const lines = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}${lines}\n`;
}

/** A lifecycle event: its type and its parsed data, which holds a Response object. */
interface LifecycleEvent {
  readonly type: string;
  readonly data: Record<string, unknown> & { readonly response: Record<string, unknown> };
}

/**
 * The event as a lifecycle event, or undefined for every other event. The data is parsed only when
 * the `event:` name says lifecycle, or when there is no name and the data holds a `"response"` key.
 */
function asLifecycleEvent(event: UpstreamSseEvent): LifecycleEvent | undefined {
  if (event.event !== undefined ? !LIFECYCLE_EVENTS.has(event.event) : !event.data.includes('"response"'))
    return undefined;
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return undefined;
  }
  if (!isJsonObject(data) || !isJsonObject(data.response)) return undefined;
  const type = event.event ?? data.type;
  return typeof type === 'string' && LIFECYCLE_EVENTS.has(type)
    ? { type, data: data as LifecycleEvent['data'] }
    : undefined;
}

/** Creates the hook for one create request. */
export function createStoredResponseCapture(
  store: ResponseStore,
  capture: StoredResponseCapture,
  log: FastifyBaseLogger,
): ClientAnswerHook {
  const echo = (response: Record<string, unknown>): Record<string, unknown> =>
    capture.previousResponseId === null || response.previous_response_id === capture.previousResponseId
      ? response
      : { ...response, previous_response_id: capture.previousResponseId };

  const save = (response: unknown): Promise<void> => boundedWait(saveNow(response), MAX_SAVE_WAIT_MS);
  const saveNow = async (response: unknown): Promise<void> => {
    if (!capture.store || !isJsonObject(response) || !STORED_STATUSES.has(response.status)) return;
    const id = response.id;
    const context = { requestId: capture.requestId, responseId: typeof id === 'string' ? id.slice(0, 80) : undefined };
    if (!isValidResponseId(id))
      return void log.warn(context, 'response not stored: its id is not one the gateway can store');
    if (id === capture.previousResponseId || capture.ancestorIds.includes(id))
      return void log.warn(
        context,
        'response not stored: the upstream reused the id of an earlier response of the chain',
      );
    try {
      const record = {
        id,
        keyId: capture.keyId,
        createdAt: Date.now(),
        previousResponseId: capture.previousResponseId,
        ancestorIds: capture.ancestorIds,
        inputItems: capture.inputItems,
        response,
      };
      if ((await store.put(record)) === 'too-large')
        log.warn(
          { ...context, maxRecordBytes: store.maxRecordBytes },
          'response not stored: larger than the stored-response limit',
        );
    } catch (error) {
      log[isStateStoreUnavailable(error) ? 'debug' : 'warn'](
        { ...context, reason: (error as Error).message },
        'response not stored: the response store failed',
      );
    }
  };

  return {
    async jsonBody(body: unknown, passThrough: boolean): Promise<unknown> {
      if (!isJsonObject(body)) return undefined;
      const shown = passThrough ? echo(body) : body;
      await save(shown);
      return shown === body ? undefined : shown;
    },

    async streamFinished(finalBody: unknown): Promise<void> {
      await save(finalBody);
    },

    async passThroughEvent(event: UpstreamSseEvent): Promise<string> {
      const lifecycle = asLifecycleEvent(event);
      if (!lifecycle) return frameSseEvent(event);
      const response = echo(lifecycle.data.response);
      if (TERMINAL_EVENTS.has(lifecycle.type)) await save(response);
      return response === lifecycle.data.response
        ? frameSseEvent(event)
        : frameSseEvent(event, JSON.stringify({ ...lifecycle.data, response }));
    },
  };
}

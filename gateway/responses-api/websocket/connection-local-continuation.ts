/**
 * Connection-local continuation of the Responses WebSocket mode
 * (https://developers.openai.com/api/docs/guides/websocket-mode, "Continue with incremental input"):
 * with `store: false` the server keeps the most recent response of the connection in memory, so the
 * next `response.create` may send only its new input plus `previous_response_id`.
 *
 * Here the retained response is the request's input items followed by the response's output items.
 * A create naming that id is expanded before it is replayed over HTTP: earlier items, then the new
 * input; `previous_response_id` is removed and `instructions` are not inherited (the create body's
 * own `instructions`, if any, apply — as with `previous_response_id` on the HTTP API,
 * https://platform.openai.com/docs/api-reference/responses/create#responses_create-instructions).
 * When the retained turn had itself named a previous response that was not local (a stored one),
 * that id is carried on so that the HTTP route prepends the stored part of the conversation. The
 * Response objects the client then receives echo the id the client named
 * (https://platform.openai.com/docs/api-reference/responses/object, `previous_response_id`), not
 * what the replayed body carried (`echoPreviousResponseId`).
 *
 * Memory: one retained response per connection, at most `maxBytes` of JSON (a larger one is not
 * retained, and continuing from it then fails as an unknown previous response).
 */

/** The retained most recent `store: false` response of a connection. */
export interface RetainedResponse {
  /** The response id (`resp_…`) a later create names in `previous_response_id`. */
  readonly id: string;
  /** Input items of its (expanded) request, then its output items, as JSON values. */
  readonly items: ReadonlyArray<unknown>;
  /** A non-local previous response the retained request named (kept for the HTTP route), if any. */
  readonly storedPreviousResponseId?: string;
  /** Size of `items` as JSON, bytes. */
  readonly bytes: number;
}

/** `input` as an item list: a string is one user message (API reference, `input`); absent → []. */
function inputItems(input: unknown): unknown[] | undefined {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : undefined;
}

/**
 * An output item made fit to be sent back as input with `store: false`: its server-side `id` is
 * dropped (items are not persisted when `store` is false, so an upstream may refuse ids it never
 * stored); reasoning items are kept only when they carry `encrypted_content`, the one way to pass
 * reasoning on without storage (https://platform.openai.com/docs/guides/reasoning, "Encrypted reasoning items").
 */
function asInputItem(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const { id: _id, ...rest } = item as Record<string, unknown>;
  if (rest.type === 'reasoning' && typeof rest.encrypted_content !== 'string') return undefined;
  return rest;
}

/**
 * The entry to retain after a response finished (`completed` or `incomplete`), or undefined when
 * nothing is retained: the request was not `store: false`, the response has no id or output list,
 * the request's input is not a string or list, or the items exceed `maxBytes` (bytes of JSON).
 * `requestBody` is the body as replayed (already expanded when it continued a retained response).
 */
export function retainResponse(
  requestBody: Readonly<Record<string, unknown>>,
  response: unknown,
  maxBytes: number,
): RetainedResponse | undefined {
  if (requestBody.store !== false || typeof response !== 'object' || response === null) return undefined;
  const { id, output } = response as { id?: unknown; output?: unknown };
  const input = inputItems(requestBody.input);
  if (typeof id !== 'string' || !Array.isArray(output) || !input) return undefined;
  const items = [...input, ...output.map(asInputItem).filter((item) => item !== undefined)];
  const bytes = Buffer.byteLength(JSON.stringify(items));
  if (bytes > maxBytes) return undefined;
  const previous = requestBody.previous_response_id;
  return typeof previous === 'string' ? { id, items, storedPreviousResponseId: previous, bytes } : { id, items, bytes };
}

/**
 * Expands `body` (which names `retained.id` in `previous_response_id`) into a self-contained create
 * body: `input` = retained items + the new input. Returns `body` unchanged when its `input` is
 * neither a string nor a list (the HTTP route then reports the malformed field).
 */
export function expandContinuation(
  body: Readonly<Record<string, unknown>>,
  retained: RetainedResponse,
): Record<string, unknown> {
  const input = inputItems(body.input);
  if (!input) return { ...body };
  const { previous_response_id: _named, ...rest } = body;
  const expanded: Record<string, unknown> = { ...rest, input: [...retained.items, ...input] };
  if (retained.storedPreviousResponseId !== undefined)
    expanded.previous_response_id = retained.storedPreviousResponseId;
  return expanded;
}

/**
 * One event's JSON as the client must see it when its create named `previousResponseId` but was
 * replayed without it (or with a stored ancestor's id): a lifecycle event's `response` object
 * (`response.created`, `response.in_progress`, `response.completed`, `response.failed`, …) gets
 * `previous_response_id: previousResponseId`. Every other event — and text that is not JSON — is
 * returned unchanged, without parsing unless the text holds a `"previous_response_id"` key.
 */
export function echoPreviousResponseId(json: string, previousResponseId: string): string {
  if (!json.includes('"previous_response_id"')) return json;
  let event: unknown;
  try {
    event = JSON.parse(json);
  } catch {
    return json;
  }
  if (typeof event !== 'object' || event === null) return json;
  const response = (event as { response?: unknown }).response;
  if (
    typeof response !== 'object' ||
    response === null ||
    Array.isArray(response) ||
    !('previous_response_id' in response)
  )
    return json;
  if ((response as { previous_response_id?: unknown }).previous_response_id === previousResponseId) return json;
  return JSON.stringify({ ...event, response: { ...response, previous_response_id: previousResponseId } });
}

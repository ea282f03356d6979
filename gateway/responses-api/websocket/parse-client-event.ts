/**
 * Reads one client message of the Responses WebSocket mode
 * (https://developers.openai.com/api/reference/resources/responses/websocket-events, client event
 * `response.create`): a JSON object `{"type":"response.create", …the POST /v1/responses body…}`.
 * Per that reference, `stream` is implicit over WebSocket (dropped here, the replayed request always
 * streams) and `background` is not supported. `generate: false` (warm-up without output, guide
 * https://developers.openai.com/api/docs/guides/websocket-mode) is not offered by this gateway and
 * is refused rather than silently generating (and billing) a response.
 * Only the envelope is checked here; the body itself is validated by the HTTP route it is replayed to.
 */
import { jsonLimitError } from '../../http/json-body-parser.ts';
import { findJsonLimitViolation } from '../../http/scan-json-body-limits.ts';
import { invalidClientEvent, type ResponsesWebSocketErrorEvent } from './websocket-error-event.ts';

/** A create body ready to replay (`stream: true`, no `type`), or the error event to answer. */
export type ParsedClientEvent =
  | { readonly ok: true; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly error: ResponsesWebSocketErrorEvent };

/** The only client event type this gateway serves. */
export const RESPONSE_CREATE = 'response.create';

/** Message payload as `ws` delivers it (text frames are Buffers too unless configured otherwise). */
export type WebSocketPayload = Buffer | ArrayBuffer | Buffer[];

function payloadBytes(data: WebSocketPayload): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return data;
}

/**
 * Parses `data` (a text or binary frame holding UTF-8 JSON). Errors (400 `invalid_request_error`):
 * a broken body limit → code `json_too_deep` / `json_too_many_items` / `json_string_too_long`;
 * not JSON → code `invalid_json`; not an object, or `type` other than `response.create` → code
 * `invalid_value` (param `type`); `background: true` or `generate: false` → code
 * `unsupported_parameter` (param `background` / `generate`).
 */
export function parseClientEvent(data: WebSocketPayload): ParsedClientEvent {
  const bytes = payloadBytes(data);
  // The HTTP routes' nesting and size limits (scan-json-body-limits.ts), before anything recursive runs.
  const violation = findJsonLimitViolation(bytes);
  if (violation) {
    const error = jsonLimitError(violation);
    return { ok: false, error: invalidClientEvent(error.message, error.code ?? 'invalid_value') };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return {
      ok: false,
      error: invalidClientEvent('The message is not valid JSON. Send one JSON object per message.', 'invalid_json'),
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return {
      ok: false,
      error: invalidClientEvent(
        `Each message must be a JSON object of type '${RESPONSE_CREATE}'.`,
        'invalid_value',
        'type',
      ),
    };
  }
  const { type, stream: _implicit, ...body } = parsed as Record<string, unknown>;
  if (type !== RESPONSE_CREATE) {
    const shown = typeof type === 'string' ? `'${type.slice(0, 100)}'` : 'missing';
    return {
      ok: false,
      error: invalidClientEvent(
        `Unsupported client event type ${shown}: only '${RESPONSE_CREATE}' is accepted.`,
        'invalid_value',
        'type',
      ),
    };
  }
  if (body.background === true) {
    return {
      ok: false,
      error: invalidClientEvent('background is not supported over WebSocket.', 'unsupported_parameter', 'background'),
    };
  }
  if (body.generate === false) {
    return {
      ok: false,
      error: invalidClientEvent(
        'generate: false (warm-up) is not supported by this gateway; send the turn with generate omitted.',
        'unsupported_parameter',
        'generate',
      ),
    };
  }
  const { background: _background, generate: _generate, ...rest } = body;
  return { ok: true, body: { ...rest, stream: true } };
}

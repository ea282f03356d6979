/**
 * The `error` event of the Responses API WebSocket mode
 * (https://developers.openai.com/api/docs/guides/websocket-mode, "previous_response_not_found" and
 * "Connection limits"; https://developers.openai.com/api/reference/resources/responses/websocket-events):
 * `{"type":"error","status":400,"error":{"type","code","message","param"}}` — the HTTP status the
 * same failure would have had, and OpenAI's error object. The flat `code`/`message`/`param` of the
 * streaming `ResponseErrorEvent` (https://platform.openai.com/docs/api-reference/responses-streaming/error)
 * are mirrored beside it so that typed consumers of either shape read the same values.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { toOpenAIErrorObject, type OpenAIErrorObject } from '../../inbound/openai-common/openai-error-object.ts';

/** One WebSocket `error` message. */
export interface ResponsesWebSocketErrorEvent {
  readonly type: 'error';
  /** The HTTP status the failure maps to (400, 401, 429, 500, …). */
  readonly status: number;
  readonly error: OpenAIErrorObject;
  readonly code: string | null;
  readonly message: string;
  readonly param: string | null;
}

/** The message of the documented connection-duration limit (guide, "Connection limits"). */
export const CONNECTION_LIMIT_MESSAGE =
  'Responses websocket connection limit reached (60 minutes). Create a new websocket connection to continue.';

/** Builds the event from a status and an OpenAI error object. */
export function errorEvent(status: number, error: OpenAIErrorObject): ResponsesWebSocketErrorEvent {
  return { type: 'error', status, error, code: error.code, message: error.message, param: error.param };
}

/** Builds the event for a GatewayError (status and object as the HTTP route would render them). */
export function errorEventFromGatewayError(error: GatewayError): ResponsesWebSocketErrorEvent {
  return errorEvent(error.status, toOpenAIErrorObject(error));
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * Builds the event from a non-streamed HTTP answer of `POST /v1/responses`: `status` and the
 * `{error:{message,type,param,code}}` envelope of `bodyText`. A body that is not that envelope
 * still yields an event (`server_error` for 5xx, `invalid_request_error` otherwise, the raw text as
 * message, at most 500 characters).
 */
export function errorEventFromHttpAnswer(status: number, bodyText: string): ResponsesWebSocketErrorEvent {
  let envelope: unknown;
  try {
    envelope = JSON.parse(bodyText);
  } catch {
    envelope = undefined;
  }
  const inner = typeof envelope === 'object' && envelope !== null ? (envelope as { error?: unknown }).error : undefined;
  if (typeof inner === 'object' && inner !== null) {
    const fields = inner as Record<string, unknown>;
    const message = typeof fields.message === 'string' ? fields.message : `Request failed with status ${status}`;
    const type =
      typeof fields.type === 'string' ? fields.type : status >= 500 ? 'server_error' : 'invalid_request_error';
    return errorEvent(status, { message, type, param: stringOrNull(fields.param), code: stringOrNull(fields.code) });
  }
  const message = bodyText.trim().slice(0, 500) || `Request failed with status ${status}`;
  return errorEvent(status, {
    message,
    type: status >= 500 ? 'server_error' : 'invalid_request_error',
    param: null,
    code: null,
  });
}

/** A 400 `invalid_request_error` event about a client message (`param` names the field at fault). */
export function invalidClientEvent(message: string, code: string, param?: string): ResponsesWebSocketErrorEvent {
  return errorEventFromGatewayError(
    new GatewayError('invalid-request', message, { code, ...(param === undefined ? {} : { param }) }),
  );
}

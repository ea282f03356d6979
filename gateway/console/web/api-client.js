/**
 * The console's only way to the server: JSON over fetch to `/console/api` (CONSOLE-API.md) with
 * the session cookie, the CSRF token on every write, and error bodies
 * (`{"error":{"message","field"?}}`) turned into ApiError. A 401 anywhere (except a failed
 * sign-in) calls the handler set with `onUnauthorized`, which shows the sign-in form.
 */

/** Path prefix of the console API. */
export const API_BASE = '/console/api';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let csrfToken = null;
let unauthorizedHandler = () => {};

/**
 * A refused or failed API call.
 * `status`: HTTP status (0 when the server could not be reached); `field`: the input field the
 * server named (dotted path such as `models.2`), else undefined; `retryAfter`: seconds from the
 * `retry-after` header of a 429, else undefined.
 */
export class ApiError extends Error {
  constructor(message, status, field, retryAfter) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

/** Remembers the CSRF token from `GET`/`POST /session` (null after signing out). */
export function setCsrfToken(token) {
  csrfToken = token;
}

/** Sets what to do when the server answers 401 (the session is gone): `handler()` takes no arguments. */
export function onUnauthorized(handler) {
  unauthorizedHandler = handler;
}

/**
 * `?a=1&b=x` from an object, leaving out undefined, null and '' values; '' when nothing is left.
 * @param {Record<string, unknown>|undefined} query
 */
export function queryString(query) {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Sends one request to `API_BASE + path` and returns the parsed JSON body (null for 204).
 * @param {string} method GET, POST, PUT, PATCH or DELETE
 * @param {string} path e.g. `/keys`, with any ids already URI-encoded
 * @param {{ body?: unknown, query?: Record<string, unknown>, quiet401?: boolean }} [options]
 *   `quiet401`: a 401 is only thrown, not reported to the unauthorized handler (sign-in, session probe).
 * @throws ApiError with the server's message/field/status, or status 0 when unreachable.
 */
export async function apiRequest(method, path, options = {}) {
  let response = await send(method, path, options);
  if (response.status === 403 && WRITE_METHODS.has(method) && (await refreshCsrfToken())) {
    response = await send(method, path, options);
  }
  if (response.status === 204) return null;
  const body = await readJson(response);
  if (response.ok) return body;
  if (response.status === 401 && !options.quiet401) unauthorizedHandler();
  throw toApiError(response, body);
}

async function send(method, path, { body, query }) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (WRITE_METHODS.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  try {
    return await fetch(API_BASE + path + queryString(query), {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('The server cannot be reached: check your connection and try again.', 0);
  }
}

/** Fetches a fresh CSRF token after a 403 on a write; true when it changed (worth one retry). */
async function refreshCsrfToken() {
  const before = csrfToken;
  try {
    const response = await send('GET', '/session', {});
    if (!response.ok) return false;
    const body = await readJson(response);
    if (body && typeof body.csrfToken === 'string' && body.csrfToken !== before) {
      csrfToken = body.csrfToken;
      return true;
    }
  } catch {
    return false;
  }
  return false;
}

async function readJson(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { error: { message: text.slice(0, 300) } };
  }
}

function toApiError(response, body) {
  const error = body && typeof body === 'object' ? body.error : undefined;
  const message =
    error && typeof error.message === 'string'
      ? error.message
      : `${response.status} ${response.statusText || 'request failed'}`;
  const field = error && typeof error.field === 'string' ? error.field : undefined;
  const retryHeader = response.headers.get('retry-after');
  const retryAfter = retryHeader !== null && /^\d+$/.test(retryHeader) ? Number(retryHeader) : undefined;
  return new ApiError(message, response.status, field, retryAfter);
}

/** Shorthands: `api.get(path, query)`, `api.post(path, body)`, `api.put`, `api.patch`, `api.delete(path)`. */
export const api = {
  get: (path, query) => apiRequest('GET', path, { query }),
  post: (path, body) => apiRequest('POST', path, { body: body ?? {} }),
  put: (path, body) => apiRequest('PUT', path, { body }),
  patch: (path, body) => apiRequest('PATCH', path, { body }),
  delete: (path) => apiRequest('DELETE', path),
};

/** `encodeURIComponent` for an id placed in a path segment. */
export function seg(id) {
  return encodeURIComponent(String(id));
}

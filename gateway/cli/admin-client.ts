/**
 * The CLI's HTTP client for the admin API: one JSON request per call, authenticated with an
 * admin token (the gateway records the token's holder as the actor of each change). Non-2xx answers become AdminApiError carrying the API's
 * own `{error:{message, field?}}`; an unreachable gateway becomes AdminApiError with status 0.
 */

/** One admin API call: method, path under the base URL (e.g. `/admin/api/keys`), optional JSON body. */
export interface AdminRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body?: Record<string, unknown>;
}

/** A failed call: `status` is the HTTP status, or 0 when the gateway could not be reached. */
export class AdminApiError extends Error {
  readonly status: number;
  readonly field: string | undefined;

  constructor(status: number, message: string, field?: string) {
    super(message);
    this.name = 'AdminApiError';
    this.status = status;
    this.field = field;
  }
}

/** Where the admin API is and how to authenticate. */
export interface AdminClientOptions {
  /** Gateway origin, e.g. `http://127.0.0.1:8080` (a trailing slash is ignored). */
  readonly baseUrl: string;
  readonly token: string;
  /** Per-request timeout, ms (default 30 000). */
  readonly timeoutMs?: number;
}

/**
 * Sends `request` and returns the parsed JSON body of a 2xx answer.
 * @throws AdminApiError with the API's message and field for a non-2xx answer; status 0 when the
 *   gateway cannot be reached or times out.
 */
export async function callAdminApi(options: AdminClientOptions, request: AdminRequest): Promise<unknown> {
  const url = options.baseUrl.replace(/\/+$/, '') + request.path;
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: 'application/json' };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new AdminApiError(
      0,
      `cannot reach the gateway at ${options.baseUrl} (${reason}): is it running? Set TOLLGATE_URL`,
    );
  }
  const text = await response.text();
  const body = parseJson(text);
  if (response.ok) return body;
  const error = (body as { error?: { message?: unknown; field?: unknown } } | undefined)?.error;
  const message = typeof error?.message === 'string' ? error.message : text.slice(0, 500) || response.statusText;
  throw new AdminApiError(response.status, message, typeof error?.field === 'string' ? error.field : undefined);
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

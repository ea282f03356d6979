/**
 * Vertex AI's own error answers: a google.rpc.Status envelope `{"error":{"code","message",
 * "status","details"}}` (https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-list;
 * https://cloud.google.com/apis/design/errors#error_codes), sent by the Vertex front end for
 * every publisher's models — 401 UNAUTHENTICATED (a missing, expired or forged access token),
 * 403 PERMISSION_DENIED (the service account lacks `aiplatform.endpoints.predict`, or the API is
 * not enabled in the project), 404 NOT_FOUND (the model is not offered in the location or to the
 * project), 429 RESOURCE_EXHAUSTED (the project's quota).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { asNumber, asRecord, asString } from '../shared/read-json-field.ts';

/** The rpc status, HTTP code and message of a google.rpc.Status body, or undefined when `body` is not one. */
export function vertexRpcStatus(body: string): { status: string; code: number; message: string } | undefined {
  let error: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(body) as unknown;
    error = asRecord(asRecord(Array.isArray(parsed) ? parsed[0] : parsed)?.error);
  } catch {
    return undefined;
  }
  const status = asString(error?.status);
  const code = asNumber(error?.code);
  if (status === undefined || code === undefined) return undefined;
  return { status, code, message: asString(error?.message) ?? '' };
}

/**
 * The channel-fault reading of a Vertex error, or undefined when the error is not one:
 * 401/UNAUTHENTICATED and 403/PERMISSION_DENIED → the channel's credential or project is
 * refused; 404/NOT_FOUND → the model is not available to the channel's project and location.
 * Each is upstream-rejected, status 502, failover allowed, not retryable, `code` the rpc status,
 * the message naming Vertex AI and what to check (Google's own words never quote the token).
 */
export function vertexChannelFault(httpStatus: number, body: string): GatewayError | undefined {
  const rpc = vertexRpcStatus(body);
  const status = rpc?.status;
  const message = rpc?.message || body.slice(0, 300).trim() || `HTTP ${httpStatus}`;
  const fault = (text: string, code: string) =>
    new GatewayError('upstream-rejected', text, {
      status: 502,
      allowFailover: true,
      retryable: false,
      upstreamStatus: httpStatus,
      code,
    });
  if (httpStatus === 401 || status === 'UNAUTHENTICATED')
    return fault(
      `Google Vertex AI refused the channel's credentials (an access token missing, expired or not accepted): ${message}`,
      'UNAUTHENTICATED',
    );
  if (httpStatus === 403 || status === 'PERMISSION_DENIED')
    return fault(
      `Google Vertex AI denied the channel's service account or project (check its roles and that the Vertex AI API is enabled): ${message}`,
      'PERMISSION_DENIED',
    );
  if (rpc !== undefined && (httpStatus === 404 || status === 'NOT_FOUND'))
    return fault(
      `Google Vertex AI does not offer this model to the channel's project and location: ${message}`,
      'NOT_FOUND',
    );
  return undefined;
}

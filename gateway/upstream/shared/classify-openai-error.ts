/**
 * Error classification for the OpenAI-family protocols (Chat Completions and Responses): the
 * envelope is `{"error":{"message","type","param","code"}}` (https://platform.openai.com/docs/api-reference/responses), with the
 * provider variants of gateway/providers/PROVIDER-DOCS.md (Zhipu string codes, MiniMax `type:error`).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { classifyUpstreamHttpError, upstreamErrorMessage } from '../classify-upstream-error.ts';
import type { UpstreamHeaders } from '../upstream-adapter.ts';
import { asNumber, asRecord, asString } from './read-json-field.ts';

/** MiniMax reports an exhausted balance as HTTP 500 "insufficient balance (1008)" (gateway/providers/PROVIDER-DOCS.md). */
const MINIMAX_BALANCE = /insufficient balance.*1008|1008.*insufficient balance/i;

/**
 * Classifies a non-2xx answer (`body` is raw text, maybe not JSON) per the shared status table
 * (classifyUpstreamHttpError). Special case: a 500 whose message is MiniMax's
 * "insufficient balance (1008)" is a channel problem, not an outage → `upstream-rejected`,
 * status 502, failover allowed, not retryable.
 */
export function classifyOpenAiError(status: number, body: string, headers: UpstreamHeaders): GatewayError {
  const { message, code } = upstreamErrorMessage(body);
  if (status === 500 && MINIMAX_BALANCE.test(message)) {
    return new GatewayError('upstream-rejected', message, {
      status: 502,
      allowFailover: true,
      retryable: false,
      upstreamStatus: status,
      ...(code === undefined ? {} : { code }),
    });
  }
  return classifyUpstreamHttpError(status, message, headers, code);
}

/**
 * Classifies an error envelope that arrived with HTTP 200 (a non-stream body or an SSE data
 * chunk with an `error` key; DeepSeek, https://platform.openai.com/docs/api-reference/chat). The status is
 * `error.code` when it is a three-digit number (or numeric string) in 400–599, else a numeric
 * `error.status` in that range, else 500 (Zhipu's "1113"-style codes are not statuses).
 */
export function classifyOpenAiErrorEnvelope(envelope: Record<string, unknown>): GatewayError {
  const error = asRecord(envelope.error);
  const code = error?.code;
  const candidates = [
    asNumber(code),
    /^\d{3}$/.test(asString(code) ?? '') ? Number(code) : undefined,
    asNumber(error?.status),
  ];
  const status = candidates.find((n) => n !== undefined && n >= 400 && n <= 599) ?? 500;
  return classifyOpenAiError(status, JSON.stringify(envelope), {});
}

/** MiniMax `base_resp.status_code` → the HTTP status it stands for (gateway/providers/PROVIDER-DOCS.md). */
const MINIMAX_STATUS: Readonly<Record<number, number>> = { 1002: 429, 1004: 401, 1008: 402, 1039: 429, 2013: 400 };

/**
 * The error an HTTP-200 body or stream chunk carries, or undefined when it carries none: a truthy
 * `error` key (DeepSeek, OpenAI mid-stream), or MiniMax's `base_resp` with a non-zero
 * `status_code` (1008 insufficient balance → like 402: upstream-rejected, failover; 1002/1039 rate
 * limits → 429; 1004 auth → 401; 2013 bad parameters → 400; others → 500).
 */
export function embeddedOpenAiError(root: Record<string, unknown>): GatewayError | undefined {
  if (root.error) return classifyOpenAiErrorEnvelope(root);
  const baseResp = asRecord(root.base_resp);
  const statusCode = asNumber(baseResp?.status_code);
  if (statusCode === undefined || statusCode === 0) return undefined;
  const message = `${asString(baseResp?.status_msg) || 'MiniMax error'} (${statusCode})`;
  return classifyUpstreamHttpError(MINIMAX_STATUS[statusCode] ?? 500, message, {}, String(statusCode));
}

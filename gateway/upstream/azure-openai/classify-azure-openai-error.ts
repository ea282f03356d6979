/**
 * Azure OpenAI's error answers, classified. Azure uses the OpenAI envelope
 * `{"error":{"code","message",…}}` with codes of its own
 * (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference, "Error response";
 * https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter, "Scenario
 * details"):
 * - 400 `content_filter` (inner code `ResponsibleAIPolicyViolation`): the prompt tripped the
 *   resource's content filter — the client's request is refused, as a content-policy error;
 * - 401 (`code: "401"`): a wrong `api-key`, or an Entra ID token that is missing, expired or for
 *   another audience — the channel's credential is at fault;
 * - 404 `DeploymentNotFound`, 404 "Resource not found" (a wrong endpoint, path or `api-version`),
 *   400 "API version not supported": the channel is misconfigured, not the request;
 * - 429 with `retry-after`: the deployment's tokens- or requests-per-minute quota.
 * Everything else follows the OpenAI classification (classifyOpenAiError).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { classifyOpenAiError } from '../shared/classify-openai-error.ts';
import { asRecord, asString } from '../shared/read-json-field.ts';
import type { UpstreamHeaders } from '../upstream-adapter.ts';

/** Azure's error object, read leniently (`code` is a string, sometimes a number-like string). */
interface AzureErrorFields {
  readonly code: string | undefined;
  readonly message: string;
  readonly innerCode: string | undefined;
}

function azureErrorFields(body: string): AzureErrorFields {
  let error: Record<string, unknown> | undefined;
  try {
    error = asRecord(asRecord(JSON.parse(body) as unknown)?.error);
  } catch {
    error = undefined;
  }
  const code = error?.code;
  return {
    code: typeof code === 'number' ? String(code) : asString(code),
    message: asString(error?.message) ?? body.slice(0, 300).trim(),
    innerCode: asString(asRecord(error?.innererror)?.code),
  };
}

/** A fault of the channel's configuration or credential: the next channel may serve the request. */
function channelFault(message: string, upstreamStatus: number, code: string): GatewayError {
  return new GatewayError('upstream-rejected', message, {
    status: 502,
    allowFailover: true,
    retryable: false,
    upstreamStatus,
    code,
  });
}

/**
 * Classifies a non-2xx Azure OpenAI answer (`body` raw text, maybe not JSON):
 * - content filter → upstream-rejected 400, code `content_filter`, param `prompt`, no failover
 *   (every deployment of the resource applies the same filter);
 * - 401 → upstream-rejected 502, code `upstream_credentials_refused`, failover allowed, not
 *   retryable, the message saying the api-key or Entra ID token was refused (Azure's own words
 *   never quote the credential);
 * - 404 and an unsupported `api-version` → upstream-rejected 502, code
 *   `upstream_misconfigured`, failover allowed;
 * - anything else → classifyOpenAiError (429 rate-limited with retry-after, 5xx unavailable, …).
 */
export function classifyAzureOpenAiError(status: number, body: string, headers: UpstreamHeaders): GatewayError {
  const { code, message, innerCode } = azureErrorFields(body);
  if (code === 'content_filter' || innerCode === 'ResponsibleAIPolicyViolation')
    return new GatewayError('upstream-rejected', `Azure OpenAI's content filter refused the request: ${message}`, {
      status: 400,
      code: 'content_filter',
      param: 'prompt',
      upstreamStatus: status,
      allowFailover: false,
    });
  if (status === 401)
    return channelFault(
      `Azure OpenAI refused the channel's credentials (api-key or Microsoft Entra ID token): ${message}`,
      status,
      'upstream_credentials_refused',
    );
  if (status === 404 || (status === 400 && /api version/i.test(message)))
    return channelFault(
      `Azure OpenAI could not find the channel's deployment or API version (check baseUrl, the deployment name and cloud.apiVersion): ${message}`,
      status,
      'upstream_misconfigured',
    );
  return classifyOpenAiError(status, body, headers);
}

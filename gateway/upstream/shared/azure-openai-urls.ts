/**
 * Where an Azure OpenAI call goes. Two surfaces, chosen by the channel's `cloud.apiVersion`:
 * - the v1 surface (no `apiVersion`): `{endpoint}/openai/v1/chat/completions` and
 *   `{endpoint}/openai/v1/responses`, no `api-version` query, the deployment name as the body's
 *   `model` (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/api-version-lifecycle,
 *   "API evolution" and "Code changes");
 * - the dated surface (`apiVersion` set): Chat Completions at
 *   `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…`
 *   (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference, "Chat completions -
 *   Create") and Responses at `{endpoint}/openai/responses?api-version=…` with the deployment as
 *   `model` (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference-preview,
 *   "Responses - Create").
 * `{endpoint}` is the resource endpoint, `https://{resource}.openai.azure.com` or
 * `https://{resource}.cognitiveservices.azure.com`.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { UpstreamProtocol } from '../../canonical/formats.ts';

/** The two protocols Azure OpenAI serves. */
export type AzureProtocol = Extract<UpstreamProtocol, 'openai-chat' | 'openai-responses'>;

/** How to reach one Azure call: the base URL the wrapped OpenAI adapter appends its path to, and the query to add after. */
export interface AzureCallBase {
  /** Base URL for the OpenAI adapter (`…/openai/v1`, `…/openai/deployments/{deployment}` or `…/openai`), no trailing slash. */
  readonly baseUrl: string;
  /** `?api-version=…` on the dated surface, else empty. */
  readonly query: string;
}

/** A trailing `/openai` or `/openai/v1` (and slashes) that a channel's base URL may carry: the SDKs' own conventions. */
const SURFACE_SUFFIX = /\/openai(\/v1)?\/*$/i;

/**
 * The resource endpoint of a channel's base URL: trailing slashes and a trailing `/openai` or
 * `/openai/v1` removed (`https://r.openai.azure.com/openai/v1/` → `https://r.openai.azure.com`).
 * @throws GatewayError('upstream-unavailable', failover allowed) when the base URL is not an
 *   absolute http(s) URL (a misconfigured channel, not a bad request).
 */
export function azureResourceEndpoint(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GatewayError(
      'upstream-unavailable',
      'The Azure OpenAI channel has no valid resource endpoint (baseUrl such as https://my-resource.openai.azure.com)',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new GatewayError(
      'upstream-unavailable',
      'The Azure OpenAI channel has no valid resource endpoint (baseUrl such as https://my-resource.openai.azure.com)',
    );
  return baseUrl.replace(/\/+$/, '').replace(SURFACE_SUFFIX, '');
}

/**
 * The base and query of a call of `protocol` to deployment `deployment` (the channel's upstream
 * model after `modelMap`): the v1 surface when `apiVersion` is undefined or `v1`, the v1 surface's
 * preview features with `preview` (`/openai/v1/…?api-version=preview`), else the dated surface.
 * @throws GatewayError('upstream-unavailable') for a base URL that is not a URL (azureResourceEndpoint)
 */
export function azureCallBase(
  protocol: AzureProtocol,
  baseUrl: string,
  deployment: string,
  apiVersion: string | undefined,
): AzureCallBase {
  const endpoint = azureResourceEndpoint(baseUrl);
  if (apiVersion === undefined || apiVersion === 'v1') return { baseUrl: `${endpoint}/openai/v1`, query: '' };
  if (apiVersion === 'preview') return { baseUrl: `${endpoint}/openai/v1`, query: '?api-version=preview' };
  const query = `?api-version=${encodeURIComponent(apiVersion)}`;
  if (protocol === 'openai-responses') return { baseUrl: `${endpoint}/openai`, query };
  return { baseUrl: `${endpoint}/openai/deployments/${encodeURIComponent(deployment)}`, query };
}

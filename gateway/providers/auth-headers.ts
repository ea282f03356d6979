/**
 * Builds the credential headers for an upstream call from the provider's auth scheme
 * (gateway/providers/PROVIDER-DOCS.md, "Auth header" column).
 */
import type { UpstreamProtocol } from '../canonical/formats.ts';
import type { AuthScheme } from './provider-preset.ts';
import type { ProviderPreset } from './provider-preset.ts';

/** Header name → value for `scheme`. The key itself is never logged. */
export function authHeadersFor(scheme: AuthScheme, apiKey: string): Record<string, string> {
  switch (scheme) {
    case 'optional-bearer':
      return apiKey === '' ? {} : { authorization: `Bearer ${apiKey}` };
    case 'bearer':
      return { authorization: `Bearer ${apiKey}` };
    case 'x-api-key':
      return { 'x-api-key': apiKey };
    case 'x-goog-api-key':
      return { 'x-goog-api-key': apiKey };
    case 'api-key':
      return { 'api-key': apiKey };
    case 'bearer+x-api-key':
      return { authorization: `Bearer ${apiKey}`, 'x-api-key': apiKey };
    case 'cloud-credentials':
      // Added by the credentials step after the request is built (a signature covers the whole request).
      return {};
  }
}

/** The auth scheme the provider uses for `protocol`, falling back to the protocol's own convention. */
export function authSchemeFor(provider: ProviderPreset, protocol: UpstreamProtocol): AuthScheme {
  const endpoint = provider.endpoints[protocol];
  if (endpoint) return endpoint.auth;
  return protocol === 'anthropic-messages' ? 'x-api-key' : protocol === 'gemini' ? 'x-goog-api-key' : 'bearer';
}

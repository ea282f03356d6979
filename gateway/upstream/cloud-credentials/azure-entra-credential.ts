/**
 * Azure OpenAI channels with `cloud.auth: entra-id`: Microsoft Entra ID access tokens from the
 * OAuth 2.0 client credentials flow
 * (https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-client-creds-grant-flow)
 * for the scope `https://cognitiveservices.azure.com/.default`, sent as
 * `Authorization: Bearer …` (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference,
 * "Authentication", "Microsoft Entra ID authentication").
 *
 * Tokens come from `@azure/identity`'s ClientSecretCredential
 * (https://learn.microsoft.com/en-us/javascript/api/@azure/identity/clientsecretcredential): its
 * MSAL client keeps each token in memory and answers from that cache until the token is within
 * five minutes of its expiry or past the `refresh_in` Entra sent, when it asks for a new one
 * (https://learn.microsoft.com/en-us/entra/msal/javascript/node/caching). The client secret is
 * the channel's `apiKey`; it never leaves this module except in the token request itself.
 */
import { rootCertificates } from 'node:tls';
import type { ClientSecretCredentialOptions } from '@azure/identity';
import type { ChannelCredential, ChannelCredentialFactory } from './cloud-credentials.ts';

let azureIdentity: Promise<typeof import('@azure/identity')> | undefined;

/**
 * @azure/identity (with MSAL), imported on the first use of an Entra ID credential rather than at
 * start: a node without such channels never holds it (≈ 6 MB of heap). Later calls share the import.
 * @throws (rejects) when the package cannot be loaded
 */
function lazyAzureIdentity(): Promise<typeof import('@azure/identity')> {
  azureIdentity ??= import('@azure/identity');
  return azureIdentity;
}

/** The scope of Azure OpenAI (Cognitive Services) tokens. */
export const AZURE_COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** Where and how the Entra ID token endpoint is reached; every field optional. */
export interface AzureEntraIdOptions {
  /**
   * The Microsoft Entra authority host (`https://login.microsoftonline.com`, a national cloud's
   * host, or a private one). Absent: `@azure/identity`'s own default, which reads the standard
   * AZURE_AUTHORITY_HOST environment variable and else uses the public cloud. Given: instance
   * discovery is turned off, so the host's own OpenID metadata is used without asking
   * login.microsoftonline.com to vouch for it (`disableInstanceDiscovery`,
   * https://learn.microsoft.com/en-us/javascript/api/@azure/identity/authorityvalidationoptions).
   */
  readonly authorityHost?: string;
  /**
   * PEM certificate(s) of a certificate authority trusted for the authority host in addition to
   * the system's (a private cloud's, or a test's fake token endpoint).
   */
  readonly trustedCa?: string;
}

/** The ClientSecretCredential options for `options`: authority host, trusted CA, one retry, no account identifiers in the library's logs. */
function credentialOptions(options: AzureEntraIdOptions): ClientSecretCredentialOptions {
  return {
    ...(options.authorityHost === undefined
      ? {}
      : { authorityHost: options.authorityHost, disableInstanceDiscovery: true }),
    ...(options.trustedCa === undefined ? {} : { tlsOptions: { ca: [options.trustedCa, ...rootCertificates] } }),
    // One retry: the attempt's deadline bounds the rest, and the next channel is a better bet.
    retryOptions: { maxRetries: 1 },
    loggingOptions: { allowLoggingAccountIdentifiers: false },
  };
}

/**
 * The factory of `azure/entra-id` credentials: per channel, one ClientSecretCredential for the
 * channel's `cloud.tenantId` and `cloud.clientId` with its `apiKey` as the client secret, adding
 * `authorization: Bearer <token>` to each call (tokens cached and refreshed before expiry by the
 * library).
 * @throws Error from `authorize` when no token can be had (a wrong tenant, client id or secret:
 *   Entra's AADSTS message, which never quotes the secret; the authority unreachable); the
 *   credentials step turns it into a failover-worthy GatewayError naming the channel.
 */
export function azureEntraIdCredentials(options: AzureEntraIdOptions = {}): ChannelCredentialFactory {
  return (channel): ChannelCredential => {
    const tenantId = channel.cloud?.tenantId;
    const clientId = channel.cloud?.clientId;
    if (!tenantId || !clientId)
      return {
        authorize: () => Promise.reject(new Error('cloud.tenantId and cloud.clientId are required with entra-id')),
      };
    // @azure/identity loads with the first call that needs it (lazyAzureIdentity).
    const credential = lazyAzureIdentity().then(
      ({ ClientSecretCredential }) =>
        new ClientSecretCredential(tenantId, clientId, channel.apiKey, credentialOptions(options)),
    );
    return {
      async authorize(request, signal) {
        const token = await (
          await credential
        ).getToken(AZURE_COGNITIVE_SERVICES_SCOPE, signal ? { abortSignal: signal } : {});
        return { ...request, headers: { ...request.headers, authorization: `Bearer ${token.token}` } };
      },
    };
  };
}

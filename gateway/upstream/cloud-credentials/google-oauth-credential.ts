/**
 * Google Vertex AI channels: OAuth 2.0 access tokens for the scope
 * `https://www.googleapis.com/auth/cloud-platform`, sent as `Authorization: Bearer …`
 * (https://cloud.google.com/vertex-ai/docs/authentication#rest), through google-auth-library
 * (https://cloud.google.com/nodejs/docs/reference/google-auth-library/latest):
 * - `vertex/service-account`: the channel's `apiKey` is a service-account key file's JSON
 *   (https://cloud.google.com/iam/docs/keys-create-delete); its JWT client signs an assertion
 *   with the key and trades it for an access token (the JWT bearer grant of
 *   https://developers.google.com/identity/protocols/oauth2/service-account#httprest);
 * - `vertex/default-credentials`: Application Default Credentials of the gateway's host
 *   (https://cloud.google.com/docs/authentication/application-default-credentials): the
 *   GOOGLE_APPLICATION_CREDENTIALS file, the gcloud user's credentials, or the metadata server.
 *
 * Tokens are kept by the library's client (one per channel) and refreshed when they are within
 * `eagerRefreshThresholdMillis` (five minutes) of their expiry (OAuth2Client.isTokenExpiring in
 * google-auth-library), so a call never carries a token about to lapse.
 *
 * The key's `token_uri` is honoured: google-auth-library's JWT client always posts the grant to
 * `https://oauth2.googleapis.com/token` (its gtoken module has that URL fixed), so a key naming
 * another token endpoint (a private or test one) has its grant sent there instead. Google's keys
 * name `https://oauth2.googleapis.com/token`, which changes nothing.
 */
import type { GoogleAuth, JWT } from 'google-auth-library';
import type { UpstreamCallSignal, UpstreamHttpRequest } from '../upstream-adapter.ts';
import type { ChannelCredential, ChannelCredentialFactory } from './cloud-credentials.ts';

/** The scope of Vertex AI calls. */
export const GOOGLE_CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** Where google-auth-library sends every service-account token grant. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

let googleAuthLibrary: Promise<typeof import('google-auth-library')> | undefined;

/**
 * google-auth-library, imported on the first use of a Vertex credential rather than at start:
 * a node without Vertex channels never holds it (several MB of heap). Later calls share the import.
 * @throws (rejects) when the package cannot be loaded
 */
function lazyGoogleAuthLibrary(): Promise<typeof import('google-auth-library')> {
  googleAuthLibrary ??= import('google-auth-library');
  return googleAuthLibrary;
}

/** The fields of a service-account key file the credential reads. */
interface ServiceAccountKey {
  readonly client_email: string;
  readonly private_key: string;
  readonly private_key_id?: string;
  readonly token_uri?: string;
}

/**
 * The key file in `json`.
 * @throws Error naming the missing field (never quoting the key) when it is not a service-account key
 */
function readServiceAccountKey(json: string): ServiceAccountKey {
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new Error('the service-account key is not JSON');
  }
  if (key.type !== 'service_account') throw new Error('the key file is not of type service_account');
  if (typeof key.client_email !== 'string') throw new Error('the service-account key has no client_email');
  if (typeof key.private_key !== 'string') throw new Error('the service-account key has no private_key');
  return {
    client_email: key.client_email,
    private_key: key.private_key,
    ...(typeof key.private_key_id === 'string' ? { private_key_id: key.private_key_id } : {}),
    ...(typeof key.token_uri === 'string' ? { token_uri: key.token_uri } : {}),
  };
}

/** Sends the JWT client's token grants to `tokenUri` instead of Google's fixed token URL. */
function sendGrantsTo(client: JWT, tokenUri: string): void {
  if (tokenUri === GOOGLE_TOKEN_URL) return;
  const target = new URL(tokenUri);
  client.transporter.interceptors.request.add({
    resolved: (config) => {
      if (config.url.href === GOOGLE_TOKEN_URL) config.url = target;
      return Promise.resolve(config);
    },
  });
}

/** `promise`, or a rejection as soon as `signal` aborts (the attempt's deadline, or the client gone). */
function untilAborted<T>(promise: Promise<T>, signal: UpstreamCallSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new Error('the request was cancelled before a token was obtained'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('the request was cancelled before a token was obtained'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** `request` with the `authorization` (and, when the client names one, `x-goog-user-project`) of `headers`. */
function withGoogleHeaders(request: UpstreamHttpRequest, headers: Headers): UpstreamHttpRequest {
  const authorization = headers.get('authorization');
  if (!authorization) throw new Error('google-auth-library returned no access token');
  const project = headers.get('x-goog-user-project');
  return {
    ...request,
    headers: { ...request.headers, authorization, ...(project ? { 'x-goog-user-project': project } : {}) },
  };
}

/** A credential that asks `headersOf` for Google's request headers on each call (the library caches the token). */
function googleCredential(headersOf: () => Promise<Headers>): ChannelCredential {
  return {
    async authorize(request, signal) {
      return withGoogleHeaders(request, await untilAborted(headersOf(), signal));
    },
  };
}

/**
 * The factory of `vertex/service-account` credentials: per channel, a JWT client for the key in
 * its `apiKey` (scope cloud-platform, grants sent to the key's `token_uri`).
 * @throws Error from `authorize` when the key is not a service-account key, or when the token
 *   endpoint refuses the grant (`invalid_grant: Invalid JWT Signature.`, a deleted key) or cannot
 *   be reached; the credentials step turns it into a failover-worthy GatewayError naming the
 *   channel. Messages never quote the key.
 */
export function vertexServiceAccountCredentials(): ChannelCredentialFactory {
  return (channel): ChannelCredential => {
    let key: ServiceAccountKey;
    try {
      key = readServiceAccountKey(channel.apiKey);
    } catch (error) {
      return { authorize: () => Promise.reject(error instanceof Error ? error : new Error(String(error))) };
    }
    const tokenUri = key.token_uri;
    // The library loads with the first call that needs it (lazyGoogleAuthLibrary).
    const client = lazyGoogleAuthLibrary().then(({ JWT: JwtClient }) => {
      const made = new JwtClient({
        email: key.client_email,
        key: key.private_key,
        ...(key.private_key_id === undefined ? {} : { keyId: key.private_key_id }),
        scopes: [GOOGLE_CLOUD_PLATFORM_SCOPE],
      });
      if (tokenUri !== undefined) sendGrantsTo(made, tokenUri);
      return made;
    });
    return googleCredential(async () => (await client).getRequestHeaders());
  };
}

/**
 * The factory of `vertex/default-credentials` credentials: per channel, Application Default
 * Credentials with the cloud-platform scope (`options` for tests: another GoogleAuth setup).
 * @throws Error from `authorize` when the host has no default credentials or they are refused
 *   (the library's message, which never quotes a secret).
 */
export function vertexDefaultCredentials(
  options: ConstructorParameters<typeof GoogleAuth>[0] = {},
): ChannelCredentialFactory {
  return (): ChannelCredential => {
    const auth = lazyGoogleAuthLibrary().then(
      (library) => new library.GoogleAuth({ scopes: [GOOGLE_CLOUD_PLATFORM_SCOPE], ...options }),
    );
    return googleCredential(async () => (await auth).getRequestHeaders());
  };
}

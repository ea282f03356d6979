/**
 * Amazon Bedrock channels with `cloud.auth: sigv4`: every finished call is signed with AWS
 * Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html)
 * by the AWS SDK's own signer (`@smithy/signature-v4`, SHA-256 from `@aws-crypto/sha256-js`),
 * service `bedrock`, the channel's `cloud.region`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/welcome.html, "Signing requests").
 *
 * The credentials, by the channel's `apiKey`:
 * - `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]` — static keys, with the session token of
 *   temporary credentials;
 * - empty — the AWS default credential chain of the gateway's host (`@aws-sdk/credential-provider-node`:
 *   environment, shared config and credentials files, SSO, web identity, ECS and EC2 instance roles,
 *   https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/setting-credentials-node.html);
 * and with `cloud.roleArn` those credentials assume the role through STS AssumeRole
 * (`fromTemporaryCredentials`, session name `tollgate`, `cloud.externalId` as ExternalId,
 * https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html). Credentials are
 * memoized and fetched again shortly before they expire. Nothing here logs or returns a secret.
 */
import type { UpstreamCredentialSource, UpstreamHttpRequest } from '../upstream-adapter.ts';
import type { ChannelCredential, ChannelCredentialFactory } from './cloud-credentials.ts';

/** The SigV4 service name of Amazon Bedrock Runtime. */
const BEDROCK_SIGNING_SERVICE = 'bedrock';

/** The role session name of assumed roles (it shows in the role's CloudTrail entries). */
const ROLE_SESSION_NAME = 'tollgate';

/** AWS credentials as the signer takes them. */
interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** The parts of the AWS SDK and Smithy the signer uses. */
interface AwsSdkParts {
  readonly Sha256: (typeof import('@aws-crypto/sha256-js'))['Sha256'];
  readonly defaultProvider: (typeof import('@aws-sdk/credential-provider-node'))['defaultProvider'];
  readonly fromTemporaryCredentials: (typeof import('@aws-sdk/credential-providers'))['fromTemporaryCredentials'];
  readonly smithy: typeof import('@smithy/core');
  readonly SignatureV4: (typeof import('@smithy/signature-v4'))['SignatureV4'];
}

let awsSdkParts: Promise<AwsSdkParts> | undefined;

/**
 * The AWS SDK credential providers and the SigV4 signer, imported on the first use of a SigV4
 * credential rather than at start: a node without Bedrock SigV4 channels never holds them
 * (several MB of heap). Later calls share the import.
 * @throws (rejects) when a package cannot be loaded
 */
function lazyAwsSdk(): Promise<AwsSdkParts> {
  awsSdkParts ??= Promise.all([
    import('@aws-crypto/sha256-js'),
    import('@aws-sdk/credential-provider-node'),
    import('@aws-sdk/credential-providers'),
    import('@smithy/core'),
    import('@smithy/signature-v4'),
  ]).then(([sha256, node, providers, smithy, signer]) => ({
    Sha256: sha256.Sha256,
    defaultProvider: node.defaultProvider,
    fromTemporaryCredentials: providers.fromTemporaryCredentials,
    smithy,
    SignatureV4: signer.SignatureV4,
  }));
  return awsSdkParts;
}

/** Something that yields AWS credentials when asked (an AWS SDK credential provider). */
type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/**
 * The static credentials in a channel's `apiKey` (`ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`).
 * @throws Error naming the expected shape (never the key) when it has fewer than two parts
 */
export function parseStaticAwsCredentials(apiKey: string): AwsCredentials {
  const [accessKeyId = '', secretAccessKey = '', ...session] = apiKey.trim().split(':');
  if (accessKeyId === '' || secretAccessKey === '')
    throw new Error("the channel's apiKey is not ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]");
  const sessionToken = session.join(':');
  return sessionToken === '' ? { accessKeyId, secretAccessKey } : { accessKeyId, secretAccessKey, sessionToken };
}

/** Options of awsSigV4Credentials. */
export interface AwsSigV4Options {
  /** The host's default credential chain (tests replace it); default `defaultProvider()`. */
  readonly defaultCredentials?: () => AwsCredentialsProvider;
}

/** The credentials of `channel` before any role is assumed. */
function baseCredentials(
  channel: UpstreamCredentialSource,
  options: AwsSigV4Options,
  sdk: AwsSdkParts,
): AwsCredentialsProvider {
  if (channel.apiKey.trim() !== '') {
    const credentials = parseStaticAwsCredentials(channel.apiKey);
    return async () => credentials;
  }
  return (options.defaultCredentials ?? (() => sdk.defaultProvider()))();
}

/** The channel's credentials: the base ones, or those of its `cloud.roleArn` assumed with them; memoized. */
function credentialsOf(
  channel: UpstreamCredentialSource,
  options: AwsSigV4Options,
  sdk: AwsSdkParts,
): AwsCredentialsProvider {
  const base = baseCredentials(channel, options, sdk);
  const roleArn = channel.cloud?.roleArn;
  const provider: AwsCredentialsProvider =
    roleArn === undefined
      ? base
      : sdk.fromTemporaryCredentials({
          params: {
            RoleArn: roleArn,
            RoleSessionName: ROLE_SESSION_NAME,
            ...(channel.cloud?.externalId === undefined ? {} : { ExternalId: channel.cloud.externalId }),
          },
          masterCredentials: base,
          ...(channel.cloud?.region === undefined ? {} : { clientConfig: { region: channel.cloud.region } }),
        });
  const { memoizeIdentityProvider, isIdentityExpired, doesIdentityRequireRefresh } = sdk.smithy;
  const memoized = memoizeIdentityProvider(provider, isIdentityExpired, doesIdentityRequireRefresh);
  if (memoized === undefined) throw new Error('no AWS credential provider could be made for the channel');
  return () => memoized();
}

/** The query parameters of `url` as the signer takes them (repeated names as arrays). */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}

/**
 * Signs `request` for `region`: the canonical request covers exactly what undici sends — the
 * `host` of the URL (undici sends it from the origin, so it is signed but not set here), the
 * call's own headers, `x-amz-date`, `x-amz-content-sha256`, and `x-amz-security-token` for
 * temporary credentials — and `authorization` carries the signature.
 */
async function signRequest(
  request: UpstreamHttpRequest,
  region: string,
  credentials: AwsCredentialsProvider,
  sdk: AwsSdkParts,
): Promise<UpstreamHttpRequest> {
  const signer = new sdk.SignatureV4({ service: BEDROCK_SIGNING_SERVICE, region, credentials, sha256: sdk.Sha256 });
  const url = new URL(request.url);
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    path: url.pathname,
    query: queryOf(url),
    headers: { ...request.headers, host: url.host },
    body: request.body,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers))
    if (name.toLowerCase() !== 'host') headers[name] = String(value);
  return { ...request, headers };
}

/**
 * The factory of `bedrock/sigv4` credentials (register it with CloudCredentials). Each channel
 * gets its own memoized credential provider; the region is the channel's `cloud.region`.
 * A credential that cannot be obtained (malformed apiKey, empty default chain, AssumeRole refused)
 * throws from `authorize`, which the credentials step turns into a failover-worthy
 * GatewayError naming the channel, never the secret.
 */
export function awsSigV4Credentials(options: AwsSigV4Options = {}): ChannelCredentialFactory {
  return (channel): ChannelCredential => {
    let credentials: AwsCredentialsProvider | undefined;
    return {
      authorize: async (request) => {
        const region = channel.cloud?.region;
        if (region === undefined || region === '') throw new Error('the channel has no cloud.region to sign for');
        const sdk = await lazyAwsSdk();
        credentials ??= credentialsOf(channel, options, sdk);
        return signRequest(request, region, credentials, sdk);
      },
    };
  };
}

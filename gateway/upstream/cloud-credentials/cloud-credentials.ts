/**
 * The credentials step of cloud channels (auth `cloud-credentials`): adds a channel's credential
 * to a finished upstream call, by the channel's cloud and `cloud.auth`
 * (gateway/providers/provider-preset.ts, CLOUD_AUTH_METHODS). Credential clients (token caches,
 * AWS credential providers) are kept per channel and pooled credential (README "Key pools") and
 * rebuilt when that credential or the channel's settings change; nothing here logs or returns a secret.
 */
import { createHash } from 'node:crypto';
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { CloudAuthMethod } from '../../providers/provider-preset.ts';
import type {
  UpstreamAuthorizer,
  UpstreamCallSignal,
  UpstreamCredentialSource,
  UpstreamHttpRequest,
} from '../upstream-adapter.ts';

/** Adds one channel's credential to calls; made once per channel (and credential) and reused. */
export interface ChannelCredential {
  /**
   * `request` with the credential added.
   * @throws Error when no credential can be obtained (the registry wraps it into a GatewayError)
   */
  authorize(request: UpstreamHttpRequest, signal?: UpstreamCallSignal): Promise<UpstreamHttpRequest>;
}

/** Makes the credential of a channel whose cloud and auth method it serves. */
export type ChannelCredentialFactory = (channel: UpstreamCredentialSource) => ChannelCredential;

/** The credential factories by `<provider>/<auth>` (`azure/entra-id`, `bedrock/sigv4`, …). */
export type ChannelCredentialFactories = Readonly<Record<string, ChannelCredentialFactory>>;

/**
 * The default method of each cloud when `cloud.auth` is absent (mirrors
 * gateway/config/cloud-settings-rules.ts, which checks the settings at configuration).
 */
const DEFAULT_AUTH: Readonly<Record<string, CloudAuthMethod>> = {
  azure: 'api-key',
  bedrock: 'sigv4',
  vertex: 'service-account',
};

/** Static keys: Azure's `api-key` header (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference#authentication), Bedrock API keys as bearer tokens (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html). */
const STATIC_KEY_FACTORIES: ChannelCredentialFactories = {
  'azure/api-key': (channel) => headerCredential({ 'api-key': channel.apiKey }),
  'bedrock/api-key': (channel) => headerCredential({ authorization: `Bearer ${channel.apiKey}` }),
};

/** A credential that adds fixed headers. */
function headerCredential(headers: Readonly<Record<string, string>>): ChannelCredential {
  return { authorize: async (request) => ({ ...request, headers: { ...request.headers, ...headers } }) };
}

/**
 * The credentials step: one ChannelCredential per channel and pooled credential, made by the factory of its cloud and
 * auth method, rebuilt when the channel's credential or cloud settings change.
 */
export class CloudCredentials implements UpstreamAuthorizer {
  private readonly factories: ChannelCredentialFactories;
  private readonly byChannel = new Map<
    string,
    { readonly fingerprint: string; readonly credential: ChannelCredential }
  >();

  /** `factories` add to (and may replace) the static-key ones. */
  constructor(factories: ChannelCredentialFactories = {}) {
    this.factories = { ...STATIC_KEY_FACTORIES, ...factories };
  }

  /** @inheritdoc */
  async authorize(
    channel: UpstreamCredentialSource,
    request: UpstreamHttpRequest,
    signal?: UpstreamCallSignal,
  ): Promise<UpstreamHttpRequest> {
    const credential = this.credentialOf(channel);
    try {
      return await credential.authorize(request, signal);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw new GatewayError(
        'upstream-unavailable',
        `Channel ${channel.id}: could not obtain a ${methodOf(channel)} credential for ${channel.provider.displayName} (${reasonOf(error)})`,
        { cause: error },
      );
    }
  }

  private credentialOf(channel: UpstreamCredentialSource): ChannelCredential {
    const fingerprint = fingerprintOf(channel);
    const slot = `${channel.id}\0${channel.credentialId ?? ''}`;
    const kept = this.byChannel.get(slot);
    if (kept && kept.fingerprint === fingerprint) return kept.credential;
    const method = methodOf(channel);
    const factory = this.factories[`${channel.provider.id}/${method}`];
    if (!factory)
      throw new GatewayError(
        'upstream-unavailable',
        `Channel ${channel.id}: ${channel.provider.displayName} credentials of kind ${method} are not supported by this gateway node`,
      );
    const credential = factory(channel);
    this.byChannel.set(slot, { fingerprint, credential });
    return credential;
  }
}

/** The auth method a cloud channel uses: its `cloud.auth` or its cloud's default. */
function methodOf(channel: UpstreamCredentialSource): CloudAuthMethod {
  return channel.cloud?.auth ?? DEFAULT_AUTH[channel.provider.id] ?? 'api-key';
}

/** A digest of what the credential is made from (secret included, never kept in clear). */
function fingerprintOf(channel: UpstreamCredentialSource): string {
  return createHash('sha256')
    .update(channel.provider.id)
    .update('\0')
    .update(JSON.stringify(channel.cloud ?? {}))
    .update('\0')
    .update(channel.apiKey)
    .digest('base64url');
}

/** A failure's message without anything that could be a secret: the first line, at most 300 characters. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 300) || 'unknown error';
}

/**
 * A runnable channel: one upstream account of a provider, resolved from config against its
 * provider preset (protocol and base URL defaults).
 */
import type { UpstreamProtocol } from '../canonical/formats.ts';
import type { ChannelConfig } from '../config/config-schema.ts';
import { mockChannelBaseUrl } from '../providers/mock-endpoint.ts';
import { getProviderPreset } from '../providers/presets.ts';
import type { ProviderEndpoint, ProviderPreset } from '../providers/provider-preset.ts';
import { upstreamAdapterKey, type UpstreamAdapterKey } from '../upstream/upstream-adapter.ts';
import { credentialsOf } from './credential-pool.ts';

/**
 * A channel ready for routing: the config-file channel (ChannelConfig, declared once by
 * `channelSchema`) with its provider preset, protocol and base URL resolved and its models as a
 * set. Every other field is the config's as is (timeouts and deadlines in ms). `apiKey` and
 * `credentials` are secrets: never log a Channel whole.
 */
export interface Channel extends Readonly<Omit<ChannelConfig, 'provider' | 'protocol' | 'baseUrl' | 'models'>> {
  readonly provider: ProviderPreset;
  readonly protocol: UpstreamProtocol;
  /** Base URL in the protocol's SDK convention, no trailing slash. */
  readonly baseUrl: string;
  /** Client-facing model names served, including modelMap keys. */
  readonly models: ReadonlySet<string>;
  /** The adapter that speaks to it: its protocol, through its cloud's surface when it has one. */
  readonly adapterKey: UpstreamAdapterKey;
  /**
   * The pooled credential whose key `apiKey` holds for one attempt (routing/credential-pool.ts,
   * README "Key pools"); absent on the channel as routed.
   */
  readonly credentialId?: string;
}

/**
 * Resolves a channel config. `mockBaseUrl` replaces the placeholder base URL of mock channels
 * (the built-in fake model listens on loopback).
 * @throws Error when the provider does not offer the requested protocol and no baseUrl is given.
 */
export function resolveChannel(config: ChannelConfig, mockBaseUrl?: string): Channel {
  const provider = getProviderPreset(config.provider);
  const protocol = config.protocol ?? provider.defaultProtocol;
  const endpoint = provider.endpoints[protocol];
  let baseUrl = config.baseUrl ?? endpoint?.baseUrl ?? regionalBaseUrl(endpoint, config.cloud?.region);
  if (config.provider === 'mock' && !config.baseUrl && mockBaseUrl)
    baseUrl = mockChannelBaseUrl(mockBaseUrl, config.mock ?? {}, protocol);
  if (!baseUrl)
    throw new Error(`channel ${config.id}: provider ${config.provider} has no ${protocol} endpoint; set baseUrl`);
  return {
    ...config,
    // A key pool's first credential stands for the channel where no rotation applies (token counts, embeddings, the console's test).
    apiKey: credentialsOf(config)[0]?.apiKey ?? config.apiKey,
    provider,
    protocol,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    models: new Set([...config.models, ...Object.keys(config.modelMap)]),
    adapterKey: upstreamAdapterKey(provider, protocol),
  };
}

/** A cloud endpoint's host for `region` (ProviderEndpoint.regionalBaseUrl), or undefined without one. */
function regionalBaseUrl(endpoint: ProviderEndpoint | undefined, region: string | undefined): string | undefined {
  const regional = endpoint?.regionalBaseUrl;
  if (!regional || region === undefined) return undefined;
  if (region === 'global' && regional.globalBaseUrl) return regional.globalBaseUrl;
  return regional.template.replace('{region}', region);
}

/** The model name to send upstream for a client model name on this channel. */
export function upstreamModelFor(channel: Channel, clientModel: string): string {
  return channel.modelMap[clientModel] ?? clientModel;
}

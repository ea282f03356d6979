/**
 * A runnable channel: one upstream account of a provider, resolved from config against its
 * provider preset (protocol and base URL defaults).
 */
import type { UpstreamProtocol } from '../canonical/formats.ts';
import type { ChannelConfig } from '../config/config-schema.ts';
import { mockChannelBaseUrl } from '../providers/mock-endpoint.ts';
import { getProviderPreset } from '../providers/presets.ts';
import type { ProviderPreset } from '../providers/provider-preset.ts';

/** A channel ready for routing. `apiKey` is a secret: never log a Channel whole. */
export interface Channel {
  readonly id: string;
  readonly provider: ProviderPreset;
  readonly protocol: UpstreamProtocol;
  /** Base URL in the protocol's SDK convention, no trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Client-facing model names served, including modelMap keys. */
  readonly models: ReadonlySet<string>;
  /** Client model name → upstream model name. */
  readonly modelMap: Readonly<Record<string, string>>;
  /** Higher tiers are tried first. */
  readonly priority: number;
  /** Relative share within a tier (> 0). */
  readonly weight: number;
  readonly enabled: boolean;
  /** Upstream time limit to response headers and between body bytes, ms. */
  readonly timeoutMs: number;
  /** Total time of one attempt, request sent to last answer byte, ms. */
  readonly deadlineMs: number;
  /** Slowest streamed body accepted after its first byte (`bytes: 0`: no check). */
  readonly minStreamRate: ChannelConfig['minStreamRate'];
  readonly mock?: ChannelConfig['mock'];
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
  let baseUrl = config.baseUrl ?? endpoint?.baseUrl;
  if (config.provider === 'mock' && !config.baseUrl && mockBaseUrl) baseUrl = mockChannelBaseUrl(mockBaseUrl, config.mock ?? {}, protocol);
  if (!baseUrl) throw new Error(`channel ${config.id}: provider ${config.provider} has no ${protocol} endpoint; set baseUrl`);
  return {
    id: config.id,
    provider,
    protocol,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: config.apiKey,
    models: new Set([...config.models, ...Object.keys(config.modelMap)]),
    modelMap: config.modelMap,
    priority: config.priority,
    weight: config.weight,
    enabled: config.enabled,
    timeoutMs: config.timeoutMs,
    deadlineMs: config.deadlineMs,
    minStreamRate: config.minStreamRate,
    ...(config.mock ? { mock: config.mock } : {}),
  };
}

/** The model name to send upstream for a client model name on this channel. */
export function upstreamModelFor(channel: Channel, clientModel: string): string {
  return channel.modelMap[clientModel] ?? clientModel;
}

/**
 * The mock provider's URL scheme: a mock channel's behaviour is carried in its base URL path so
 * one mock server (gateway/mock/) serves many channels:
 * `<mock origin>/b/latency=50,chunk=10,fail=503/v1/chat/completions`. Routing builds the base URL
 * with mockChannelBaseUrl; the mock server decodes the segment with decodeMockBehaviour.
 */
import type { UpstreamProtocol } from '../canonical/formats.ts';

/** How the mock upstream behaves. Times in ms. */
export interface MockBehaviour {
  /** Delay before answering (time to headers), ms. */
  readonly latencyMs: number;
  /** Delay before each stream chunk, ms. */
  readonly chunkDelayMs: number;
  /** Answer every request with this HTTP error status. */
  readonly failStatus?: number;
}

export const DEFAULT_MOCK_BEHAVIOUR: MockBehaviour = { latencyMs: 0, chunkDelayMs: 0 };

/** Encodes a behaviour as a path segment (`latency=50,chunk=10,fail=503`). */
export function encodeMockBehaviour(behaviour: Partial<MockBehaviour>): string {
  const parts = [`latency=${behaviour.latencyMs ?? 0}`, `chunk=${behaviour.chunkDelayMs ?? 0}`];
  if (behaviour.failStatus !== undefined) parts.push(`fail=${behaviour.failStatus}`);
  return parts.join(',');
}

/** Path prefix under which the mock server mounts its routes; `:behaviour` is the encoded segment. */
export const MOCK_BEHAVIOUR_ROUTE_PREFIX = '/b/:behaviour';

/**
 * The base URL of a mock channel speaking `protocol` with `behaviour`, in the protocol's SDK
 * convention (OpenAI protocols end in `/v1`), no trailing slash. `mockOrigin`: the mock server's
 * `http://host:port`.
 */
export function mockChannelBaseUrl(
  mockOrigin: string,
  behaviour: Partial<MockBehaviour>,
  protocol: UpstreamProtocol,
): string {
  const root = `${mockOrigin}/b/${encodeMockBehaviour(behaviour)}`;
  return protocol === 'openai-chat' || protocol === 'openai-responses' ? `${root}/v1` : root;
}

/** Decodes a path segment; unknown or malformed entries are ignored. */
export function decodeMockBehaviour(segment: string | undefined): MockBehaviour {
  if (!segment) return DEFAULT_MOCK_BEHAVIOUR;
  const values = new Map(
    decodeURIComponent(segment)
      .split(',')
      .map((pair) => pair.split('=') as [string, string | undefined]),
  );
  const num = (key: string): number | undefined => {
    const v = Number(values.get(key));
    return Number.isFinite(v) && v >= 0 ? v : undefined;
  };
  const fail = num('fail');
  return {
    latencyMs: num('latency') ?? 0,
    chunkDelayMs: num('chunk') ?? 0,
    ...(fail !== undefined && fail >= 400 && fail <= 599 ? { failStatus: fail } : {}),
  };
}

/**
 * What every upstream call of a channel shares, whichever path builds it (generation, token
 * count, the console's channel test, embeddings): the adapter target of the channel, and the
 * finishing step that adds the channel's extra headers and, for cloud endpoints, its credential
 * (a header, or a SigV4 signature over the finished request).
 */
import type { Channel } from '../routing/channel.ts';
import { upstreamModelFor } from '../routing/channel.ts';
import type {
  UpstreamAuthorizer,
  UpstreamCallSignal,
  UpstreamHttpRequest,
  UpstreamTarget,
} from '../upstream/upstream-adapter.ts';
import { GatewayError } from '../canonical/gateway-error.ts';

/** The adapter target of `channel` for the client model `clientModel` (its upstream model after `modelMap`). */
export function upstreamTargetOf(channel: Channel, clientModel: string): UpstreamTarget {
  return {
    baseUrl: channel.baseUrl,
    apiKey: channel.apiKey,
    upstreamModel: upstreamModelFor(channel, clientModel),
    provider: channel.provider,
    ...(channel.cloud === undefined ? {} : { cloud: channel.cloud }),
  };
}

/**
 * `request` ready to send on `channel`: the channel's `headers` added (they never replace a header
 * the adapter set), then the credential added by `authorizer` when the channel's endpoint uses
 * `cloud-credentials`. Unchanged (the same object) for a plain channel without extra headers.
 * @throws GatewayError('upstream-unavailable', failover allowed) when the channel needs the
 *   credentials step and none is configured, or when its credential cannot be obtained.
 */
export async function finishUpstreamCall(
  channel: Channel,
  request: UpstreamHttpRequest,
  authorizer: UpstreamAuthorizer | undefined,
  signal?: UpstreamCallSignal,
): Promise<UpstreamHttpRequest> {
  let call = request;
  const extra = channel.headers;
  if (extra !== undefined && Object.keys(extra).length > 0) {
    const own = new Set(Object.keys(request.headers).map((name) => name.toLowerCase()));
    const added = Object.fromEntries(Object.entries(extra).filter(([name]) => !own.has(name.toLowerCase())));
    call = { ...request, headers: { ...added, ...request.headers } };
  }
  if (channel.provider.endpoints[channel.protocol]?.auth !== 'cloud-credentials') return call;
  if (!authorizer)
    throw new GatewayError(
      'upstream-unavailable',
      `Channel ${channel.id} needs cloud credentials, but this gateway node was built without the credentials step`,
    );
  return authorizer.authorize(channel, call, signal);
}

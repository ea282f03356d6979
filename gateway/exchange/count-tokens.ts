/**
 * Token counting for `count_tokens` / `countTokens` / `responses/input_tokens`: the upstream's
 * count endpoint on the first candidate channel that has one (exact), else the local o200k
 * estimate (estimate-tokens.ts: exact for the first 64 KiB of text, estimated beyond, so a
 * hostile body costs at most ≈ 0.1 s of CPU; bounded-token-counter.ts has the figures).
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { estimateInputTokens } from '../tokenize/estimate-tokens.ts';
import { sendUpstream } from '../upstream/upstream-transport.ts';
import { adapterFor } from '../upstream/upstream-adapter.ts';
import { finishUpstreamCall, upstreamTargetOf } from './channel-upstream-call.ts';
import type { ExchangeDeps } from './exchange-types.ts';

/**
 * Input tokens of `request` (tokens).
 * @throws GatewayError not-found when no channel serves the model.
 */
export async function countInputTokens(
  deps: ExchangeDeps,
  request: CanonicalRequest,
  requestId: string,
): Promise<number> {
  const candidates = deps.router.candidatesFor(request.model);
  if (candidates.length === 0) {
    throw new GatewayError('not-found', `The model '${request.model}' does not exist or is not served by any channel`, {
      param: 'model',
      code: 'model_not_found',
    });
  }
  for (const channel of candidates) {
    const adapter = adapterFor(deps.adapters, channel.adapterKey);
    if (
      !adapter.buildCountTokensRequest ||
      !adapter.decodeCountTokensResponse ||
      !channel.provider.quirks.hasCountTokens
    )
      continue;
    const target = upstreamTargetOf(channel, request.model);
    try {
      const call = await finishUpstreamCall(
        channel,
        adapter.buildCountTokensRequest(request, target),
        deps.upstreamAuth,
      );
      const answer = await sendUpstream(deps.dispatcher, call, {
        timeoutMs: Math.min(channel.timeoutMs, 30_000),
      });
      const text = await answer.body.text();
      if (answer.status >= 200 && answer.status < 300) return adapter.decodeCountTokensResponse(JSON.parse(text));
      deps.log.warn(
        { requestId, channel: channel.id, status: answer.status },
        'upstream token count failed; trying the next channel',
      );
    } catch (error) {
      deps.log.warn(
        { requestId, channel: channel.id, reason: (error as Error).message },
        'upstream token count failed; trying the next channel',
      );
    }
  }
  return estimateInputTokens(request);
}

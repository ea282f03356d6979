/**
 * A token-count request (Anthropic `count_tokens`, Gemini `countTokens`, Responses
 * `input_tokens`): the same drain refusal, authentication, stored-state resolution and decoding as
 * a generation (serve-generation.ts), then the count in the format's answer. Not recorded: it
 * reaches no channel and bills nothing.
 */
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import {
  authenticate,
  decodeOrReply,
  refuseWhileDraining,
  resolveStateOrReply,
  withHeaderFields,
  type ClientRequest,
} from './client-request.ts';
import { sendErrorReply, sendJsonReply } from './client-response.ts';
import { countInputTokens } from './count-tokens.ts';

/** Authenticates, decodes and answers one token-count request; `state` and `fromHeaders` as for serveGeneration (no answer is kept). */
export async function serveCountTokens(client: ClientRequest): Promise<void> {
  const { services, codec, extractKey, request, reply, hints = {}, fromHeaders, state } = client;
  const requestId = request.id;
  if (services.drain?.draining) return refuseWhileDraining(services, reply, codec, requestId);
  const resolved = authenticate(services, codec, extractKey, request, reply, requestId);
  if (!resolved) return;
  if (state && !(await resolveStateOrReply(state, codec, request, reply, requestId, resolved.key.keyId, 'count')))
    return;
  const decode = codec.decodeCountTokensRequest?.bind(codec);
  const encode = codec.encodeCountTokensResponse?.bind(codec);
  if (!decode || !encode)
    return void sendErrorReply(
      reply,
      codec,
      new GatewayError('not-found', 'Token counting is not available for this format'),
      requestId,
    );
  const decoded = decodeOrReply((body) => decode(body, hints), codec, request, reply, requestId);
  if (!decoded) return;
  try {
    sendJsonReply(
      reply,
      encode(await countInputTokens(services.exchange, withHeaderFields(decoded.value, fromHeaders), requestId)),
      requestId,
    );
  } catch (error) {
    sendErrorReply(reply, codec, toGatewayError(error), requestId);
  }
}

/**
 * A token-count request (Anthropic `count_tokens`, Gemini `countTokens`, Responses
 * `input_tokens`): after the same route hooks (drain refusal, authentication), the same
 * stored-state resolution and decoding as a generation (serve-generation.ts), then the count in the format's answer. Not recorded: it
 * reaches no channel and bills nothing.
 */
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import { decodeOrReply, resolveStateOrReply, withHeaderFields, type ClientRequest } from './client-request.ts';
import { sendErrorReply, sendJsonReply } from './client-response.ts';
import { countInputTokens } from './count-tokens.ts';

/** Decodes and answers one token-count request of the authenticated `client.key`; `state` and `fromHeaders` as for serveGeneration (no answer is kept). */
export async function serveCountTokens(client: ClientRequest): Promise<void> {
  const { services, codec, key, request, reply, hints = {}, fromHeaders, state } = client;
  const requestId = request.id;
  if (state && !(await resolveStateOrReply(state, codec, request, reply, requestId, key.key.keyId, 'count'))) return;
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

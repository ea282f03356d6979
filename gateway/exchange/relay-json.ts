/**
 * Non-streamed relay: reads the whole upstream body, decodes it (also on the pass-through path,
 * as the usage tap), and answers the client in its format — or the upstream bytes unchanged on
 * pass-through. DeepSeek pads slow answers with leading blank lines (gateway/providers/PROVIDER-DOCS.md):
 * the body is trimmed before parsing, and a 200 whose body is an error envelope is a failure.
 */
import type { FastifyReply } from 'fastify';
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import type { EncodeContext } from '../inbound/inbound-codec.ts';
import type { UpstreamAdapter, UpstreamDecodeContext } from '../upstream/upstream-adapter.ts';
import { upstreamRequestIdOf } from '../upstream/upstream-request-id.ts';
import { classifyTransportError, type UpstreamAnswer } from '../upstream/upstream-transport.ts';
import type { AttemptDeadline } from './attempt-deadline.ts';
import type { AttemptResult } from './attempt-result.ts';
import { sendJsonReply } from './client-response.ts';
import type { ExchangeInput } from './exchange-types.ts';
import { finalizeUsage } from './finalize-usage.ts';

/** Everything one relay of an upstream answer works with, streamed or not. */
export interface RelayArgs {
  readonly input: ExchangeInput;
  readonly answer: UpstreamAnswer;
  /** Decodes the upstream answer (on pass-through too: the usage tap). */
  readonly adapter: UpstreamAdapter;
  readonly decodeContext: UpstreamDecodeContext;
  readonly encodeContext: EncodeContext;
  /** The client's own body went upstream unchanged: the upstream bytes are answered unchanged. */
  readonly passThrough: boolean;
  readonly reply: FastifyReply;
  /** The attempt's total deadline and minimum rate; counts body bytes; names the limit that ended the call. */
  readonly deadline: AttemptDeadline;
}

/**
 * Relays a 2xx non-streamed upstream answer. Returns `failed` (nothing sent) on undecodable bodies,
 * and on a body cut by `deadline` (the attempt's total deadline: `upstream-timeout`). Invalid UTF-8
 * in the body is read as U+FFFD (undici's `text()` decodes like TextDecoder), also on pass-through.
 */
export async function relayJson(args: RelayArgs): Promise<AttemptResult> {
  const { input, answer, adapter, decodeContext, encodeContext, passThrough, reply, deadline } = args;
  let text: string;
  try {
    text = await answer.body.text();
  } catch (error) {
    return { kind: 'failed', error: deadline.expired ?? classifyTransportError(error) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trim());
  } catch {
    return {
      kind: 'failed',
      error: new GatewayError('upstream-malformed', 'Upstream answered with a body that is not JSON'),
    };
  }
  let response;
  try {
    response = adapter.decodeResponse(parsed, decodeContext);
  } catch (error) {
    return { kind: 'failed', error: toGatewayError(error) };
  }
  const usage = finalizeUsage(response.usage, input.request, response.content);
  const body = passThrough ? text : input.codec.encodeResponse({ ...response, usage }, encodeContext);
  const replaced = input.answerHook
    ? await input.answerHook.jsonBody(passThrough ? parsed : body, passThrough)
    : undefined;
  sendJsonReply(reply, replaced ?? body, input.requestId);
  return {
    kind: 'served',
    status: 'completed',
    httpStatus: 200,
    usage,
    ttfbMs: Date.now() - input.startedAt,
    upstreamRequestId: upstreamRequestIdOf(answer.headers),
  };
}

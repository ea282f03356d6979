/**
 * The console's "test" button: one tiny non-streamed request ("Say OK", at most 16 output tokens)
 * sent through one channel with its own protocol adapter, outside routing, limits, health and
 * billing — so an operator can check a credential and base URL before traffic depends on them.
 */
import type { Dispatcher } from 'undici';
import { toGatewayError } from '../canonical/gateway-error.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { finishUpstreamCall, upstreamTargetOf } from '../exchange/channel-upstream-call.ts';
import { upstreamModelFor, type Channel } from '../routing/channel.ts';
import { adapterFor, type UpstreamAdapters, type UpstreamAuthorizer } from '../upstream/upstream-adapter.ts';
import { sendUpstream } from '../upstream/upstream-transport.ts';

/** Output tokens the test asks for at most. */
export const CHANNEL_TEST_MAX_TOKENS = 16;

/** What the console shows after a test. */
export interface ChannelTestResult {
  readonly ok: boolean;
  /** Client-facing model name tested. */
  readonly model: string;
  /** Wall time of the whole call, ms. */
  readonly latencyMs: number;
  /** Upstream HTTP status; 0 when no answer arrived (connection refused, timeout). */
  readonly status: number;
  /** The generated text, on success (at most 200 characters). */
  readonly text?: string;
  /** Why it failed: the gateway's error kind and the upstream's message (never the credential). */
  readonly error?: { readonly kind: string; readonly message: string };
}

/**
 * Sends the test request for `model` (default: the channel's first model) through `channel`.
 * Never throws: transport failures, upstream errors and undecodable answers become `ok: false`.
 * `timeoutMs` caps the wait (default: the channel's own timeout, at most 30 000 ms).
 */
export async function testChannel(
  channel: Channel,
  model: string | undefined,
  deps: {
    readonly dispatcher: Dispatcher;
    readonly adapters: UpstreamAdapters;
    /** Adds cloud channels' credentials (ExchangeDeps.upstreamAuth). */
    readonly upstreamAuth?: UpstreamAuthorizer;
    readonly now?: () => number;
  },
): Promise<ChannelTestResult> {
  const now = deps.now ?? Date.now;
  const started = now();
  const clientModel = model ?? [...channel.models][0] ?? '';
  const adapter = adapterFor(deps.adapters, channel.adapterKey);
  const request: CanonicalRequest = {
    clientFormat: 'openai-chat',
    model: clientModel,
    stream: false,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Say OK.' }] }],
    maxOutputTokens: CHANNEL_TEST_MAX_TOKENS,
  };
  const upstreamModel = upstreamModelFor(channel, clientModel);
  let status = 0;
  try {
    const built = adapter.buildRequest(request, upstreamTargetOf(channel, clientModel));
    const call = await finishUpstreamCall(channel, built.request, deps.upstreamAuth);
    const answer = await sendUpstream(deps.dispatcher, call, {
      timeoutMs: Math.min(channel.timeoutMs, 30_000),
    });
    status = answer.status;
    const body = await answer.body.text();
    if (status < 200 || status >= 300) throw adapter.classifyError(status, body, answer.headers);
    const response = adapter.decodeResponse(JSON.parse(body.trim()) as unknown, {
      provider: channel.provider,
      upstreamModel,
      request,
    });
    const text = response.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    return { ok: true, model: clientModel, latencyMs: now() - started, status, text: text.slice(0, 200) };
  } catch (error) {
    const failure =
      error instanceof SyntaxError
        ? { kind: 'upstream-malformed', message: 'Upstream answered with a body that is not JSON' }
        : gatewayFailure(error);
    return { ok: false, model: clientModel, latencyMs: now() - started, status, error: failure };
  }
}

function gatewayFailure(error: unknown): { kind: string; message: string } {
  const gatewayError = toGatewayError(error);
  return { kind: gatewayError.kind, message: gatewayError.message };
}

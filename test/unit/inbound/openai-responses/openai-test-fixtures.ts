/**
 * Shared fixtures of the OpenAI codec tests: canonical responses, an EncodeContext builder and a
 * one-shot loopback HTTP server that answers every request with fixed SSE text (for the official
 * SDKs' stream helpers).
 */
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import type { EncodeContext } from '../../../../gateway/inbound/inbound-codec.ts';
import { startCannedSseServer } from '../../../support/canned-sse-server.ts';

/** `createdAt` of every test context (unix seconds). */
export const CREATED_AT = 1755500000;

/** An EncodeContext for model `gw-model` with the given raw body. */
export function makeContext(
  rawRequest: Record<string, unknown> = {},
  request?: Partial<CanonicalRequest>,
): EncodeContext {
  const canonical: CanonicalRequest = {
    clientFormat: 'openai-responses',
    model: 'gw-model',
    stream: false,
    messages: [],
    ...request,
  };
  return { requestId: 'req_test', model: 'gw-model', request: canonical, rawRequest, createdAt: CREATED_AT };
}

const usage = makeUsage({ inputTotal: 9, cacheRead: 4, outputTotal: 2 });

/** "Hello!", stop; 9 input (4 cached) / 2 output tokens. */
export const textResponse: CanonicalResponse = {
  id: 'up_1',
  model: 'upstream-model',
  content: [{ type: 'text', text: 'Hello!' }],
  finishReason: finishReason('stop', 'stop'),
  usage,
};

/** Reasoning (signed) + text + one tool call; 120 input (64 cached, 8 written) / 58 output (40 reasoning) tokens. */
export const toolResponse: CanonicalResponse = {
  id: 'up_2',
  model: 'upstream-model',
  content: [
    { type: 'reasoning', text: 'Need the weather.', signature: 'sig-1' },
    { type: 'text', text: 'Checking.' },
    { type: 'tool-call', id: 'call_7Hk2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
  ],
  finishReason: finishReason('tool-calls', 'tool_use'),
  usage: makeUsage({ inputTotal: 120, cacheRead: 64, cacheWrite: 8, outputTotal: 58, reasoning: 40 }),
};

/** Text cut by the output token cap. */
export const lengthResponse: CanonicalResponse = {
  id: 'up_3',
  model: 'upstream-model',
  content: [{ type: 'text', text: 'Once upon a' }],
  finishReason: finishReason('length', 'max_tokens'),
  usage: makeUsage({ inputTotal: 5, outputTotal: 16 }),
};

/** A loopback server answering every request with `sse` as text/event-stream; records request bodies. */
export interface SseServer {
  readonly baseURL: string;
  readonly bodies: unknown[];
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1, port 0; `baseURL` includes `/v1` like the OpenAI SDK expects. */
export async function serveSse(sse: string): Promise<SseServer> {
  const server = await startCannedSseServer(sse);
  return { baseURL: `${server.origin}/v1`, bodies: server.bodies, close: () => server.close() };
}

/** Splits SSE text into frames (without the trailing blank line). */
export function sseFrames(text: string): string[] {
  return text.split('\n\n').filter((f) => f !== '');
}

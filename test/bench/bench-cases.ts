/**
 * The load benchmark's cases: one small prompt ("Hello there", max_tokens 64) sent either straight
 * to the mock upstream or through the gateway, in Chat Completions and Anthropic Messages form,
 * non-streamed and streamed. Each gateway case names the direct case it is compared with and the
 * path the gateway must take (checked against the gateway's outcome tallies).
 */
import { BENCH_KEY, BENCH_MODEL } from './bench-server-contract.ts';

/** Path prefix selecting the mock's behaviour: no latency, no delay per stream chunk. */
export const MOCK_BEHAVIOUR_PREFIX = '/b/latency=0,chunk=0';

/** One benchmark case. */
export interface BenchCase {
  /** Short stable id, e.g. `chat-gateway-stream`. */
  readonly id: string;
  /** Human label for the table. */
  readonly label: string;
  readonly target: 'mock' | 'gateway';
  /** Request path on the target. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON request body. */
  readonly body: string;
  readonly stream: boolean;
  /** Gateway cases: id of the direct case whose latency is subtracted. */
  readonly baseline?: string;
  /** Gateway cases: the path every outcome must report. */
  readonly gatewayPath?: 'pass-through' | 'translated';
  /** Substrings a correct answer body contains (checked once per case before the load). */
  readonly expectInBody: ReadonlyArray<string>;
}

const userTurn = [{ role: 'user', content: 'Hello there' }];

const chatBody = (stream: boolean): string =>
  JSON.stringify({ model: BENCH_MODEL, messages: userTurn, max_tokens: 64, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });

const anthropicBody = (stream: boolean): string => JSON.stringify({ model: BENCH_MODEL, messages: userTurn, max_tokens: 64, ...(stream ? { stream: true } : {}) });

const chatHeaders = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` };
const anthropicHeaders = { 'content-type': 'application/json', 'x-api-key': BENCH_KEY, 'anthropic-version': '2023-06-01' };

const CHAT_JSON = ['"object":"chat.completion"', 'Mock reply to: Hello there'];
const CHAT_SSE = ['"object":"chat.completion.chunk"', '"usage":{', 'data: [DONE]'];
const ANTHROPIC_JSON = ['"type":"message"', 'Mock reply to: Hello there', '"output_tokens":'];
const ANTHROPIC_SSE = ['event: message_start', 'event: content_block_delta', 'event: message_stop'];

/** The cases in run order: each direct case precedes the gateway cases compared with it. */
export const BENCH_CASES: ReadonlyArray<BenchCase> = [
  { id: 'chat-direct', label: 'direct: chat, non-streamed', target: 'mock', path: `${MOCK_BEHAVIOUR_PREFIX}/v1/chat/completions`, headers: chatHeaders, body: chatBody(false), stream: false, expectInBody: CHAT_JSON },
  { id: 'chat-gateway', label: 'gateway: chat→chat pass-through, non-streamed', target: 'gateway', path: '/v1/chat/completions', headers: chatHeaders, body: chatBody(false), stream: false, baseline: 'chat-direct', gatewayPath: 'pass-through', expectInBody: CHAT_JSON },
  { id: 'chat-direct-stream', label: 'direct: chat, streamed', target: 'mock', path: `${MOCK_BEHAVIOUR_PREFIX}/v1/chat/completions`, headers: chatHeaders, body: chatBody(true), stream: true, expectInBody: CHAT_SSE },
  { id: 'chat-gateway-stream', label: 'gateway: chat→chat pass-through, streamed', target: 'gateway', path: '/v1/chat/completions', headers: chatHeaders, body: chatBody(true), stream: true, baseline: 'chat-direct-stream', gatewayPath: 'pass-through', expectInBody: CHAT_SSE },
  { id: 'anthropic-direct', label: 'direct: anthropic, non-streamed', target: 'mock', path: `${MOCK_BEHAVIOUR_PREFIX}/v1/messages`, headers: anthropicHeaders, body: anthropicBody(false), stream: false, expectInBody: ANTHROPIC_JSON },
  { id: 'anthropic-gateway', label: 'gateway: anthropic→chat translated, non-streamed', target: 'gateway', path: '/v1/messages', headers: anthropicHeaders, body: anthropicBody(false), stream: false, baseline: 'anthropic-direct', gatewayPath: 'translated', expectInBody: ANTHROPIC_JSON },
  { id: 'anthropic-direct-stream', label: 'direct: anthropic, streamed', target: 'mock', path: `${MOCK_BEHAVIOUR_PREFIX}/v1/messages`, headers: anthropicHeaders, body: anthropicBody(true), stream: true, expectInBody: ANTHROPIC_SSE },
  { id: 'anthropic-gateway-stream', label: 'gateway: anthropic→chat translated, streamed', target: 'gateway', path: '/v1/messages', headers: anthropicHeaders, body: anthropicBody(true), stream: true, baseline: 'anthropic-direct-stream', gatewayPath: 'translated', expectInBody: ANTHROPIC_SSE },
];

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

type CaseShape = Pick<BenchCase, 'headers' | 'body' | 'stream' | 'expectInBody'>;

const chat = (stream: boolean): CaseShape => ({ headers: chatHeaders, body: chatBody(stream), stream, expectInBody: stream ? CHAT_SSE : CHAT_JSON });
const anthropic = (stream: boolean): CaseShape => ({ headers: anthropicHeaders, body: anthropicBody(stream), stream, expectInBody: stream ? ANTHROPIC_SSE : ANTHROPIC_JSON });
const direct = (id: string, label: string, path: string, shape: CaseShape): BenchCase => ({ id, label, target: 'mock', path: `${MOCK_BEHAVIOUR_PREFIX}${path}`, ...shape });
const viaGateway = (id: string, label: string, path: string, baseline: string, gatewayPath: 'pass-through' | 'translated', shape: CaseShape): BenchCase => ({ id, label, target: 'gateway', path, baseline, gatewayPath, ...shape });

/** The cases in run order: each direct case precedes the gateway case compared with it. */
export const BENCH_CASES: ReadonlyArray<BenchCase> = [
  direct('chat-direct', 'direct: chat, non-streamed', '/v1/chat/completions', chat(false)),
  viaGateway('chat-gateway', 'gateway: chat→chat pass-through, non-streamed', '/v1/chat/completions', 'chat-direct', 'pass-through', chat(false)),
  direct('chat-direct-stream', 'direct: chat, streamed', '/v1/chat/completions', chat(true)),
  viaGateway('chat-gateway-stream', 'gateway: chat→chat pass-through, streamed', '/v1/chat/completions', 'chat-direct-stream', 'pass-through', chat(true)),
  direct('anthropic-direct', 'direct: anthropic, non-streamed', '/v1/messages', anthropic(false)),
  viaGateway('anthropic-gateway', 'gateway: anthropic→chat translated, non-streamed', '/v1/messages', 'anthropic-direct', 'translated', anthropic(false)),
  direct('anthropic-direct-stream', 'direct: anthropic, streamed', '/v1/messages', anthropic(true)),
  viaGateway('anthropic-gateway-stream', 'gateway: anthropic→chat translated, streamed', '/v1/messages', 'anthropic-direct-stream', 'translated', anthropic(true)),
];

/**
 * The load benchmark's cases: one small prompt ("Hello there", max_tokens 64) in four shapes —
 * Chat Completions and Anthropic Messages form, non-streamed and streamed — each sent to four
 * targets: straight to the mock upstream (`mock`, the direct baseline), through the featureless
 * floor proxy (`floor`), through the gateway alone (`gateway`) and through the embedded `npm start`
 * server (`embedded`). Tollgate cases name the path the gateway must take (Chat is passed
 * through, Anthropic is translated to the mock channel's Chat protocol).
 */
import { BENCH_KEY, BENCH_MODEL } from './bench-server-contract.ts';

/** Path prefix selecting the mock's behaviour: no latency, no delay per stream chunk. */
export const MOCK_BEHAVIOUR_PREFIX = '/b/latency=0,chunk=0';

/** Where a case's requests go: the mock directly, the floor proxy, the gateway alone, the embedded server. */
export type BenchTarget = 'mock' | 'floor' | 'gateway' | 'embedded';

/** The targets in run order, and their names in tables. */
export const BENCH_TARGETS: ReadonlyArray<{ readonly target: BenchTarget; readonly name: string }> = [
  { target: 'mock', name: 'direct' },
  { target: 'floor', name: 'floor' },
  { target: 'gateway', name: 'gateway' },
  { target: 'embedded', name: 'embedded' },
];

/** Request shape ids. */
export type BenchShapeId = 'chat' | 'chat-stream' | 'anthropic' | 'anthropic-stream';

/** One request shape: what the client sends and what a correct answer holds. */
export interface BenchShape {
  readonly id: BenchShapeId;
  /** Human label, e.g. `chat→chat pass-through, streamed`. */
  readonly label: string;
  /** Client path on the floor and on Tollgate (the mock's is MOCK_BEHAVIOUR_PREFIX + this). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON request body. */
  readonly body: string;
  readonly stream: boolean;
  /** The path every Tollgate outcome must report. */
  readonly gatewayPath: 'pass-through' | 'translated';
  /** Substrings a correct answer body contains (checked once per case before the load). */
  readonly expectInBody: ReadonlyArray<string>;
}

/** One benchmark case: a shape sent to a target. */
export interface BenchCase {
  /** Short stable id: `<family>-<direct|floor|gateway|embedded>[-stream]`, e.g. `chat-gateway-stream`. */
  readonly id: string;
  /** Human label for the table. */
  readonly label: string;
  readonly target: BenchTarget;
  readonly shape: BenchShapeId;
  /** Request path on the target. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON request body. */
  readonly body: string;
  readonly stream: boolean;
  /** Non-mock cases: id of the direct case whose latency is subtracted. */
  readonly baseline?: string;
  /** Tollgate cases: the path every outcome must report. */
  readonly gatewayPath?: 'pass-through' | 'translated';
  /** Substrings a correct answer body contains (checked once per case before the load). */
  readonly expectInBody: ReadonlyArray<string>;
}

const userTurn = (text: string) => [{ role: 'user', content: text }];

/** Chat Completions body; `prompt` is the user turn (default "Hello there"). */
export const chatBody = (stream: boolean, prompt = 'Hello there'): string =>
  JSON.stringify({
    model: BENCH_MODEL,
    messages: userTurn(prompt),
    max_tokens: 64,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

const anthropicBody = (stream: boolean): string =>
  JSON.stringify({
    model: BENCH_MODEL,
    messages: userTurn('Hello there'),
    max_tokens: 64,
    ...(stream ? { stream: true } : {}),
  });

/** Chat Completions request headers with the bench key. */
export const chatHeaders: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  authorization: `Bearer ${BENCH_KEY}`,
};
const anthropicHeaders = {
  'content-type': 'application/json',
  'x-api-key': BENCH_KEY,
  'anthropic-version': '2023-06-01',
};

const CHAT_JSON = ['"object":"chat.completion"', 'Mock reply to: Hello there'];
const CHAT_SSE = ['"object":"chat.completion.chunk"', '"usage":{', 'data: [DONE]'];
const ANTHROPIC_JSON = ['"type":"message"', 'Mock reply to: Hello there', '"output_tokens":'];
const ANTHROPIC_SSE = ['event: message_start', 'event: content_block_delta', 'event: message_stop'];

const streamed = (stream: boolean): string => (stream ? 'streamed' : 'non-streamed');

/** The four shapes in run order. */
export const BENCH_SHAPES: ReadonlyArray<BenchShape> = [false, true].flatMap((stream): BenchShape[] => [
  {
    id: stream ? 'chat-stream' : 'chat',
    label: `chat→chat pass-through, ${streamed(stream)}`,
    path: '/v1/chat/completions',
    headers: chatHeaders,
    body: chatBody(stream),
    stream,
    gatewayPath: 'pass-through',
    expectInBody: stream ? CHAT_SSE : CHAT_JSON,
  },
  {
    id: stream ? 'anthropic-stream' : 'anthropic',
    label: `anthropic→chat translated, ${streamed(stream)}`,
    path: '/v1/messages',
    headers: anthropicHeaders,
    body: anthropicBody(stream),
    stream,
    gatewayPath: 'translated',
    expectInBody: stream ? ANTHROPIC_SSE : ANTHROPIC_JSON,
  },
]);

/** The case id of `shape` sent to the target named `targetName` (`chat` + `gateway` → `chat-gateway`). */
export function benchCaseId(shape: BenchShapeId, targetName: string): string {
  const [family, stream] = shape.split('-') as [string, string | undefined];
  return `${family}-${targetName}${stream ? '-stream' : ''}`;
}

/** The case sending `shape` to `target`. */
export function benchCase(shape: BenchShape, target: BenchTarget): BenchCase {
  const name = BENCH_TARGETS.find((t) => t.target === target)?.name ?? target;
  const common = {
    id: benchCaseId(shape.id, name),
    target,
    shape: shape.id,
    headers: shape.headers,
    body: shape.body,
    stream: shape.stream,
    expectInBody: shape.expectInBody,
  };
  if (target === 'mock')
    return {
      ...common,
      label: shape.label.replace(/→chat (pass-through|translated)/, ''),
      path: `${MOCK_BEHAVIOUR_PREFIX}${shape.path}`,
    };
  const baseline = benchCaseId(shape.id, 'direct');
  if (target === 'floor')
    return { ...common, label: shape.label.replace(/→chat (pass-through|translated)/, ''), path: shape.path, baseline };
  return { ...common, label: shape.label, path: shape.path, baseline, gatewayPath: shape.gatewayPath };
}

/** Every case in run order: per shape, direct, floor, gateway, embedded (each after its baseline). */
export const BENCH_CASES: ReadonlyArray<BenchCase> = BENCH_SHAPES.flatMap((shape) =>
  BENCH_TARGETS.map(({ target }) => benchCase(shape, target)),
);

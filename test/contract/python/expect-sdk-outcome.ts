/**
 * Assertions for the Python SDK contract cases: what each SDK must have parsed (text, tool calls,
 * usage, stop reason, error class) in its own shape, and what the upstream must have received
 * when the point of a case is translating the client's request (tool round trips, reasoning
 * replays, output schemas, token counts). Expected values come from the replayed fixtures'
 * expectation files, in canonical units.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { expect } from 'vitest';
import type { WireFormat } from '../../../gateway/canonical/formats.ts';
import type { PythonCaseOutcome, PythonSdk } from './python-case-runner.ts';
import {
  readUpstreamOutputSchema,
  readUpstreamReplayedReasoning,
  readUpstreamToolExchange,
  withLowerCaseTypes,
} from './read-upstream-request.ts';

/** A fixture's expectation file (test/fixtures/upstream/<protocol>/<scenario>.expect.json). */
export interface FixtureExpectation {
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: Array<{ name: string; arguments: unknown }>;
  readonly finish: string;
  readonly usage: { inputTotal: number; cacheRead: number; cacheWrite: number; outputTotal: number; reasoning: number };
}

/** What a check may look at besides the SDK's outcome. */
export interface CaseContext {
  readonly protocol: WireFormat;
  readonly tag: string;
  /** The expectation of the case's scenario on this upstream (undefined for error scenarios). */
  readonly expected: FixtureExpectation | undefined;
  /** The expectation of the follow-up request's scenario (`text`). */
  readonly followup: FixtureExpectation | undefined;
  /** The signature (Anthropic) or encrypted content (Responses) this upstream's reasoning fixture carries, if any. */
  readonly fixtureReasoningToken: string | undefined;
  /** Bodies the fixture upstream received for this case (they carry its tag). */
  readonly upstreamBodies: () => string[];
  /** Bodies the count-only upstream received for this case. */
  readonly countBodies: () => string[];
  /** Whether this upstream's channel answers token counts itself (else the gateway estimates). */
  readonly upstreamCounts: boolean;
}

/** The count the count-only upstream answers. */
export const UPSTREAM_TOKEN_COUNT = 4321;

// Must equal sdk_case_runner.py: CaseJob.prompt(), CaseJob.tool_result(), COUNT_PADDING, WEATHER_REPORT_SCHEMA.
const promptOf = (tag: string): string => `What is the weather in Oslo? (ref ${tag})`;
const toolResultOf = (tag: string): string => `12 degrees and cloudy (ref ${tag})`;
const followupPromptOf = (tag: string): string => `Thanks! And tomorrow? (ref ${tag})`;
const COUNT_PADDING = ' Please answer in detail, mentioning wind, rain and temperature for every hour of the day.';
/** The JSON schema the structured-output cases ask for. */
export const WEATHER_REPORT_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature_c: { type: 'number' } },
  required: ['city', 'temperature_c'],
  additionalProperties: false,
};

/** JSON printed by a case script. */
export type Result = Record<string, any>;
type Usage = Record<string, number | null>;

/** The values the SDK parsed; fails the test with the SDK's error when it raised one. */
export function resultOf(outcome: PythonCaseOutcome): Result {
  if (!outcome.ok)
    throw new Error(
      `the SDK raised ${outcome.error.class} (status ${outcome.error.status}): ${outcome.error.message}\n${outcome.error.traceback ?? ''}`,
    );
  return outcome.result;
}

/** The expectation, which a case with a replayed scenario always has. */
export function need(expectation: FixtureExpectation | undefined): FixtureExpectation {
  if (!expectation) throw new Error('case has no fixture expectation');
  return expectation;
}

/** The shape an SDK call answers in: Chat Completions, Responses, Anthropic Messages, Gemini. */
export type AnswerShape = 'chat' | 'responses' | 'messages' | 'genai';

const FINISH: Record<AnswerShape, Record<string, string>> = {
  chat: { stop: 'stop', 'tool-calls': 'tool_calls', length: 'length' },
  responses: { stop: 'completed', 'tool-calls': 'completed', length: 'incomplete' },
  messages: { stop: 'end_turn', 'tool-calls': 'tool_use', length: 'max_tokens' },
  genai: { stop: 'STOP', 'tool-calls': 'STOP', length: 'MAX_TOKENS' },
};

/** Usage in the shape each SDK reports it, from the canonical expectation. */
function expectUsage(shape: AnswerShape, usage: Usage, e: FixtureExpectation['usage']): void {
  const zeroIfNull = (n: number | null | undefined): number => n ?? 0;
  if (shape === 'messages') {
    expect({
      input: zeroIfNull(usage.input) + zeroIfNull(usage.cacheRead) + zeroIfNull(usage.cacheWrite),
      cacheRead: zeroIfNull(usage.cacheRead),
      cacheWrite: zeroIfNull(usage.cacheWrite),
      output: usage.output,
    }).toEqual({
      input: e.inputTotal,
      cacheRead: e.cacheRead,
      cacheWrite: e.cacheWrite,
      output: e.outputTotal,
    });
    return;
  }
  if (shape === 'genai') {
    expect({
      input: usage.input,
      cacheRead: zeroIfNull(usage.cacheRead),
      output: zeroIfNull(usage.output) + zeroIfNull(usage.reasoning),
      reasoning: zeroIfNull(usage.reasoning),
    }).toEqual({
      input: e.inputTotal,
      cacheRead: e.cacheRead,
      output: e.outputTotal,
      reasoning: e.reasoning,
    });
    return;
  }
  expect({
    input: usage.input,
    output: usage.output,
    total: usage.total,
    cacheRead: zeroIfNull(usage.cacheRead),
    reasoning: zeroIfNull(usage.reasoning),
  }).toEqual({
    input: e.inputTotal,
    output: e.outputTotal,
    total: e.inputTotal + e.outputTotal,
    cacheRead: e.cacheRead,
    reasoning: e.reasoning,
  });
}

/** Text, reasoning, tool calls (names and parsed arguments; ids present), finish and usage. */
export function expectAnswer(
  shape: AnswerShape,
  result: Result,
  e: FixtureExpectation,
  options: { reasoning?: boolean } = {},
): void {
  expect(result.text).toBe(e.text);
  if (options.reasoning) expect(result.reasoning).toBe(e.reasoning);
  expect((result.toolCalls as Result[]).map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(
    e.toolCalls,
  );
  if (shape !== 'genai') for (const call of result.toolCalls as Result[]) expect(call.id).toMatch(/\S/);
  expect(shape === 'responses' ? result.status : result.finish).toBe(FINISH[shape][e.finish] ?? `unmapped:${e.finish}`);
  expectUsage(shape, result.usage as Usage, e.usage);
}

/** The second request of a round trip, as the upstream got it: the call replayed, the result tied to it. */
export function expectToolRoundTrip(context: CaseContext): void {
  const resultText = toolResultOf(context.tag);
  const bodies = context.upstreamBodies();
  expect(bodies, 'upstream requests of this case (the call, then the result)').toHaveLength(2);
  const second = bodies.find((body) => body.includes(resultText));
  expect(second, 'an upstream request carrying the tool result').toBeDefined();
  const exchange = readUpstreamToolExchange(context.protocol, JSON.parse(second ?? '{}') as Record<string, unknown>);
  expect({ name: exchange.callName, arguments: exchange.callArguments }).toEqual({
    name: 'get_weather',
    arguments: { city: 'Oslo' },
  });
  expect(exchange.resultText).toContain(resultText);
  if (context.protocol === 'gemini') {
    expect(exchange.resultName).toBe('get_weather');
    if (exchange.callId !== undefined && exchange.resultCallId !== undefined)
      expect(exchange.resultCallId).toBe(exchange.callId);
  } else {
    expect(exchange.callId).toMatch(/\S/);
    expect(exchange.resultCallId).toBe(exchange.callId);
  }
  // Anthropic tool_use ids must match ^[a-zA-Z0-9_-]+$ (https://docs.anthropic.com/en/api/messages).
  if (context.protocol === 'anthropic-messages') expect(exchange.callId).toMatch(/^[a-zA-Z0-9_-]+$/);
}

/**
 * A reasoning answer replayed by the client reaches the upstream that minted it with its text and
 * the provider's own token, byte for byte (Anthropic verifies thinking signatures:
 * https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking; Responses reasoning items
 * carry `encrypted_content`: https://platform.openai.com/docs/guides/reasoning). Whatever the
 * gateway wraps such tokens in on the way to the client must be unwrapped on the way back.
 */
export function expectReasoningReplay(shape: AnswerShape, result: Result, context: CaseContext): void {
  const e = need(context.expected);
  expect({ text: result.first.text, reasoning: result.first.reasoning }).toEqual({
    text: e.text,
    reasoning: e.reasoning,
  });
  expectAnswer(shape, result.answer, need(context.followup));
  const bodies = context.upstreamBodies();
  expect(bodies).toHaveLength(2);
  const replay = bodies.find((body) => body.includes(followupPromptOf(context.tag)));
  expect(replay, 'the upstream request replaying the answer').toBeDefined();
  const replayed = readUpstreamReplayedReasoning(
    context.protocol,
    JSON.parse(replay ?? '{}') as Record<string, unknown>,
  );
  if (context.fixtureReasoningToken !== undefined) {
    expect(replayed.map((r) => r.signature)).toEqual([context.fixtureReasoningToken]);
  }
  if (context.protocol === 'anthropic-messages') expect(replayed.map((r) => r.text)).toEqual([e.reasoning]);
}

/** The schema as the upstream got it, in that protocol's field. */
export function expectUpstreamSchema(
  context: CaseContext,
  expected: unknown,
  compare: 'equal' | 'lower-case-types' = 'equal',
): void {
  const bodies = context.upstreamBodies();
  expect(bodies).toHaveLength(1);
  const schema = readUpstreamOutputSchema(context.protocol, JSON.parse(bodies[0] ?? '{}') as Record<string, unknown>);
  if (compare === 'equal') expect(schema).toEqual(expected);
  else expect(withLowerCaseTypes(schema)).toMatchObject(expected as Record<string, unknown>);
}

/**
 * Token counts: the upstream's own count where its channel has a count endpoint, else the local
 * o200k_base estimate, which must grow by exactly the padding's tokens.
 */
export function expectCounts(result: Result, context: CaseContext): void {
  if (context.upstreamCounts) {
    expect([result.short, result.padded]).toEqual([UPSTREAM_TOKEN_COUNT, UPSTREAM_TOKEN_COUNT]);
    const bodies = context.countBodies();
    expect(bodies).toHaveLength(2);
    expect(bodies.filter((body) => body.includes(COUNT_PADDING.trim()))).toHaveLength(1);
    return;
  }
  const prompt = promptOf(context.tag);
  expect(result.short).toBeGreaterThan(encode(prompt).length);
  expect(result.padded - result.short).toBe(encode(prompt + COUNT_PADDING).length - encode(prompt).length);
}

/** The error an SDK must raise: its class, a class it must inherit from, the HTTP status (and Gemini's status name). */
export interface ExpectedError {
  readonly class: string;
  readonly base: string;
  readonly status: number;
  readonly statusText?: string;
}

/** The SDK raised `expected`. */
export function expectSdkError(outcome: PythonCaseOutcome, expected: ExpectedError): void {
  if (outcome.ok) throw new Error(`expected ${expected.class}, the SDK returned ${JSON.stringify(outcome.result)}`);
  expect({
    class: outcome.error.class,
    status: outcome.error.status,
    isBase: outcome.error.bases?.includes(expected.base),
  }).toEqual({ class: expected.class, status: expected.status, isBase: true });
  if (expected.statusText) expect(outcome.error.statusText).toBe(expected.statusText);
}

/**
 * A request with a part only the client's own API can carry: served by passing it through to an
 * upstream of that API, refused with a 400 naming the part (`path`) by any other, before anything
 * is sent upstream.
 */
export function expectServedOnlyByOwnProtocol(
  shape: 'chat' | 'responses',
  clientProtocol: WireFormat,
  path: string,
  outcome: PythonCaseOutcome,
  context: CaseContext,
): void {
  if (context.protocol === clientProtocol) {
    expectAnswer(shape, resultOf(outcome), need(context.expected));
    return;
  }
  expectSdkError(outcome, { class: 'BadRequestError', base: 'APIStatusError', status: 400 });
  expect(outcome.ok ? '' : outcome.error.message).toContain(path);
  expect(context.upstreamBodies()).toHaveLength(0);
}

/** Per SDK: the errors for a bad key (401), an unknown model (404) and an upstream's 429. */
export const ERRORS: Record<
  PythonSdk,
  { badKey: ExpectedError; unknownModel: ExpectedError; rateLimited: ExpectedError }
> = {
  openai: {
    badKey: { class: 'AuthenticationError', base: 'APIStatusError', status: 401 },
    unknownModel: { class: 'NotFoundError', base: 'APIStatusError', status: 404 },
    rateLimited: { class: 'RateLimitError', base: 'APIStatusError', status: 429 },
  },
  anthropic: {
    badKey: { class: 'AuthenticationError', base: 'APIStatusError', status: 401 },
    unknownModel: { class: 'NotFoundError', base: 'APIStatusError', status: 404 },
    rateLimited: { class: 'RateLimitError', base: 'APIStatusError', status: 429 },
  },
  genai: {
    badKey: { class: 'ClientError', base: 'APIError', status: 401, statusText: 'UNAUTHENTICATED' },
    unknownModel: { class: 'ClientError', base: 'APIError', status: 404, statusText: 'NOT_FOUND' },
    rateLimited: { class: 'ClientError', base: 'APIError', status: 429, statusText: 'RESOURCE_EXHAUSTED' },
  },
};

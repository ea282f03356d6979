/**
 * The Python SDK contract cases. A case names a function in one of the case scripts, the fixture
 * scenario its model maps to on every upstream, and its check (expect-sdk-outcome.ts).
 */
import { expect } from 'vitest';
import type { PythonCaseOutcome, PythonSdk } from './python-case-runner.ts';
import {
  ERRORS,
  expectAnswer,
  expectCounts,
  expectReasoningReplay,
  expectSdkError,
  expectServedOnlyByOwnProtocol,
  expectToolRoundTrip,
  expectUpstreamSchema,
  need,
  resultOf,
  WEATHER_REPORT_SCHEMA,
  type CaseContext,
} from './expect-sdk-outcome.ts';

/** The fixture scenario a case's model maps to; `count` is served by the count-only upstream. */
export type Scenario = 'text' | 'tool-call' | 'reasoning' | 'fail-429' | 'count';

/** One contract case. */
export interface PythonSdkCase {
  readonly sdk: PythonSdk;
  readonly name: string;
  readonly scenario: Scenario;
  /** Scenario of the second request in round-trip cases. */
  readonly followup?: Scenario;
  readonly check: (outcome: PythonCaseOutcome, context: CaseContext) => void;
}

/** The three error cases of one SDK (`prefix` is `chat-`/`responses-` for openai, '' otherwise). */
function errorCases(sdk: PythonSdk, prefix: string): PythonSdkCase[] {
  const errors = ERRORS[sdk];
  return [
    {
      sdk,
      name: `${prefix}error-bad-key`,
      scenario: 'text',
      check: (o, c) => (expectSdkError(o, errors.badKey), expect(c.upstreamBodies()).toHaveLength(0)),
    },
    {
      sdk,
      name: `${prefix}error-unknown-model`,
      scenario: 'text',
      check: (o, c) => (expectSdkError(o, errors.unknownModel), expect(c.upstreamBodies()).toHaveLength(0)),
    },
    // The upstream's 429 (in its own protocol's error body) must reach the client as its SDK's rate-limit error.
    {
      sdk,
      name: `${prefix}error-upstream`,
      scenario: 'fail-429',
      check: (o, c) => (expectSdkError(o, errors.rateLimited), expect(c.upstreamBodies()).toHaveLength(1)),
    },
  ];
}

const OPENAI_CASES: PythonSdkCase[] = [
  {
    sdk: 'openai',
    name: 'chat',
    scenario: 'text',
    check: (o, c) => expectAnswer('chat', resultOf(o), need(c.expected)),
  },
  {
    sdk: 'openai',
    name: 'chat-stream',
    scenario: 'text',
    check: (o, c) => {
      const result = resultOf(o);
      expectAnswer('chat', result, need(c.expected));
      expect(result.contentDeltas).toBeGreaterThan(0);
    },
  },
  {
    sdk: 'openai',
    name: 'chat-stream-without-usage',
    scenario: 'text',
    check: (o, c) => {
      const result = resultOf(o);
      expect({
        text: result.text,
        finish: result.finish,
        usage: result.usage,
        usageChunks: result.usageChunks,
      }).toEqual({ text: need(c.expected).text, finish: 'stop', usage: null, usageChunks: 0 });
    },
  },
  {
    sdk: 'openai',
    name: 'chat-stream-tools',
    scenario: 'tool-call',
    check: (o, c) => expectAnswer('chat', resultOf(o), need(c.expected)),
  },
  {
    sdk: 'openai',
    name: 'chat-tools',
    scenario: 'tool-call',
    followup: 'text',
    check: (o, c) => {
      const result = resultOf(o);
      expectAnswer('chat', result.call, need(c.expected));
      expectAnswer('chat', result.answer, need(c.followup));
      expectToolRoundTrip(c);
    },
  },
  {
    sdk: 'openai',
    name: 'chat-structured',
    scenario: 'text',
    check: (o, c) => (
      expectAnswer('chat', resultOf(o), need(c.expected)),
      expectUpstreamSchema(c, WEATHER_REPORT_SCHEMA)
    ),
  },
  {
    sdk: 'openai',
    name: 'chat-logprobs',
    scenario: 'text',
    check: (o, c) => expectServedOnlyByOwnProtocol('chat', 'openai-chat', 'logprobs', o, c),
  },
  ...errorCases('openai', 'chat-'),
  {
    sdk: 'openai',
    name: 'responses',
    scenario: 'text',
    check: (o, c) => expectAnswer('responses', resultOf(o), need(c.expected)),
  },
  {
    sdk: 'openai',
    name: 'responses-stream',
    scenario: 'text',
    check: (o, c) => {
      const result = resultOf(o);
      expectAnswer('responses', result, need(c.expected));
      expect({ deltaText: result.deltaText, firstEvent: result.firstEvent, lastEvent: result.lastEvent }).toEqual({
        deltaText: need(c.expected).text,
        firstEvent: 'response.created',
        lastEvent: 'response.completed',
      });
    },
  },
  {
    sdk: 'openai',
    name: 'responses-stream-tools',
    scenario: 'tool-call',
    check: (o, c) => {
      const result = resultOf(o);
      expectAnswer('responses', result, need(c.expected));
      expect(result.argumentsDone).toEqual(need(c.expected).toolCalls.map((call) => call.arguments));
    },
  },
  {
    sdk: 'openai',
    name: 'responses-reasoning-replay',
    scenario: 'reasoning',
    followup: 'text',
    check: (o, c) => expectReasoningReplay('responses', resultOf(o), c),
  },
  {
    sdk: 'openai',
    name: 'responses-reasoning',
    scenario: 'reasoning',
    check: (o, c) => expectAnswer('responses', resultOf(o), need(c.expected), { reasoning: true }),
  },
  {
    sdk: 'openai',
    name: 'responses-tools',
    scenario: 'tool-call',
    followup: 'text',
    check: (o, c) => {
      const result = resultOf(o);
      expectAnswer('responses', result.call, need(c.expected));
      expectAnswer('responses', result.answer, need(c.followup));
      expectToolRoundTrip(c);
    },
  },
  {
    sdk: 'openai',
    name: 'responses-structured',
    scenario: 'text',
    check: (o, c) => (
      expectAnswer('responses', resultOf(o), need(c.expected)),
      expectUpstreamSchema(c, WEATHER_REPORT_SCHEMA)
    ),
  },
  {
    sdk: 'openai',
    name: 'responses-input-tokens',
    scenario: 'count',
    check: (o, c) => (expect(resultOf(o).object).toBe('response.input_tokens'), expectCounts(resultOf(o), c)),
  },
  {
    sdk: 'openai',
    name: 'responses-builtin-tool',
    scenario: 'text',
    check: (o, c) => expectServedOnlyByOwnProtocol('responses', 'openai-responses', 'tools.0', o, c),
  },
  ...errorCases('openai', 'responses-'),
];

const ANTHROPIC_CASES: PythonSdkCase[] = [
  {
    sdk: 'anthropic',
    name: 'messages',
    scenario: 'text',
    check: (o, c) => expectAnswer('messages', resultOf(o), need(c.expected)),
  },
  {
    sdk: 'anthropic',
    name: 'messages-stream',
    scenario: 'text',
    check: (o, c) => (
      expectAnswer('messages', resultOf(o), need(c.expected)),
      expect(resultOf(o).streamedText).toBe(need(c.expected).text)
    ),
  },
  {
    sdk: 'anthropic',
    name: 'messages-stream-tools',
    scenario: 'tool-call',
    check: (o, c) => expectAnswer('messages', resultOf(o), need(c.expected)),
  },
  {
    sdk: 'anthropic',
    name: 'messages-tools',
    scenario: 'tool-call',
    followup: 'text',
    check: (o, c) => {
      const result = resultOf(o);
      expectAnswer('messages', result.call, need(c.expected));
      expectAnswer('messages', result.answer, need(c.followup));
      expectToolRoundTrip(c);
    },
  },
  {
    sdk: 'anthropic',
    name: 'messages-thinking',
    scenario: 'reasoning',
    check: (o, c) => expectAnswer('messages', resultOf(o), need(c.expected), { reasoning: true }),
  },
  {
    sdk: 'anthropic',
    name: 'messages-thinking-replay',
    scenario: 'reasoning',
    followup: 'text',
    check: (o, c) => expectReasoningReplay('messages', resultOf(o), c),
  },
  {
    sdk: 'anthropic',
    name: 'messages-structured',
    scenario: 'text',
    check: (o, c) => (
      expectAnswer('messages', resultOf(o), need(c.expected)),
      expectUpstreamSchema(c, WEATHER_REPORT_SCHEMA)
    ),
  },
  { sdk: 'anthropic', name: 'count-tokens', scenario: 'count', check: (o, c) => expectCounts(resultOf(o), c) },
  ...errorCases('anthropic', ''),
];

const GENAI_CASES: PythonSdkCase[] = [
  {
    sdk: 'genai',
    name: 'generate',
    scenario: 'text',
    check: (o, c) => expectAnswer('genai', resultOf(o), need(c.expected)),
  },
  {
    sdk: 'genai',
    name: 'generate-stream',
    scenario: 'text',
    check: (o, c) => (
      expectAnswer('genai', resultOf(o), need(c.expected)),
      expect(resultOf(o).roles).toEqual(['model'])
    ),
  },
  {
    sdk: 'genai',
    name: 'thinking',
    scenario: 'reasoning',
    check: (o, c) => expectAnswer('genai', resultOf(o), need(c.expected), { reasoning: true }),
  },
  {
    sdk: 'genai',
    name: 'thinking-replay',
    scenario: 'reasoning',
    followup: 'text',
    check: (o, c) => expectReasoningReplay('genai', resultOf(o), c),
  },
  {
    sdk: 'genai',
    name: 'function-call',
    scenario: 'tool-call',
    followup: 'text',
    check: (o, c) => {
      const result = resultOf(o);
      expectAnswer('genai', result.call, need(c.expected));
      expectAnswer('genai', result.answer, need(c.followup));
      expectToolRoundTrip(c);
    },
  },
  {
    sdk: 'genai',
    name: 'function-call-stream',
    scenario: 'tool-call',
    check: (o, c) => expectAnswer('genai', resultOf(o), need(c.expected)),
  },
  {
    sdk: 'genai',
    name: 'json-schema',
    scenario: 'text',
    check: (o, c) => (
      expectAnswer('genai', resultOf(o), need(c.expected)),
      expectUpstreamSchema(c, WEATHER_REPORT_SCHEMA)
    ),
  },
  {
    sdk: 'genai',
    name: 'response-schema',
    scenario: 'text',
    check: (o, c) => {
      expectAnswer('genai', resultOf(o), need(c.expected));
      const { additionalProperties: _notInOpenApiSubset, ...expected } = WEATHER_REPORT_SCHEMA;
      expectUpstreamSchema(c, expected, 'lower-case-types');
    },
  },
  { sdk: 'genai', name: 'count-tokens', scenario: 'count', check: (o, c) => expectCounts(resultOf(o), c) },
  ...errorCases('genai', ''),
];

/** Every case of every SDK. */
export const PYTHON_SDK_CASES: ReadonlyArray<PythonSdkCase> = [...OPENAI_CASES, ...ANTHROPIC_CASES, ...GENAI_CASES];

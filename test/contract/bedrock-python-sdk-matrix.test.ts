/**
 * Contract: the official Python SDKs (openai, anthropic, google-genai; the venv of
 * test/contract/python/install-python-sdks.sh) through the gateway to Amazon Bedrock, served by
 * the fake Bedrock Runtime (test/support/bedrock-upstream.ts): a Converse channel signed with
 * SigV4 and a Claude InvokeModel channel with a Bedrock API key. The cases are those of the
 * Python SDK matrix (python/python-sdk-cases.ts) whose checks read only what the SDK parsed —
 * text, tool calls, reasoning, finish and usage, streamed and not — and the tool round trips,
 * checked here by the tool result reaching Bedrock tied to its call.
 *
 * Without the venv the suite is skipped, except with CI=true, where it fails.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_API_KEY,
  BEDROCK_TEST_CREDENTIALS,
  startBedrockUpstream,
  type BedrockUpstream,
} from '../support/bedrock-upstream.ts';
import { FIXTURE_ROOT } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';
import {
  expectAnswer,
  need,
  resultOf,
  type AnswerShape,
  type FixtureExpectation,
} from './python/expect-sdk-outcome.ts';
import {
  INSTALL_PYTHON_SDKS_COMMAND,
  PYTHON_SDK_SCRIPTS,
  pythonSdkState,
  runPythonCases,
  type PythonCaseJob,
  type PythonCaseOutcome,
  type PythonSdk,
} from './python/python-case-runner.ts';
import { PYTHON_SDK_CASES, type PythonSdkCase } from './python/python-sdk-cases.ts';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const SURFACES = [
  { name: 'converse', protocol: 'bedrock-converse', expectations: 'bedrock-converse' },
  { name: 'invoke', protocol: 'anthropic-messages', expectations: 'anthropic-messages' },
] as const;
type Surface = (typeof SURFACES)[number];

/** Cases whose checks read only the SDK's outcome and the scenario's expectation. */
const ANSWER_CASES = new Set([
  'chat',
  'chat-stream',
  'chat-stream-tools',
  'responses',
  'responses-stream',
  'messages',
  'messages-stream',
  'messages-stream-tools',
  'messages-thinking',
  'generate',
  'generate-stream',
  'thinking',
  'function-call-stream',
]);
/** Tool round trips (a call, then its result sent back), with the answer shape of their SDK. */
const ROUND_TRIPS: Readonly<Record<string, AnswerShape>> = {
  'chat-tools': 'chat',
  'messages-tools': 'messages',
  'function-call': 'genai',
};
const CASES = PYTHON_SDK_CASES.filter((c) => ANSWER_CASES.has(c.name) || ROUND_TRIPS[c.name] !== undefined);

const sdkState = pythonSdkState();
const inCi = process.env.CI === 'true';
if (sdkState !== 'ready' && !inCi)
  console.warn(`Bedrock Python SDK tests skipped: Python SDKs ${sdkState}; run ${INSTALL_PYTHON_SDKS_COMMAND}`);

const tagFor = (testCase: PythonSdkCase, surface: Surface): string =>
  `py-${testCase.sdk}-${testCase.name}-${surface.name}`;
const jobIdFor = (testCase: PythonSdkCase, surface: Surface): string =>
  `${testCase.sdk}/${testCase.name}/${surface.name}`;

function expectation(surface: Surface, scenario: string | undefined): FixtureExpectation | undefined {
  if (scenario === undefined) return undefined;
  return JSON.parse(
    readFileSync(`${FIXTURE_ROOT}${surface.expectations}/${scenario}.expect.json`, 'utf8'),
  ) as FixtureExpectation;
}

function jobsFor(sdk: PythonSdk, origin: string): PythonCaseJob[] {
  return CASES.filter((c) => c.sdk === sdk).flatMap((testCase) =>
    SURFACES.map((surface) => ({
      id: jobIdFor(testCase, surface),
      case: testCase.name,
      url: origin,
      key: TEST_KEY,
      model: `${surface.name}--${testCase.scenario}`,
      ...(testCase.followup ? { followupModel: `${surface.name}--${testCase.followup}` } : {}),
      tag: tagFor(testCase, surface),
    })),
  );
}

let fake: BedrockUpstream;
let gateway: TestGateway;
const outcomes = new Map<string, Promise<PythonCaseOutcome>>();

describe.runIf(sdkState === 'ready' || inCi)('official Python SDKs through the gateway to Amazon Bedrock', () => {
  beforeAll(async () => {
    if (sdkState !== 'ready')
      throw new Error(`Python SDKs ${sdkState} (CI=true requires them): run ${INSTALL_PYTHON_SDKS_COMMAND}`);
    fake = await startBedrockUpstream();
    const modelMap = (surface: Surface) =>
      Object.fromEntries(['text', 'tool-call', 'reasoning'].map((s) => [`${surface.name}--${s}`, `${CLAUDE}--${s}`]));
    gateway = await startTestGateway({
      channels: [
        {
          id: 'converse-sigv4',
          provider: 'bedrock',
          protocol: 'bedrock-converse',
          baseUrl: fake.origin,
          apiKey: `${BEDROCK_TEST_CREDENTIALS.accessKeyId}:${BEDROCK_TEST_CREDENTIALS.secretAccessKey}`,
          cloud: { auth: 'sigv4', region: BEDROCK_FAKE_REGION },
          modelMap: modelMap(SURFACES[0]),
        },
        {
          id: 'invoke-api-key',
          provider: 'bedrock',
          protocol: 'anthropic-messages',
          baseUrl: fake.origin,
          apiKey: BEDROCK_TEST_API_KEY,
          cloud: { auth: 'api-key', region: BEDROCK_FAKE_REGION },
          modelMap: modelMap(SURFACES[1]),
        },
      ],
    });
    for (const sdk of Object.keys(PYTHON_SDK_SCRIPTS) as PythonSdk[])
      for (const [id, outcome] of runPythonCases(sdk, jobsFor(sdk, gateway.origin))) outcomes.set(id, outcome);
  });

  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  describe.each(Object.keys(PYTHON_SDK_SCRIPTS) as PythonSdk[])('python %s', (sdk) => {
    describe.each(SURFACES)('→ Bedrock $name', (surface) => {
      for (const testCase of CASES.filter((c) => c.sdk === sdk)) {
        it(testCase.name, async () => {
          const outcome = await outcomes.get(jobIdFor(testCase, surface));
          expect(outcome, 'the case ran').toBeDefined();
          const tag = tagFor(testCase, surface);
          const bodies = () => fake.requests.map((r) => r.body).filter((body) => body.includes(`(ref ${tag})`));
          const expected = expectation(surface, testCase.scenario);
          const followup = expectation(surface, testCase.followup);
          const shape = ROUND_TRIPS[testCase.name];
          if (shape === undefined) {
            testCase.check(outcome as PythonCaseOutcome, {
              protocol: 'anthropic-messages',
              tag,
              expected,
              followup,
              fixtureReasoningToken: undefined,
              upstreamBodies: bodies,
              countBodies: () => [],
              upstreamCounts: false,
            });
            return;
          }
          const result = resultOf(outcome as PythonCaseOutcome);
          expectAnswer(shape, result.call, need(expected));
          expectAnswer(shape, result.answer, need(followup));
          const second = bodies().find((body) => body.includes(`12 degrees and cloudy (ref ${tag})`));
          expect(second, 'a Bedrock request carrying the tool result').toBeDefined();
          const sent = JSON.parse(second ?? '{}') as { messages: Array<{ content: Array<Record<string, unknown>> }> };
          const callIds = sent.messages.flatMap((m) =>
            m.content.flatMap((block) =>
              surface.name === 'converse'
                ? block.toolUse
                  ? [(block.toolUse as { toolUseId: string }).toolUseId]
                  : []
                : block.type === 'tool_use'
                  ? [block.id as string]
                  : [],
            ),
          );
          const resultIds = sent.messages.flatMap((m) =>
            m.content.flatMap((block) =>
              surface.name === 'converse'
                ? block.toolResult
                  ? [(block.toolResult as { toolUseId: string }).toolUseId]
                  : []
                : block.type === 'tool_result'
                  ? [block.tool_use_id as string]
                  : [],
            ),
          );
          expect(callIds).toHaveLength(1);
          expect(resultIds).toEqual(callIds);
        });
      }
    });
  });
});

/**
 * Contract: the official Python SDKs (openai, anthropic, google-genai; versions pinned in
 * test/contract/python/requirements.txt) pointed at the gateway on loopback, every case against
 * channels of every upstream protocol served by the fake upstream that replays recorded wire
 * traffic (test/fixtures/upstream/<protocol>/<scenario>.*), as the JS SDK matrix does
 * (sdk-matrix.test.ts). Each SDK runs all its cases in one Python process (see
 * python/python-case-runner.ts); the tests assert what the SDK parsed and, for translations of
 * the client's request (tool round trips, output schemas, token counts), what reached the upstream.
 *
 * Without the venv (run test/contract/python/install-python-sdks.sh) the suite is skipped, except
 * with CI=true, where it fails.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIRE_FORMATS, type WireFormat } from '../../gateway/canonical/formats.ts';
import {
  DEEPSEEK_CHAT_FIELDS,
  fixturePath,
  startFixtureUpstream,
  type FixtureUpstream,
} from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';
import { startCountTokensUpstream, type CountTokensUpstream } from './python/count-tokens-upstream.ts';
import {
  INSTALL_PYTHON_SDKS_COMMAND,
  PYTHON_SDK_SCRIPTS,
  pythonSdkState,
  runPythonCases,
  type PythonCaseJob,
  type PythonCaseOutcome,
  type PythonSdk,
} from './python/python-case-runner.ts';
import { UPSTREAM_TOKEN_COUNT, type FixtureExpectation } from './python/expect-sdk-outcome.ts';
import { PYTHON_SDK_CASES, type PythonSdkCase, type Scenario } from './python/python-sdk-cases.ts';

const PROVIDER_FOR: Record<WireFormat, string> = {
  'openai-chat': 'deepseek',
  'openai-responses': 'openai',
  'anthropic-messages': 'anthropic',
  gemini: 'gemini',
};
/** Upstream protocols whose adapters ask the upstream to count tokens (the others are estimated locally). */
const COUNTING_PROTOCOLS: ReadonlySet<WireFormat> = new Set(['anthropic-messages', 'gemini']);
const REPLAYED_SCENARIOS = ['text', 'tool-call', 'reasoning'] as const;

const sdkState = pythonSdkState();
const inCi = process.env.CI === 'true';
if (sdkState !== 'ready' && !inCi)
  console.warn(`python SDK contract tests skipped: Python SDKs ${sdkState}; run ${INSTALL_PYTHON_SDKS_COMMAND}`);

const modelFor = (protocol: WireFormat, scenario: Scenario): string => `${protocol}--${scenario}`;
const tagFor = (testCase: PythonSdkCase, protocol: WireFormat): string =>
  `py-${testCase.sdk}-${testCase.name}-${protocol}`;
const jobIdFor = (testCase: PythonSdkCase, protocol: WireFormat): string =>
  `${testCase.sdk}/${testCase.name}/${protocol}`;

function expectation(protocol: WireFormat, scenario: Scenario | undefined): FixtureExpectation | undefined {
  const path = scenario && fixturePath(protocol, scenario === 'count' ? 'text' : scenario, 'expect.json');
  return path ? (JSON.parse(readFileSync(path, 'utf8')) as FixtureExpectation) : undefined;
}

/** The provider token on the reasoning fixture's answer: Anthropic thinking `signature`, Responses reasoning `encrypted_content`. */
function fixtureReasoningToken(protocol: WireFormat): string | undefined {
  const path = fixturePath(protocol, 'reasoning', 'json');
  if (!path) throw new Error(`missing fixture ${protocol}/reasoning.json`);
  const answer = JSON.parse(readFileSync(path, 'utf8')) as {
    content?: Array<Record<string, unknown>>;
    output?: Array<Record<string, unknown>>;
  };
  if (protocol === 'anthropic-messages')
    return answer.content?.find((block) => block.type === 'thinking')?.signature as string | undefined;
  if (protocol === 'openai-responses')
    return answer.output?.find((item) => item.type === 'reasoning')?.encrypted_content as string | undefined;
  return undefined;
}

/** Channels: one per protocol replaying fixtures, one for upstream failures (so its errors never trip the others' breakers), one answering counts. */
function channelsFor(upstream: FixtureUpstream, counter: CountTokensUpstream): Array<Record<string, unknown>> {
  return WIRE_FORMATS.flatMap((protocol) => {
    const base = { provider: PROVIDER_FOR[protocol], protocol, apiKey: 'upstream-secret' };
    const replayed: Record<string, string> = Object.fromEntries(
      REPLAYED_SCENARIOS.map((s) => [modelFor(protocol, s), s]),
    );
    const counting = COUNTING_PROTOCOLS.has(protocol);
    if (!counting) replayed[modelFor(protocol, 'count')] = 'text';
    return [
      { ...base, id: `replay-${protocol}`, baseUrl: upstream.baseUrl(protocol), modelMap: replayed },
      {
        ...base,
        id: `failing-${protocol}`,
        baseUrl: upstream.baseUrl(protocol),
        modelMap: { [modelFor(protocol, 'fail-429')]: 'fail-429' },
      },
      ...(counting
        ? [
            {
              ...base,
              id: `counting-${protocol}`,
              baseUrl: counter.origin,
              modelMap: { [modelFor(protocol, 'count')]: 'count-model' },
            },
          ]
        : []),
    ];
  });
}

function jobsFor(sdk: PythonSdk, origin: string): PythonCaseJob[] {
  return PYTHON_SDK_CASES.filter((c) => c.sdk === sdk).flatMap((testCase) =>
    WIRE_FORMATS.map((protocol) => ({
      id: jobIdFor(testCase, protocol),
      case: testCase.name,
      url: origin,
      key: TEST_KEY,
      model: modelFor(protocol, testCase.scenario),
      ...(testCase.followup ? { followupModel: modelFor(protocol, testCase.followup) } : {}),
      tag: tagFor(testCase, protocol),
    })),
  );
}

let upstream: FixtureUpstream;
let counter: CountTokensUpstream;
let gateway: TestGateway;
const outcomes = new Map<string, Promise<PythonCaseOutcome>>();

describe.runIf(sdkState === 'ready' || inCi)('official Python SDKs through the gateway', () => {
  beforeAll(async () => {
    if (sdkState !== 'ready')
      throw new Error(
        `Python SDKs ${sdkState} in .tollgate/python-sdks (CI=true requires them): run ${INSTALL_PYTHON_SDKS_COMMAND}`,
      );
    upstream = await startFixtureUpstream(DEEPSEEK_CHAT_FIELDS); // PROVIDER_FOR: DeepSeek serves openai-chat
    counter = await startCountTokensUpstream(UPSTREAM_TOKEN_COUNT);
    gateway = await startTestGateway({ channels: channelsFor(upstream, counter) });
    for (const sdk of Object.keys(PYTHON_SDK_SCRIPTS) as PythonSdk[]) {
      for (const [id, outcome] of runPythonCases(sdk, jobsFor(sdk, gateway.origin))) outcomes.set(id, outcome);
    }
  });

  afterAll(async () => {
    await gateway?.close();
    await counter?.close();
    await upstream?.close();
  });

  describe.each(Object.keys(PYTHON_SDK_SCRIPTS) as PythonSdk[])('python %s', (sdk) => {
    describe.each(WIRE_FORMATS)('→ upstream %s', (protocol) => {
      for (const testCase of PYTHON_SDK_CASES.filter((c) => c.sdk === sdk)) {
        it(testCase.name, async () => {
          const outcome = await outcomes.get(jobIdFor(testCase, protocol));
          expect(outcome, 'the case ran').toBeDefined();
          const tag = tagFor(testCase, protocol);
          // The case scripts write the tag as `(ref TAG)`, so matching the parentheses attributes requests exactly.
          const tagged = (body: string): boolean => body.includes(`(ref ${tag})`);
          testCase.check(outcome as PythonCaseOutcome, {
            protocol,
            tag,
            expected: expectation(protocol, testCase.scenario),
            followup: expectation(protocol, testCase.followup),
            fixtureReasoningToken: fixtureReasoningToken(protocol),
            upstreamBodies: () => upstream.requests.map((r) => r.body).filter(tagged),
            countBodies: () => counter.requests.map((r) => r.body).filter(tagged),
            upstreamCounts: COUNTING_PROTOCOLS.has(protocol),
          });
        });
      }
    });
  });
});

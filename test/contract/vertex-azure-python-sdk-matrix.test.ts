/**
 * Contract: the official Python SDKs (openai, anthropic, google-genai; test/contract/python/)
 * through Azure OpenAI and Google Vertex AI channels served by their fakes
 * (test/support/cloud-surfaces.ts), as python-sdk-matrix.test.ts runs them against the plain
 * protocols: each SDK's plain, streamed and tool cases, the tool round trips checked on what
 * reached the cloud (the call and its result, ids matching). Cases that need the plain fixture
 * upstream's extras (error scenarios, token counts, structured output, reasoning replay) stay in
 * python-sdk-matrix.test.ts.
 *
 * Without the venv (run test/contract/python/install-python-sdks.sh) the suite is skipped, except
 * with CI=true, where it fails.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFormat } from '../../gateway/canonical/formats.ts';
import { CLOUD_SURFACES_UNDER_TEST, startCloudSurfaces, type CloudSurfaces } from '../support/cloud-surfaces.ts';
import { fixturePath } from '../support/fixture-upstream.ts';
import { TEST_KEY } from '../support/start-gateway.ts';
import type { FixtureExpectation } from './python/expect-sdk-outcome.ts';
import {
  INSTALL_PYTHON_SDKS_COMMAND,
  PYTHON_SDK_SCRIPTS,
  pythonSdkState,
  runPythonCases,
  type PythonCaseJob,
  type PythonCaseOutcome,
  type PythonSdk,
} from './python/python-case-runner.ts';
import { PYTHON_SDK_CASES, type Scenario } from './python/python-sdk-cases.ts';

/** The cases that only need a replayed answer (and, for round trips, the bodies the cloud received). */
const CLOUD_CASES = new Set([
  'chat',
  'chat-stream',
  'chat-stream-tools',
  'chat-tools',
  'responses',
  'responses-stream',
  'responses-stream-tools',
  'responses-tools',
  'messages',
  'messages-stream',
  'messages-stream-tools',
  'messages-tools',
  'generate',
  'generate-stream',
  'function-call',
  'function-call-stream',
]);
const CASES = PYTHON_SDK_CASES.filter((c) => CLOUD_CASES.has(c.name));

const sdkState = pythonSdkState();
const inCi = process.env.CI === 'true';
if (sdkState !== 'ready' && !inCi)
  console.warn(`python SDK cloud contract tests skipped: Python SDKs ${sdkState}; run ${INSTALL_PYTHON_SDKS_COMMAND}`);

const tagFor = (name: string, surface: string): string => `pycloud-${name}-${surface}`;
const jobIdFor = (sdk: PythonSdk, name: string, surface: string): string => `${sdk}/${name}/${surface}`;

function expectation(protocol: WireFormat, scenario: Scenario | undefined): FixtureExpectation | undefined {
  const path = scenario && fixturePath(protocol, scenario, 'expect.json');
  return path ? (JSON.parse(readFileSync(path, 'utf8')) as FixtureExpectation) : undefined;
}

let clouds: CloudSurfaces;
const outcomes = new Map<string, Promise<PythonCaseOutcome>>();

describe.runIf(sdkState === 'ready' || inCi)('official Python SDKs through Azure and Vertex channels', () => {
  beforeAll(async () => {
    if (sdkState !== 'ready')
      throw new Error(`Python SDKs ${sdkState} (CI=true requires them): run ${INSTALL_PYTHON_SDKS_COMMAND}`);
    clouds = await startCloudSurfaces();
    for (const sdk of Object.keys(PYTHON_SDK_SCRIPTS) as PythonSdk[]) {
      const jobs: PythonCaseJob[] = CASES.filter((c) => c.sdk === sdk).flatMap((testCase) =>
        CLOUD_SURFACES_UNDER_TEST.map(({ id }) => ({
          id: jobIdFor(sdk, testCase.name, id),
          case: testCase.name,
          url: clouds.gateway.origin,
          key: TEST_KEY,
          model: `${id}--${testCase.scenario}`,
          ...(testCase.followup ? { followupModel: `${id}--${testCase.followup}` } : {}),
          tag: tagFor(testCase.name, id),
        })),
      );
      for (const [id, outcome] of runPythonCases(sdk, jobs)) outcomes.set(id, outcome);
    }
  });

  afterAll(async () => clouds?.close());

  describe.each(Object.keys(PYTHON_SDK_SCRIPTS) as PythonSdk[])('python %s', (sdk) => {
    describe.each(CLOUD_SURFACES_UNDER_TEST)('→ $id', ({ id, protocol }) => {
      for (const testCase of CASES.filter((c) => c.sdk === sdk)) {
        it(testCase.name, async () => {
          const outcome = await outcomes.get(jobIdFor(sdk, testCase.name, id));
          expect(outcome, 'the case ran').toBeDefined();
          const tag = tagFor(testCase.name, id);
          const tagged = (body: string): boolean => body.includes(`(ref ${tag})`);
          testCase.check(outcome as PythonCaseOutcome, {
            protocol,
            tag,
            expected: expectation(protocol, testCase.scenario),
            followup: expectation(protocol, testCase.followup),
            fixtureReasoningToken: undefined,
            upstreamBodies: () =>
              [...clouds.azure.requests, ...clouds.vertex.requests].map((r) => r.body).filter(tagged),
            countBodies: () => [],
            upstreamCounts: false,
          });
        });
      }
    });
  });
});

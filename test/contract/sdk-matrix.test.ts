/**
 * Contract: every official SDK, pointed at the gateway on loopback, against channels of every
 * upstream protocol served by a fake upstream that replays recorded wire traffic
 * (test/fixtures/upstream/<protocol>/<scenario>.*), streamed and not. Text, reasoning, tool calls,
 * usage and stop reasons must arrive intact, and the SDKs' own stream helpers must finish.
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
import { callWithSdk, expectedFinish } from './sdk-clients.ts';

const SCENARIOS = ['text', 'tool-call', 'reasoning'] as const;
const PROVIDER_FOR: Record<WireFormat, string> = {
  'openai-chat': 'deepseek',
  'openai-responses': 'openai',
  'anthropic-messages': 'anthropic',
  gemini: 'gemini',
};

interface Expectation {
  text: string;
  reasoning: string;
  toolCalls: Array<{ name: string; arguments: unknown }>;
  finish: string;
  usage: { inputTotal: number; cacheRead: number; cacheWrite: number; outputTotal: number; reasoning: number };
}

function expectation(protocol: WireFormat, scenario: string): Expectation {
  const path = fixturePath(protocol, scenario, 'expect.json');
  if (!path) throw new Error(`missing fixture expectation ${protocol}/${scenario}`);
  return JSON.parse(readFileSync(path, 'utf8')) as Expectation;
}

let upstream: FixtureUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFixtureUpstream(DEEPSEEK_CHAT_FIELDS); // PROVIDER_FOR: DeepSeek serves openai-chat
  gateway = await startTestGateway({
    channels: WIRE_FORMATS.map((protocol) => ({
      id: `fake-${protocol}`,
      provider: PROVIDER_FOR[protocol],
      protocol,
      baseUrl: upstream.baseUrl(protocol),
      apiKey: 'upstream-secret',
      modelMap: Object.fromEntries(SCENARIOS.map((s) => [`${protocol}--${s}`, s])),
    })),
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe.each(WIRE_FORMATS)('client %s', (client) => {
  describe.each(WIRE_FORMATS)('→ upstream %s', (protocol) => {
    for (const scenario of SCENARIOS) {
      for (const stream of [false, true]) {
        it(`${scenario}, ${stream ? 'streamed' : 'not streamed'}`, async () => {
          const expected = expectation(protocol, scenario);
          const result = await callWithSdk(client, gateway.origin, TEST_KEY, `${protocol}--${scenario}`, {
            stream,
            withTools: scenario === 'tool-call',
          });
          expect(result.text).toBe(expected.text);
          expect(result.toolCalls).toEqual(expected.toolCalls);
          if (expected.reasoning) expect(result.reasoning).toBe(expected.reasoning);
          expect(result.finish).toBe(expectedFinish(client, expected.finish));
          expect(result.inputTotal).toBe(expected.usage.inputTotal);
          expect(result.outputTotal).toBe(expected.usage.outputTotal);
        });
      }
    }
  });
});

/**
 * End to end: Claude Code and Codex, run offline, complete a tool round trip through cloud
 * channels — Amazon Bedrock (Claude through InvokeModel; Converse and ConverseStream, the
 * protocol every Bedrock model family takes, on Claude and on gpt-oss model ids; SigV4-signed)
 * and Google Vertex AI (Claude through rawPredict, Gemini through generateContent,
 * service-account tokens). Each cloud's fake checks what that cloud checks and forwards to the
 * harness's scripted model (support/cloud-agent-channel.ts); each run is judged like the agent
 * matrix (support/check-agent-run.ts): the agent exits 0 with the marker, every request is answered 2xx,
 * its tools reach the model, and the file's content comes back in the tool result.
 */
import { describe, expect, it } from 'vitest';
import type { UpstreamProtocol } from '../../../gateway/canonical/formats.ts';
import {
  AGENT_CLOUD_PROTOCOLS,
  CONVERSE_MODEL_FAMILIES,
  type AgentCloud,
  type ConverseModelFamily,
} from './support/cloud-agent-channel.ts';
import { checkAgentRun } from './support/check-agent-run.ts';
import { generationFormatOf, readWireRequest } from './support/read-wire-request.ts';
import { runAgentCase } from './support/run-agent-case.ts';

/** Agent process limit per case, ms. */
const AGENT_TIMEOUT_MS = 75_000;

/** How a case's name calls the protocol a cloud channel speaks. */
const PROTOCOL_LABEL: Readonly<Record<UpstreamProtocol, string>> = {
  'anthropic-messages': 'Claude',
  gemini: 'Gemini',
  'bedrock-converse': 'Converse',
  'openai-chat': 'Chat Completions',
  'openai-responses': 'Responses',
};

/** One cloud case: a cloud, its protocol, and on Converse the Bedrock model family the agent's names map to. */
interface CloudCase {
  readonly cloud: AgentCloud;
  readonly protocol: UpstreamProtocol;
  readonly converseFamily?: ConverseModelFamily;
}

const CLOUD_CASES: ReadonlyArray<CloudCase> = (['bedrock', 'vertex'] as const).flatMap((cloud) =>
  AGENT_CLOUD_PROTOCOLS[cloud].flatMap((protocol): CloudCase[] =>
    protocol === 'bedrock-converse'
      ? CONVERSE_MODEL_FAMILIES.map((converseFamily) => ({ cloud, protocol, converseFamily }))
      : [{ cloud, protocol }],
  ),
);

function caseName({ cloud, protocol, converseFamily }: CloudCase): string {
  return `${cloud} ${PROTOCOL_LABEL[protocol]}${converseFamily ? ` (${converseFamily} model ids)` : ''}`;
}

describe.concurrent('coding agents through cloud channels', () => {
  for (const agent of ['claude-code', 'codex'] as const) {
    for (const cloudCase of CLOUD_CASES) {
      const { cloud, protocol, converseFamily } = cloudCase;
      it(`${agent} · ${caseName(cloudCase)} · tool round trip`, { timeout: AGENT_TIMEOUT_MS + 15_000 }, async () => {
        const run = await runAgentCase(
          { agent, protocol, cloud, converseFamily, model: 'default', mode: 'tool' },
          AGENT_TIMEOUT_MS,
        );
        expect(checkAgentRun(run)).toEqual([]);
        // Every answered request was served by the cloud's channel.
        const served = run.outcomes.filter((outcome) => outcome.status === 'completed');
        expect(served.length).toBeGreaterThan(0);
        expect(new Set(served.map((outcome) => outcome.provider))).toEqual(new Set([cloud]));
        // Each generation request reached the scripted model in the channel's protocol, streamed as the agent asked.
        const pairs = run.clientExchanges.flatMap((exchange) => {
          const format = generationFormatOf(exchange.url);
          const forwarded = run.upstreamExchanges
            .slice(exchange.upstreamStart, exchange.upstreamEnd)
            .filter((upstream) => upstream.summary)
            .at(-1);
          if (!format || !forwarded) return [];
          const asked = readWireRequest(format, exchange.url.split('?')[0] ?? '', exchange.body).stream;
          return [{ asked, format: forwarded.format, streamed: forwarded.summary?.stream }];
        });
        expect(pairs.length).toBeGreaterThan(0);
        for (const pair of pairs) expect(pair).toEqual({ asked: pair.asked, format: protocol, streamed: pair.asked });
        if (converseFamily) {
          const upstreamModels = new Set(run.upstreamExchanges.map((upstream) => upstream.summary?.model));
          const [only] = upstreamModels;
          expect(upstreamModels.size).toBe(1);
          expect(only).toMatch(converseFamily === 'claude' ? /^us\.anthropic\.claude-/ : /^openai\.gpt-oss-/);
          // Both agents ask for reasoning: on Claude ids the tool turn carries back the signed
          // reasoning the model sent (Claude refuses it missing); gpt-oss is sent none.
          const replayed = run.upstreamExchanges.some((upstream) =>
            JSON.stringify(upstream.body).includes('"reasoningContent":{"reasoningText"'),
          );
          expect(replayed).toBe(converseFamily === 'claude');
        }
      });
    }
  }
});

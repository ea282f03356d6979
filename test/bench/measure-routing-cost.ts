/**
 * CPU cost of routing per request, in µs, measured in this process (no network): the order of
 * the candidate channels as every request pays it today (weighted random with a health source)
 * beside what prompt-cache affinity adds (the affinity key of a realistic agent request — a 20 kB
 * system prompt and 30 tools, keyed by the digest of its stable prefix or by a session header —
 * then a memory-store lookup, the pinned order and the re-pin) and the other strategies (`latency`,
 * `least-busy`, `cost` with a pricer over a small price book). Four channels serve the model in
 * one tier. Each case runs `requests` times after a warm-up; the figure is process CPU time
 * (user + system) / requests, the least of three runs (as measure-admission-cost.ts).
 * `npx tsx test/bench/measure-routing-cost.ts` prints the table; `npm run bench` includes it.
 */
import type { CanonicalRequest } from '../../gateway/canonical/request.ts';
import { channelSchema } from '../../gateway/config/config-schema.ts';
import { decodeAnthropicRequest } from '../../gateway/inbound/anthropic-messages/decode-anthropic-request.ts';
import { createRequestPricer } from '../../gateway/policy/request-pricer.ts';
import { resolveChannel, type Channel } from '../../gateway/routing/channel.ts';
import type { ChannelHealthSource } from '../../gateway/routing/channel-health-source.ts';
import { ChannelRouter, type RouteOptions, type RoutingSignals } from '../../gateway/routing/channel-router.ts';
import {
  affinityKeyOf,
  PromptCacheAffinity,
  type AffinityKeyInput,
} from '../../gateway/routing/prompt-cache-affinity.ts';
import { createMemoryAffinityStore } from '../../infra/state-store/memory/memory-affinity-store.ts';
import { microsPerRequest } from './measure-admission-cost.ts';

/** One measured case. */
export interface RoutingCostRow {
  readonly label: string;
  /** Process CPU per routed request, µs. */
  readonly microsPerRequest: number;
}

const MODEL = 'agent-model';
const CHANNEL_COUNT = 4;
const SYSTEM_PROMPT_CHARS = 20_000;
const TOOL_COUNT = 30;

/** A coding agent's request: a 20 kB system prompt, 30 tools, a first message and a short history. */
function agentRequestBody(): Record<string, unknown> {
  let system = 'You are a coding agent working in a large TypeScript repository. ';
  for (let i = 0; system.length < SYSTEM_PROMPT_CHARS; i++)
    system += `Rule ${i}: keep edits minimal, run the tests of package ${i % 17} before answering. `;
  const tools = Array.from({ length: TOOL_COUNT }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool ${i}: reads or changes files of the workspace and returns the result as text; use it when the task needs file ${i}.`,
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'A workspace path' },
        pattern: { type: 'string', description: 'A regular expression' },
        limit: { type: 'integer', description: 'Most lines returned' },
      },
      required: ['path'],
    },
  }));
  return {
    model: MODEL,
    max_tokens: 4096,
    system: system.slice(0, SYSTEM_PROMPT_CHARS),
    tools,
    messages: [
      { role: 'user', content: 'Fix the failing test in packages/p1 and explain the cause.' },
      { role: 'assistant', content: 'I will read the test first.' },
      { role: 'user', content: 'The test is packages/p1/src/sum.test.ts.' },
    ],
  };
}

/** Measures the routing cases (see the module doc). @throws Error when the bench request does not decode */
export async function measureRoutingCost(requests = 20_000): Promise<RoutingCostRow[]> {
  const channels: Channel[] = Array.from({ length: CHANNEL_COUNT }, (_, i) =>
    resolveChannel(
      channelSchema.parse({
        id: `c${i}`,
        provider: 'anthropic',
        apiKey: 'x',
        weight: 1 + i,
        modelMap: { [MODEL]: i % 2 === 0 ? 'claude-sonnet-4-5' : 'claude-haiku-4-5' },
      }),
    ),
  );
  const health: ChannelHealthSource = {
    isCoolingDown: (id) => id === 'c3',
    errorRate: (id) => (id === 'c1' ? 0.1 : 0),
  };
  const signals: RoutingSignals = {
    latencyMs: (id, phase) => (phase === 'first-token' ? 400 : 2_000) + 37 * Number(id.slice(1)),
    inFlight: (id) => 3 * Number(id.slice(1)),
  };
  const router = new ChannelRouter(channels, Math.random, health);
  const pricer = createRequestPricer({
    prices: () =>
      ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1'].map((model, i) => ({
        priceId: `p${i}`,
        model,
        inputPerMTok: [3, 1, 15][i] as number,
        outputPerMTok: [15, 5, 75][i] as number,
        effectiveFrom: '1970-01-01T00:00:00Z',
      })),
    version: () => 1,
    channelsServing: (model) => router.channelsServing(model),
  });

  const body = agentRequestBody();
  const decoded = decodeAnthropicRequest(body);
  if (!decoded.ok) throw new Error(`routing bench: the agent request does not decode: ${decoded.message}`);
  const request: CanonicalRequest = decoded.value;
  const prefixInput: AffinityKeyInput = { keyId: 'key_bench', request, rawBody: body, headers: {} };
  const sessionInput: AffinityKeyInput = {
    ...prefixInput,
    headers: { 'x-claude-code-session-id': '0b6f6f7e-52d1-4d57-9d3e-3c3f3a4f5e21' },
  };
  const affinity = new PromptCacheAffinity({ store: createMemoryAffinityStore() });
  const route = (options: RouteOptions): Channel[] => router.candidatesFor(MODEL, health, options);
  const withAffinity = async (input: AffinityKeyInput): Promise<void> => {
    const lookup = await affinity.lookup(affinityKeyOf(input));
    const ordered = route(lookup.state === 'found' ? { preferredChannelId: lookup.pin.channelId } : {});
    const served = ordered[0] as Channel;
    await affinity.remember(lookup, { channelId: served.id, provider: served.provider.id });
  };
  const now = Date.now();

  const weighted = await microsPerRequest(requests, () => route({}));
  return [
    { label: 'weighted (today): candidatesFor with a health source', microsPerRequest: weighted },
    {
      label: 'weighted + affinity, prefix digest key (20 kB system, 30 tools): key, lookup, order, re-pin',
      microsPerRequest: await microsPerRequest(requests, () => withAffinity(prefixInput)),
    },
    {
      label: '  of which the prefix digest key alone',
      microsPerRequest: await microsPerRequest(requests, () => affinityKeyOf(prefixInput)),
    },
    {
      label: 'weighted + affinity, session header key: key, lookup, order, re-pin',
      microsPerRequest: await microsPerRequest(requests, () => withAffinity(sessionInput)),
    },
    {
      label: 'latency strategy (streamed: time to first token)',
      microsPerRequest: await microsPerRequest(requests, () => route({ strategy: 'latency', signals, stream: true })),
    },
    {
      label: 'least-busy strategy',
      microsPerRequest: await microsPerRequest(requests, () => route({ strategy: 'least-busy', signals })),
    },
    {
      label: 'cost strategy (pricer over 3 prices, 30 000 input tokens)',
      microsPerRequest: await microsPerRequest(requests, () =>
        route({ strategy: 'cost', costOf: (channel) => pricer.expectedCostUsd(channel, MODEL, 30_000, 1024, now) }),
      ),
    },
  ];
}

/** The rows as a table. */
export function formatRoutingCostTable(rows: ReadonlyArray<RoutingCostRow>): string {
  const width = Math.max(...rows.map((r) => r.label.length));
  return rows.map((r) => `  ${r.label.padEnd(width)}  ${r.microsPerRequest.toFixed(2).padStart(7)} µs`).join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void measureRoutingCost().then((rows) =>
    process.stdout.write(`Routing CPU per request (in-process, 4 channels):\n${formatRoutingCostTable(rows)}\n`),
  );
}

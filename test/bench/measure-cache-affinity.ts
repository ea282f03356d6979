/**
 * Prompt-cache hit rate with and without prompt-cache affinity, in this process: multi-turn agent
 * sessions (a shared long system prompt and tools, a distinct first user message per session, a
 * history growing by one answer and one user message per turn) played through gateways in front
 * of two fake upstreams that each keep their own prompt cache (test/support/prompt-caching-upstream.ts:
 * a prefix is cached only on the server that saw it). Cases, per client protocol (Anthropic
 * Messages → Anthropic channels, OpenAI Chat → OpenAI channels):
 * - single channel — one channel only: the reference hit rate;
 * - affinity off — two channels of equal weight, `routing.affinity.enabled: false` (weighted random);
 * - affinity on — the same two channels, affinity on over a memory affinity store;
 * - two nodes, memory — two gateway apps sharing one memory affinity store, turns alternating
 *   between them;
 * - two nodes, Redis — the same over a Redis affinity store (only with a Redis URL).
 * Hit rate = Σ cached input tokens ÷ Σ input tokens as the client's answers report them (Anthropic:
 * `cache_read_input_tokens` ÷ (`input_tokens` + `cache_creation_input_tokens` +
 * `cache_read_input_tokens`); OpenAI: `prompt_tokens_details.cached_tokens` ÷ `prompt_tokens`),
 * cross-checked against the gateways' outcomes and the fakes' own counts (a difference throws).
 * A case with affinity on FAILs when its hit rate is below CACHE_AFFINITY_TARGET of the
 * single-channel rate of its protocol.
 * `npx tsx test/bench/measure-cache-affinity.ts` prints the table (exit code 1 on a FAIL; REDIS_URL
 * adds the Redis case); `npm run bench` includes it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { parseConfigFile } from '../../gateway/config/load-config.ts';
import { createLocalControlPlane } from '../../gateway/control-plane/local-control-plane.ts';
import { createMemoryAffinityStore } from '../../infra/state-store/memory/memory-affinity-store.ts';
import { createRedisAffinityStore } from '../../infra/state-store/redis/redis-affinity-store.ts';
import type { AffinityStore } from '../../schemas/state-store/affinity-store.ts';
import { startPromptCachingUpstream, type PromptCachingUpstream } from '../support/prompt-caching-upstream.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../support/start-gateway.ts';

/** Least share of the single-channel hit rate a case with affinity on must reach (0.95 = 95 %). */
export const CACHE_AFFINITY_TARGET = 0.95;

/** The client protocols played (each over channels of the same upstream protocol). */
export const CACHE_AFFINITY_PROTOCOLS = ['anthropic-messages', 'openai-chat'] as const;

/** One client protocol of CACHE_AFFINITY_PROTOCOLS. */
export type CacheAffinityProtocol = (typeof CACHE_AFFINITY_PROTOCOLS)[number];

/** The routing set-ups compared. */
export type CacheAffinityCaseId =
  'single-channel' | 'affinity-off' | 'affinity-on' | 'two-nodes-memory' | 'two-nodes-redis';

/** How many sessions are played, how long, how many at once. */
export interface CacheAffinitySettings {
  /** Sessions per case (each with its own first user message). */
  readonly sessions: number;
  /** Requests per session. */
  readonly turns: number;
  /** Sessions played at the same time. */
  readonly concurrency: number;
  /** Seed of the gateways' routing randomness (the same seed gives the same weighted draws). */
  readonly seed?: number;
  /** A Redis to run the two-nodes Redis case on; none: skipped. */
  readonly redisUrl?: string;
  /** Prefix of the Redis case's keys (default `tollgate-bench:<uuid>:`; the pins expire on their own). */
  readonly redisKeyPrefix?: string;
  /** Characters of the shared system prompt (default 12 000, about 3 000 tokens). */
  readonly systemPromptChars?: number;
  /** Characters of the file each later turn's user message carries (default 6 000, about 1 500 tokens). */
  readonly fileChars?: number;
}

/** Default settings of `npm run bench`: 20 sessions × 8 turns, 4 at a time. */
export const DEFAULT_CACHE_AFFINITY_SETTINGS: CacheAffinitySettings = { sessions: 20, turns: 8, concurrency: 4 };

/** One measured case. Tokens. */
export interface CacheAffinityRow {
  readonly protocol: CacheAffinityProtocol;
  readonly caseId: CacheAffinityCaseId;
  readonly label: string;
  readonly requests: number;
  /** Σ input tokens the client was told (cached included). */
  readonly inputTokens: number;
  /** Σ cached input tokens the client was told. */
  readonly cachedTokens: number;
  /** cachedTokens ÷ inputTokens (0 when no input). */
  readonly hitRate: number;
  /** hitRate ÷ the single-channel hit rate of the same protocol. */
  readonly ratioToSingleChannel: number;
  /** How affinity ended per request, from the gateways' outcomes (all 0 with affinity off). */
  readonly affinity: { readonly hit: number; readonly moved: number; readonly new: number };
  /** `reference` (single channel), `baseline` (affinity off: today's weighted random), `pass` or `FAIL` (affinity on). */
  readonly verdict: 'reference' | 'baseline' | 'pass' | 'FAIL';
}

/** The measured cases, with the settings they ran with. */
export interface CacheAffinityReport {
  readonly sessions: number;
  readonly turns: number;
  readonly concurrency: number;
  readonly target: number;
  /** Why the Redis case did not run, when it did not. */
  readonly redisSkipped?: string;
  readonly rows: ReadonlyArray<CacheAffinityRow>;
  /** True when no case FAILs. */
  readonly pass: boolean;
}

const MODEL = 'agent-model';
const UPSTREAM_MODEL = 'cached-model-1';
const TOOL_COUNT = 12;

const CASE_LABELS: Record<CacheAffinityCaseId, string> = {
  'single-channel': 'one channel (reference)',
  'affinity-off': 'two channels, affinity off (weighted random)',
  'affinity-on': 'two channels, affinity on (memory store)',
  'two-nodes-memory': 'two nodes, affinity on (shared memory store)',
  'two-nodes-redis': 'two nodes, affinity on (shared Redis store)',
};

/** The shared system prompt: `chars` characters of instructions. */
function systemPrompt(chars: number): string {
  const rule = (i: number): string =>
    `Rule ${i}: keep edits minimal, run the tests of package ${i % 17} before answering, and cite the file you changed. `;
  let text = 'You are a coding agent working in a large TypeScript repository. ';
  for (let i = 0; text.length < chars; i++) text += rule(i);
  return text.slice(0, chars);
}

interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly schema: Record<string, unknown>;
}

const TOOLS: ReadonlyArray<ToolDefinition> = Array.from({ length: TOOL_COUNT }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool ${i}: reads or changes files of the workspace; returns the result as text.`,
  schema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'A workspace path' }, limit: { type: 'integer' } },
    required: ['path'],
  },
}));

/** A session's conversation so far, as the client keeps it. */
interface Conversation {
  readonly session: number;
  readonly messages: Array<{ role: 'user' | 'assistant'; content: string }>;
}

/**
 * The user message of a turn: the task first, then on later turns a file the agent read (the tool
 * output an agent appends), `fileChars` characters, distinct per session and turn.
 */
function userMessage(session: number, turn: number, fileChars: number): string {
  if (turn === 0) return `Session ${session}: fix the failing test in package ${session} and explain the cause.`;
  let file = `// session ${session}, file ${turn}\n`;
  for (let line = 0; file.length < fileChars; line++)
    file += `export const value${line} = computeValue(${session}, ${turn}, ${line}); // keeps the build green\n`;
  return `Here is packages/p${session}/src/file-${turn}.ts:\n${file.slice(0, fileChars)}\nContinue.`;
}

/** Input tokens and cached input tokens of one answer, as its client format reports them. */
interface ClientUsage {
  readonly input: number;
  readonly cached: number;
  readonly text: string;
}

async function sendTurn(
  origin: string,
  protocol: CacheAffinityProtocol,
  system: string,
  conversation: Conversation,
): Promise<ClientUsage> {
  const anthropic = protocol === 'anthropic-messages';
  const body = anthropic
    ? {
        model: MODEL,
        max_tokens: 512,
        system,
        tools: TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema })),
        messages: conversation.messages,
      }
    : {
        model: MODEL,
        max_tokens: 512,
        messages: [{ role: 'system', content: system }, ...conversation.messages],
        tools: TOOLS.map((t) => ({
          type: 'function',
          function: { name: t.name, description: t.description, parameters: t.schema },
        })),
      };
  const response = await fetch(`${origin}${anthropic ? '/v1/messages' : '/v1/chat/completions'}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(anthropic
        ? { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' }
        : { authorization: `Bearer ${TEST_KEY}` }),
    },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, any>;
  if (response.status !== 200)
    throw new Error(`cache-affinity bench: ${protocol} turn answered ${response.status}: ${JSON.stringify(answer)}`);
  if (anthropic) {
    const usage = answer.usage as Record<string, number>;
    const cached = usage.cache_read_input_tokens ?? 0;
    return {
      input: (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + cached,
      cached,
      text: String((answer.content as Array<{ text?: string }>)[0]?.text ?? ''),
    };
  }
  const usage = answer.usage as { prompt_tokens: number; prompt_tokens_details?: { cached_tokens?: number } };
  return {
    input: usage.prompt_tokens,
    cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
    text: String(answer.choices?.[0]?.message?.content ?? ''),
  };
}

/** What a case's sessions were told, summed. Tokens. */
interface PlayedTotals {
  requests: number;
  input: number;
  cached: number;
}

/**
 * Plays `settings.sessions` sessions of `settings.turns` turns, `settings.concurrency` at a time;
 * turn t of session s goes to `origins[(s + t) % origins.length]` (alternating between nodes).
 * @throws Error when a turn is not answered 200
 */
async function playSessions(
  origins: ReadonlyArray<string>,
  protocol: CacheAffinityProtocol,
  system: string,
  settings: CacheAffinitySettings,
): Promise<PlayedTotals> {
  const totals: PlayedTotals = { requests: 0, input: 0, cached: 0 };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < settings.sessions) {
      const session = next++;
      const conversation: Conversation = { session, messages: [] };
      for (let turn = 0; turn < settings.turns; turn++) {
        conversation.messages.push({ role: 'user', content: userMessage(session, turn, settings.fileChars ?? 6_000) });
        const origin = origins[(session + turn) % origins.length] as string;
        const usage = await sendTurn(origin, protocol, system, conversation);
        conversation.messages.push({ role: 'assistant', content: usage.text });
        totals.requests++;
        totals.input += usage.input;
        totals.cached += usage.cached;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, settings.concurrency) }, worker));
  return totals;
}

/** The gateway config of a case: one or two channels of `protocol` for MODEL. */
function caseConfig(
  protocol: CacheAffinityProtocol,
  upstreams: ReadonlyArray<PromptCachingUpstream>,
  affinity: boolean,
): Record<string, unknown> {
  return {
    channels: upstreams.map((upstream, i) => ({
      id: `cache-${String.fromCharCode(97 + i)}`,
      provider: protocol === 'anthropic-messages' ? 'anthropic' : 'openai',
      protocol,
      baseUrl: upstream.baseUrl(protocol),
      apiKey: `sk-upstream-${i}`,
      weight: 1,
      modelMap: { [MODEL]: UPSTREAM_MODEL },
    })),
    routing: { affinity: { enabled: affinity } },
  };
}

/** Runs one case on fresh upstreams, gateways and stores, and checks its totals three ways. */
async function runCase(
  caseId: CacheAffinityCaseId,
  protocol: CacheAffinityProtocol,
  system: string,
  settings: CacheAffinitySettings,
  redisUrl: string | undefined,
): Promise<Omit<CacheAffinityRow, 'ratioToSingleChannel' | 'verdict'>> {
  const channelCount = caseId === 'single-channel' ? 1 : 2;
  const nodeCount = caseId.startsWith('two-nodes') ? 2 : 1;
  const affinityOn = caseId !== 'affinity-off' && caseId !== 'single-channel';
  const upstreams = await Promise.all(Array.from({ length: channelCount }, () => startPromptCachingUpstream()));
  let store: AffinityStore | undefined;
  if (affinityOn)
    store =
      caseId === 'two-nodes-redis'
        ? createRedisAffinityStore({
            url: redisUrl,
            keyPrefix: settings.redisKeyPrefix ?? `tollgate-bench:${randomUUID()}:`,
          })
        : createMemoryAffinityStore();
  const gateways: TestGateway[] = [];
  // The nodes of one deployment share their secrets, so one API key has one key id (and one
  // affinity key per conversation) on every node.
  const secrets = { masterKey: randomBytes(32), hmacSecret: randomBytes(32) };
  const configFile = caseConfig(protocol, upstreams, affinityOn);
  try {
    for (let node = 0; node < nodeCount; node++)
      gateways.push(
        await startTestGateway(configFile, {
          random: seededRandom((settings.seed ?? 1) + node),
          controlPlane: createLocalControlPlane(
            parseConfigFile({ keys: [{ name: 'test', key: TEST_KEY }], ...configFile }, { LOG_LEVEL: 'silent' }),
            secrets,
          ),
          ...(store ? { affinityStore: store } : {}),
        }),
      );
    const played = await playSessions(
      gateways.map((g) => g.origin),
      protocol,
      system,
      settings,
    );
    await waitFor(() => gateways.reduce((n, g) => n + g.outcomes.length, 0) >= played.requests);
    const outcomes = gateways.flatMap((g) => g.outcomes);
    const fromOutcomes = outcomes.reduce(
      (sum, o) => ({
        input: sum.input + (o.usage?.input.total ?? 0),
        cached: sum.cached + (o.usage?.input.cacheRead ?? 0),
      }),
      { input: 0, cached: 0 },
    );
    const exchanges = upstreams.flatMap((u) => u.exchanges);
    const fromUpstreams = exchanges.reduce(
      (sum, e) => ({ input: sum.input + e.inputTokens, cached: sum.cached + e.cachedTokens }),
      { input: 0, cached: 0 },
    );
    for (const [source, totals] of [
      ['gateway outcomes', fromOutcomes],
      ['fake upstreams', fromUpstreams],
    ] as const)
      if (totals.input !== played.input || totals.cached !== played.cached)
        throw new Error(
          `cache-affinity bench (${protocol}, ${caseId}): the clients were told ${played.cached}/${played.input} cached/input tokens, the ${source} ${totals.cached}/${totals.input}`,
        );
    const count = (result: 'hit' | 'moved' | 'new'): number => outcomes.filter((o) => o.affinity === result).length;
    return {
      protocol,
      caseId,
      label: CASE_LABELS[caseId],
      requests: played.requests,
      inputTokens: played.input,
      cachedTokens: played.cached,
      hitRate: played.input === 0 ? 0 : played.cached / played.input,
      affinity: { hit: count('hit'), moved: count('moved'), new: count('new') },
    };
  } finally {
    await Promise.all(gateways.map((g) => g.close()));
    await store?.close();
    await Promise.all(upstreams.map((u) => u.close()));
  }
}

/**
 * Measures every case for every protocol (see the module doc).
 * @throws Error when a turn is not answered 200 or the clients', outcomes' and fakes' token totals differ
 */
export async function measureCacheAffinity(
  settings: CacheAffinitySettings = DEFAULT_CACHE_AFFINITY_SETTINGS,
): Promise<CacheAffinityReport> {
  const system = systemPrompt(settings.systemPromptChars ?? 12_000);
  const caseIds: CacheAffinityCaseId[] = ['single-channel', 'affinity-off', 'affinity-on', 'two-nodes-memory'];
  if (settings.redisUrl) caseIds.push('two-nodes-redis');
  const rows: CacheAffinityRow[] = [];
  for (const protocol of CACHE_AFFINITY_PROTOCOLS) {
    let reference = 0;
    for (const caseId of caseIds) {
      const row = await runCase(caseId, protocol, system, settings, settings.redisUrl);
      if (caseId === 'single-channel') reference = row.hitRate;
      const ratioToSingleChannel = reference === 0 ? 0 : row.hitRate / reference;
      const verdict: CacheAffinityRow['verdict'] =
        caseId === 'single-channel'
          ? 'reference'
          : caseId === 'affinity-off'
            ? 'baseline'
            : ratioToSingleChannel >= CACHE_AFFINITY_TARGET
              ? 'pass'
              : 'FAIL';
      rows.push({ ...row, ratioToSingleChannel, verdict });
    }
  }
  return {
    sessions: settings.sessions,
    turns: settings.turns,
    concurrency: settings.concurrency,
    target: CACHE_AFFINITY_TARGET,
    ...(settings.redisUrl ? {} : { redisSkipped: 'no REDIS_URL' }),
    rows,
    pass: rows.every((r) => r.verdict !== 'FAIL'),
  };
}

const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)} %`;

/** The report as a table: protocol, case, hit rate, ratio to one channel, affinity results, verdict. */
export function formatCacheAffinityTable(report: CacheAffinityReport): string {
  const header = ['client → channels', 'case', 'hit rate', '× one channel', 'affinity hit/moved/new', 'verdict'];
  const lines = report.rows.map((r) => [
    r.protocol,
    r.label,
    percent(r.hitRate),
    percent(r.ratioToSingleChannel),
    r.caseId === 'single-channel' || r.caseId === 'affinity-off'
      ? '–'
      : `${r.affinity.hit}/${r.affinity.moved}/${r.affinity.new}`,
    r.verdict === 'FAIL' ? `FAIL (< ${percent(report.target)})` : r.verdict,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const render = (cells: ReadonlyArray<string>): string =>
    `  ${cells.map((c, i) => (i >= 2 && i <= 3 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join('  ')}`.trimEnd();
  const notes = [
    `  ${report.sessions} sessions × ${report.turns} turns, ${report.concurrency} at a time; hit rate = cached input ÷ input tokens as the clients were told`,
    ...(report.redisSkipped ? [`  two nodes on Redis not run: ${report.redisSkipped}`] : []),
  ];
  return [render(header), ...lines.map(render), ...notes].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const redisUrl = process.env.REDIS_URL?.trim();
  void measureCacheAffinity({ ...DEFAULT_CACHE_AFFINITY_SETTINGS, ...(redisUrl ? { redisUrl } : {}) }).then(
    (report) => {
      process.stdout.write(`Prompt-cache hit rate by routing:\n${formatCacheAffinityTable(report)}\n`);
      process.exit(report.pass ? 0 : 1);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

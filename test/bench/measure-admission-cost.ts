/**
 * CPU cost of admission per request, in µs, measured in this process on the in-memory state (the
 * embedded server's engines): what a request paid before budgets existed (quotas and RPM/TPM of
 * key and user) beside what it pays with attribution (an end user and three tags from headers)
 * and with budgets (a daily team budget, a key budget and a tag budget held at admission and
 * settled after). Each case admits and settles `requests` requests after a warm-up; the figure is
 * process CPU time (user + system) / requests, the least of three runs.
 * `npx tsx test/bench/measure-admission-cost.ts` prints the table; `npm run bench` includes it.
 */
import { makeUsage } from '../../gateway/canonical/usage.ts';
import type { CanonicalRequest } from '../../gateway/canonical/request.ts';
import { channelSchema } from '../../gateway/config/config-schema.ts';
import { admitRequest, settleRequest } from '../../gateway/policy/admit-request.ts';
import { admitBudgets, settleBudgets, type BudgetAdmissionDeps } from '../../gateway/policy/budget-admission.ts';
import { attributeRequest } from '../../gateway/policy/request-attribution.ts';
import { createRequestPricer } from '../../gateway/policy/request-pricer.ts';
import { resolveChannel } from '../../gateway/routing/channel.ts';
import { createMemoryBudgetLedger } from '../../infra/state-store/memory/memory-budget-ledger.ts';
import { createMemoryRateLimiter } from '../../infra/state-store/memory/memory-rate-limiter.ts';
import { createMemoryStateStore } from '../../infra/state-store/memory/memory-state-store.ts';
import type {
  BudgetRecord,
  KeyRecord,
  TeamRecord,
  UserRecord,
} from '../../schemas/control-plane/control-plane-records.ts';

/** One measured case. */
export interface AdmissionCostRow {
  readonly label: string;
  /** Process CPU per admitted and settled request, µs. */
  readonly microsPerRequest: number;
}

const KEY: KeyRecord = {
  keyId: 'key_bench',
  publicId: 'benchbenchbe',
  digest: 'd',
  name: 'bench',
  userId: 'usr_bench',
  rpm: 1_000_000_000,
  tpm: 1_000_000_000,
  quotaNanoUsd: 1_000_000_000_000_000n,
  expiresAt: null,
  models: null,
  enabled: true,
  revokedAt: null,
  createdAt: 0,
  teamId: 'team_bench',
  tags: ['service=search'],
  rpd: null,
  tpd: null,
  modelLimits: [],
};
const USER: UserRecord = {
  userId: 'usr_bench',
  name: 'bench',
  role: 'user',
  rpm: 1_000_000_000,
  tpm: null,
  quotaNanoUsd: 1_000_000_000_000_000n,
  disabled: false,
  createdAt: 0,
  login: null,
  passwordHash: null,
};
const TEAM: TeamRecord = {
  teamId: 'team_bench',
  name: 'bench',
  rpm: null,
  tpm: null,
  rpd: null,
  tpd: null,
  models: null,
  modelLimits: [],
  tags: ['team=bench'],
  disabled: false,
  members: new Map(),
  createdAt: 0,
};
const HUGE = 1_000_000_000_000_000_000n;
const BUDGETS: BudgetRecord[] = [
  { scope: 'team', scopeId: 'team_bench', period: 'day' },
  { scope: 'key', scopeId: 'key_bench', period: 'month' },
  { scope: 'tag', scopeId: 'feature=chat', period: 'lifetime' },
].map((b, i) => ({
  budgetId: `bgt_bench${i}`,
  name: `bench ${i}`,
  scope: b.scope as BudgetRecord['scope'],
  scopeId: b.scopeId,
  limitNanoUsd: HUGE,
  limitTokens: null,
  period: b.period as BudgetRecord['period'],
  rollingMs: null,
  timeZone: 'Europe/Berlin',
  thresholds: [50, 80],
  downgradeModel: null,
  createdAt: 0,
}));
const REQUEST = {
  model: 'bench-model',
  clientFormat: 'openai-chat',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'How much does one admission cost?' }] }],
  maxOutputTokens: 256,
  stream: false,
} as unknown as CanonicalRequest;
const HEADERS = { 'x-tollgate-end-user': 'customer-42', 'x-tollgate-tags': 'feature=chat,env=prod,tier=gold' };
const USAGE = makeUsage({ inputTotal: 12, outputTotal: 40 });
const ESTIMATED_TOKENS = 12 + 256;

/**
 * CPU µs per call of `run` (awaited), the least of three runs of `requests` after a warm-up of the
 * same size: process CPU time (user + system) / requests. Shared by the in-process benches.
 */
export async function microsPerRequest(requests: number, run: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < requests; i++) await run(i);
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < requests; i++) await run(i);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / requests);
  }
  return best;
}

/** Measures the admission cases (see the module doc). */
export async function measureAdmissionCost(requests = 20_000): Promise<AdmissionCostRow[]> {
  const admission = { limiter: createMemoryRateLimiter(), spend: createMemoryStateStore() };
  const channels = [
    resolveChannel(channelSchema.parse({ id: 'c1', provider: 'openai', apiKey: 'x', models: ['bench-model'] })),
  ];
  const budgets: BudgetAdmissionDeps = {
    ledger: createMemoryBudgetLedger(),
    directory: { budgetsFor: (scope, scopeId) => BUDGETS.filter((b) => b.scope === scope && b.scopeId === scopeId) },
    pricer: createRequestPricer({
      prices: () => [
        {
          priceId: 'p',
          model: 'bench-model',
          inputPerMTok: 3,
          outputPerMTok: 15,
          effectiveFrom: '1970-01-01T00:00:00Z',
        },
      ],
      version: () => 1,
      channelsServing: () => channels,
    }),
    capsTimeZone: 'UTC',
  };
  const limits = async (): Promise<void> => {
    const admitted = await admitRequest(admission, { key: KEY, user: USER, estimatedTokens: ESTIMATED_TOKENS });
    if (!admitted.ok) throw new Error(`bench admission refused: ${admitted.error.message}`);
    await settleRequest(admission, admitted, { usage: USAGE, status: 'completed' });
  };
  const attributed = (): ReturnType<typeof attributeRequest> =>
    attributeRequest(KEY, REQUEST, HEADERS, { teamOf: () => TEAM });
  const withBudgets = async (i: number): Promise<void> => {
    const attribution = attributed();
    const held = await admitBudgets(budgets, {
      requestId: `req_${i}`,
      key: KEY,
      team: TEAM,
      endUserId: attribution.endUserId,
      tags: attribution.tags,
      model: REQUEST.model,
      inputTokens: 12,
      maxOutputTokens: 256,
    });
    if (!held.ok || !held.holds) throw new Error('bench budgets refused or held nothing');
    await limits();
    await settleBudgets(budgets, held.holds, {
      usage: USAGE,
      status: 'completed',
      upstreamModel: 'bench-model',
      channelId: 'c1',
    });
  };
  return [
    {
      label: 'quotas + RPM/TPM (key, user): before budgets',
      microsPerRequest: await microsPerRequest(requests, limits),
    },
    {
      label: '+ attribution (end user, 3 header tags + key and team tags)',
      microsPerRequest: await microsPerRequest(requests, async () => {
        attributed();
        await limits();
      }),
    },
    {
      label: '+ 3 budgets held and settled (team day, key month, tag lifetime)',
      microsPerRequest: await microsPerRequest(requests, withBudgets),
    },
  ];
}

/** The rows as a table. */
export function formatAdmissionCostTable(rows: ReadonlyArray<AdmissionCostRow>): string {
  const width = Math.max(...rows.map((r) => r.label.length));
  return rows.map((r) => `  ${r.label.padEnd(width)}  ${r.microsPerRequest.toFixed(2).padStart(7)} µs`).join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void measureAdmissionCost().then((rows) =>
    process.stdout.write(`Admission CPU per request (in-memory state):\n${formatAdmissionCostTable(rows)}\n`),
  );
}

/**
 * Compares what a replay wrote with the live projections, per group and measure:
 *
 *   consumption_log FINAL  per (key_id, model, day)           requests, input/output tokens, cost_usd
 *   billing_lines FINAL    per (key_id, upstream_model, day)  the same measures
 *
 * (day = the UTC date of occurred_at), then, for every group that differs, which requests are
 * behind it (request-differences.ts): missing from live, extra in live, or different. Differences
 * are counted as requests (a group whose requests all match still counts once). Both databases are read through one store by qualified
 * names (`db.table`), so it works with one chdb data directory as well as with a server. Money is
 * read with toString() and compared as exact decimals (chdb trims trailing zeros where ClickHouse
 * 18.16 pads to the scale, so the text is parsed, never compared).
 */
import { Decimal, type AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES } from '../../schemas/analytics/tables.ts';
import { findRequestDifferences, type ReconciledDatabases, type RequestDifferences } from './request-differences.ts';

/**
 * The tables compared, the column that names the model in each, and the day. `toDate(occurred_at,
 * 'UTC')` rather than `toDate(occurred_at)`: the latter is consumption_log's sorting-key
 * expression, and 18.16 rejects it beside FINAL ("Column 'toDate(occurred_at)' already exists").
 */
const COMPARED_TABLES = [
  { table: TABLES.consumptionLog, modelColumn: 'model', dayExpression: "toDate(occurred_at, 'UTC')" },
  { table: TABLES.billingLines, modelColumn: 'upstream_model', dayExpression: 'day' },
] as const;

const MEASURES = ['requests', 'input_tokens', 'output_tokens', 'cost_usd'] as const;
type Measure = (typeof MEASURES)[number];

/** Totals of one group: counts and tokens as integers, cost in nano-USD. */
type Totals = Readonly<Record<Measure, bigint>>;

/** One measure of a group that differs between the two sides (decimal text; cost in USD). */
export interface MeasureDifference {
  readonly measure: Measure;
  readonly live: string;
  readonly replay: string;
}

/** One key/model/day group that differs between the live and the replay database, and the requests behind it. */
export interface SpendDifference {
  readonly table: typeof TABLES.consumptionLog | typeof TABLES.billingLines;
  readonly keyId: string;
  /** consumption_log: the client's model; billing_lines: the upstream model. */
  readonly model: string;
  /** UTC date, `YYYY-MM-DD`. */
  readonly day: string;
  /** The side the group exists on when only one has it; undefined when both do. */
  readonly onlyIn?: 'live' | 'replay';
  /** The measures that differ (every measure of the present side when `onlyIn`, with the absent side as `-`). */
  readonly measures: ReadonlyArray<MeasureDifference>;
  /** The request ids behind the difference. */
  readonly requests: RequestDifferences;
  /** How many differences it counts as: its requests, at least 1. */
  readonly count: number;
  /** The group's difference in one line, for people (the request ids are listed apart). */
  readonly text: string;
}

/** Where the two sides are (request-differences.ts). */
export type ReconcileSpendOptions = ReconciledDatabases;

/** The comparison: a summary line per table and side, every differing group, and the number of differences (requests). */
export interface SpendReconciliation {
  readonly summary: ReadonlyArray<string>;
  readonly differences: ReadonlyArray<SpendDifference>;
  /** Sum of the differences' `count`: 0 when the sides agree. */
  readonly differenceCount: number;
}

/**
 * Reads both sides, lists every differing group with the requests behind it, sorted by table,
 * key, model and day.
 * @throws the store's Error (e.g. a database or table that does not exist).
 */
export async function reconcileSpend(options: ReconcileSpendOptions): Promise<SpendReconciliation> {
  const summary: string[] = [];
  const differences: SpendDifference[] = [];
  for (const spec of COMPARED_TABLES) {
    const live = await readGroups(options.analytics, options.liveDatabase, spec);
    const replay = await readGroups(options.analytics, options.replayDatabase, spec);
    summary.push(`${spec.table}: live ${describeTotals(sumGroups(live))}; replay ${describeTotals(sumGroups(replay))}`);
    const keys = [...new Set([...live.keys(), ...replay.keys()])].sort();
    for (const key of keys) {
      const compared = compareGroup(spec.table, key, live.get(key), replay.get(key));
      if (!compared) continue;
      const requests = await findRequestDifferences(options, {
        ...spec,
        keyId: compared.keyId,
        model: compared.model,
        day: compared.day,
      });
      const count = Math.max(
        1,
        requests.missingFromLive.length + requests.extraInLive.length + requests.different.length,
      );
      differences.push({ ...compared, requests, count });
    }
  }
  return { summary, differences, differenceCount: differences.reduce((sum, difference) => sum + difference.count, 0) };
}

async function readGroups(
  analytics: AnalyticsStore,
  database: string,
  spec: (typeof COMPARED_TABLES)[number],
): Promise<Map<string, Totals>> {
  // Aliases differ from column names: 18.16 substitutes an alias equal to a column inside aggregates.
  const rows = await analytics.query<{
    key_id: string;
    model_name: string;
    day_text: string;
    n_requests: string;
    n_input: string;
    n_output: string;
    cost_text: string;
  }>(
    `SELECT key_id, ${spec.modelColumn} AS model_name, toString(${spec.dayExpression}) AS day_text, toString(count()) AS n_requests, ` +
      `toString(sum(input_tokens)) AS n_input, toString(sum(output_tokens)) AS n_output, toString(sum(cost_usd)) AS cost_text ` +
      `FROM ${database}.${spec.table} FINAL GROUP BY key_id, model_name, day_text`,
  );
  const groups = new Map<string, Totals>();
  for (const row of rows) {
    groups.set(JSON.stringify([row.key_id, row.model_name, row.day_text]), {
      requests: BigInt(row.n_requests),
      input_tokens: BigInt(row.n_input),
      output_tokens: BigInt(row.n_output),
      cost_usd: decimalToNano(row.cost_text),
    });
  }
  return groups;
}

/** The group's difference without its requests, or undefined when both sides agree. */
function compareGroup(
  table: SpendDifference['table'],
  key: string,
  live: Totals | undefined,
  replay: Totals | undefined,
): Omit<SpendDifference, 'requests' | 'count'> | undefined {
  const [keyId = '', model = '', day = ''] = JSON.parse(key) as string[];
  const modelLabel = table === TABLES.consumptionLog ? 'model' : 'upstream_model';
  const where = `${table} key_id=${show(keyId)} ${modelLabel}=${show(model)} day=${day}`;
  if (!live || !replay) {
    const present = (live ?? replay) as Totals;
    const onlyIn = live ? 'live' : 'replay';
    const measures = MEASURES.map((measure) => ({
      measure,
      live: live ? formatMeasure(measure, present[measure]) : '-',
      replay: replay ? formatMeasure(measure, present[measure]) : '-',
    }));
    return {
      table,
      keyId,
      model,
      day,
      onlyIn,
      measures,
      text: `${where}: only in ${onlyIn} (${describeTotals(present)})`,
    };
  }
  const measures = MEASURES.filter((measure) => live[measure] !== replay[measure]).map((measure) => ({
    measure,
    live: formatMeasure(measure, live[measure]),
    replay: formatMeasure(measure, replay[measure]),
  }));
  if (measures.length === 0) return undefined;
  return {
    table,
    keyId,
    model,
    day,
    measures,
    text: `${where}: ${measures.map(({ measure, live: l, replay: r }) => `${measure} live ${l}, replay ${r}`).join('; ')}`,
  };
}

function sumGroups(groups: Map<string, Totals>): Totals {
  const total = { requests: 0n, input_tokens: 0n, output_tokens: 0n, cost_usd: 0n };
  for (const group of groups.values()) for (const measure of MEASURES) total[measure] += group[measure];
  return total;
}

function describeTotals(totals: Totals): string {
  return MEASURES.map((measure) => `${measure} ${formatMeasure(measure, totals[measure])}`).join(', ');
}

function formatMeasure(measure: Measure, value: bigint): string {
  return measure === 'cost_usd' ? new Decimal(value).toString() : value.toString();
}

/** A value as it reads in a line: bare when plain, JSON-quoted otherwise (empty, spaces, quotes). */
function show(value: string): string {
  return /^[\w.:@/-]+$/.test(value) ? value : JSON.stringify(value);
}

/**
 * Exact decimal text with at most 9 fractional digits (`1.5`, `1.500000000`, `-0.000000001`) →
 * nano-units. @throws Error on anything else.
 */
function decimalToNano(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!match) throw new Error(`not an exact decimal with at most 9 fractional digits: ${JSON.stringify(text)}`);
  const nano = BigInt(match[2] ?? '0') * 1_000_000_000n + BigInt((match[3] ?? '').padEnd(9, '0'));
  return match[1] === '-' ? -nano : nano;
}

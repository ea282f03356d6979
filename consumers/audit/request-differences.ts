/**
 * The requests behind one differing key/model/day group of a reconciliation (reconcile-spend.ts):
 * both databases' rows of that group, totalled per request id (rows, input and output tokens,
 * cost), compared by request id. A request is missing from live (only the replay has it), extra
 * in live (only the live side has it) or different (both have it, some total differs).
 */
import { sqlLiteral, type AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';

/** Where the two sides of a reconciliation are. */
export interface ReconciledDatabases {
  /** A store that can read both databases by qualified name. */
  readonly analytics: AnalyticsStore;
  readonly liveDatabase: string;
  readonly replayDatabase: string;
}

/** Which rows make up a group: the table, its model column and day expression, and the group's values. */
export interface GroupSelector {
  readonly table: string;
  readonly modelColumn: string;
  /** An expression of the row's UTC day, e.g. `toDate(occurred_at, 'UTC')` or `day`. */
  readonly dayExpression: string;
  readonly keyId: string;
  readonly model: string;
  /** `YYYY-MM-DD` */
  readonly day: string;
}

/** The request ids behind a group's difference, each list sorted. */
export interface RequestDifferences {
  /** In the replay database only: the live projection lost (or never got) them. */
  readonly missingFromLive: ReadonlyArray<string>;
  /** In the live database only: no event in the topics produces them (or they arrived after the replay started). */
  readonly extraInLive: ReadonlyArray<string>;
  /** In both, with different rows, tokens or cost. */
  readonly different: ReadonlyArray<string>;
}

/**
 * Compares the group's rows request by request.
 * @throws the store's Error.
 */
export async function findRequestDifferences(
  { analytics, liveDatabase, replayDatabase }: ReconciledDatabases,
  group: GroupSelector,
): Promise<RequestDifferences> {
  const [live, replay] = await Promise.all([
    readRequests(analytics, liveDatabase, group),
    readRequests(analytics, replayDatabase, group),
  ]);
  const missingFromLive: string[] = [];
  const extraInLive: string[] = [];
  const different: string[] = [];
  for (const [requestId, totals] of replay) {
    const liveTotals = live.get(requestId);
    if (liveTotals === undefined) missingFromLive.push(requestId);
    else if (liveTotals !== totals) different.push(requestId);
  }
  for (const requestId of live.keys()) if (!replay.has(requestId)) extraInLive.push(requestId);
  return { missingFromLive: missingFromLive.sort(), extraInLive: extraInLive.sort(), different: different.sort() };
}

/** request id → its totals as one comparable text (rows, tokens, and cost as an exact decimal normalised by parsing). */
async function readRequests(
  analytics: AnalyticsStore,
  database: string,
  group: GroupSelector,
): Promise<Map<string, string>> {
  // Aliases differ from column names: 18.16 substitutes an alias equal to a column inside aggregates.
  const rows = await analytics.query<{
    request_id: string;
    n_rows: string;
    n_input: string;
    n_output: string;
    cost_text: string;
  }>(
    `SELECT request_id, toString(count()) AS n_rows, toString(sum(input_tokens)) AS n_input, toString(sum(output_tokens)) AS n_output, toString(sum(cost_usd)) AS cost_text ` +
      `FROM ${database}.${group.table} FINAL ` +
      `WHERE key_id = ${sqlLiteral(group.keyId)} AND ${group.modelColumn} = ${sqlLiteral(group.model)} AND ${group.dayExpression} = toDate(${sqlLiteral(group.day)}) ` +
      `GROUP BY request_id`,
  );
  return new Map(
    rows.map((row) => [
      row.request_id,
      [row.n_rows, row.n_input, row.n_output, normalDecimal(row.cost_text)].join('|'),
    ]),
  );
}

/** `1.500000000` and `1.5` → `1.5` (chdb trims trailing zeros where ClickHouse 18.16 pads to the scale). */
function normalDecimal(text: string): string {
  const trimmed = text.trim();
  return trimmed.includes('.') ? trimmed.replace(/0+$/, '').replace(/\.$/, '') : trimmed;
}

/**
 * The lines `tollgate replay` prints for a reconciliation (reconcile-spend.ts): the summary lines,
 * then per differing group its line and, indented, the request ids behind it by kind, at most
 * `limit` per kind (the rest counted), and last `reconciliation: N differences` with N counted in
 * requests:
 *
 *   consumption_log key_id=key-a model=small-model day=2025-04-01: requests live 1, replay 2; input_tokens live 1200, replay 2000
 *     missing from live (1): req-2
 *   reconciliation: 1 difference
 */
import type { RequestDifferences } from './request-differences.ts';
import type { SpendReconciliation } from './reconcile-spend.ts';

/** How each kind of request difference is introduced. */
const KINDS: ReadonlyArray<readonly [keyof RequestDifferences, string]> = [
  ['missingFromLive', 'missing from live'],
  ['extraInLive', 'extra in live'],
  ['different', 'different'],
];

/**
 * The output lines. `limit`: request ids listed per kind and group (Infinity: all); the lines say
 * how many more there are and that `--details` lists them.
 */
export function describeReconciliation(reconciliation: SpendReconciliation, limit: number): string[] {
  const lines = [...reconciliation.summary];
  for (const difference of reconciliation.differences) {
    lines.push(difference.text);
    for (const [kind, label] of KINDS) {
      const ids = difference.requests[kind];
      if (ids.length === 0) continue;
      const shown = ids.slice(0, limit);
      const more = ids.length - shown.length;
      lines.push(
        `  ${label} (${ids.length}): ${shown.join(', ')}${more > 0 ? ` … and ${more} more (--details lists all, --limit N more)` : ''}`,
      );
    }
  }
  const count = reconciliation.differenceCount;
  lines.push(`reconciliation: ${count} difference${count === 1 ? '' : 's'}`);
  return lines;
}

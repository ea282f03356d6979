/**
 * Turns the per-request "no price" warnings of one batch into one message per distinct cause,
 * with a count, so a model missing from the price book does not log once per request.
 */

/**
 * Calls `onWarning` once per distinct warning: `<warning>: <n> request(s) costed at 0`.
 * Nulls are ignored; does nothing without `onWarning`.
 */
export function reportUnpriced(
  warnings: ReadonlyArray<string | null>,
  onWarning: ((message: string) => void) | undefined,
): void {
  if (!onWarning) return;
  const counts = new Map<string, number>();
  for (const warning of warnings) if (warning !== null) counts.set(warning, (counts.get(warning) ?? 0) + 1);
  for (const [warning, count] of counts) onWarning(`${warning}: ${count} request(s) costed at 0`);
}

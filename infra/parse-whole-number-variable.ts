/**
 * Reads an environment variable that holds a whole number in a range (sizes, counts, durations).
 */

/** The accepted range, inclusive, and the unit named in the error (e.g. `ms`, `MiB`; none for a count). */
export interface WholeNumberRange {
  readonly min: number;
  readonly max: number;
  readonly unit?: string;
}

/**
 * `text` (the value of variable `name`) as a whole number within `range`.
 * @throws Error `NAME must be a whole number [of UNIT] from MIN to MAX, got 'TEXT'` otherwise
 */
export function parseWholeNumberVariable(name: string, text: string, range: WholeNumberRange): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw new Error(
      `${name} must be a whole number${range.unit ? ` of ${range.unit}` : ''} from ${range.min} to ${range.max}, got '${text}'`,
    );
  }
  return value;
}

/** Drops keys whose value is undefined, so decoded requests and encoded bodies carry no `undefined` noise. */
export function omitUndefined<T extends object>(record: T): T {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) result[key] = value;
  return result as T;
}

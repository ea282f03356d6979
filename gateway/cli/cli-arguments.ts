/**
 * Argument plumbing for the CLI: the shape of one command (options for `util.parseArgs`, help
 * text, how to build its admin API request, how to print the answer) and the light conversions
 * from flag strings to JSON values. Values are converted, not validated: the server's commands
 * validate and answer clear errors.
 */
import type { AdminRequest } from './admin-client.ts';
import type { JsonRecord } from './admin-answer.ts';

/** A flag of one command, as `util.parseArgs` takes it, plus help text. */
export interface CliOption {
  readonly type: 'string' | 'boolean';
  /** Placeholder shown in help, e.g. `N`, `USD`, `ISO-8601`. */
  readonly value?: string;
  readonly help: string;
  /** Missing required flags are usage errors (exit 2). */
  readonly required?: boolean;
  /** The flag may be given several times (`--tag a=b --tag c=d`): its value is then a string array. */
  readonly multiple?: boolean;
}

/** Parsed flags and positionals of one invocation. */
export interface CliArgs {
  readonly positionals: ReadonlyArray<string>;
  readonly values: Readonly<Record<string, string | boolean | ReadonlyArray<string> | undefined>>;
}

/** Where a command prints. */
export interface CliOutput {
  line(text: string): void;
}

/** One `<resource> <action>` command. */
export interface CliCommand {
  /** e.g. `keys create` */
  readonly name: string;
  readonly summary: string;
  /** Positional argument names, all required, e.g. `['ID']`. */
  readonly positionals: ReadonlyArray<string>;
  readonly options: Readonly<Record<string, CliOption>>;
  /** Builds the API call. @throws UsageError for malformed flag values (e.g. `--model-map`). */
  request(args: CliArgs): AdminRequest | Promise<AdminRequest>;
  /** Prints a successful answer (a table, a summary; the new key alone on the last line); `args` as parsed. */
  print(body: JsonRecord, out: CliOutput, args?: CliArgs): void;
}

/** A usage mistake: printed with the command's help, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const NULL_WORDS = new Set(['none', 'null', 'unlimited', 'never']);

/** `--rpm 10` → 10; `none`/`null`/`unlimited` → null; anything else is passed as typed (the server rejects it). */
export function numberOrNull(text: string): number | string | null {
  if (NULL_WORDS.has(text.toLowerCase())) return null;
  return asNumber(text);
}

/** A numeric-looking flag → number; anything else unchanged (the server names the bad field). */
export function asNumber(text: string): number | string {
  return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text.trim()) ? Number(text) : text;
}

/** `--quota 12.5` → "12.5" (exact decimal string, the server converts to nano-USD); `none` → null. */
export function usdOrNull(text: string): string | null {
  return NULL_WORDS.has(text.toLowerCase()) ? null : text;
}

/** `--expires 2030-01-01T00:00:00Z` → as is; `never`/`none` → null. */
export function timeOrNull(text: string): string | null {
  return NULL_WORDS.has(text.toLowerCase()) ? null : text;
}

/** `a,b` → ['a','b'] (trimmed, empties dropped). */
export function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `--models a,b` for a key → ['a','b']; `all` → null (every model). */
export function modelsOrNull(text: string): string[] | null {
  return text.toLowerCase() === 'all' ? null : list(text);
}

/**
 * `alias=model,alias2=model2` → `{ alias: 'model', alias2: 'model2' }`.
 * @throws UsageError for an entry without `=`.
 */
export function modelMap(text: string): Record<string, string> {
  return namedValues(text, '--model-map', 'ALIAS=MODEL');
}

/**
 * `NAME=VALUE,…` → `{ NAME: VALUE }` for the flag `flag` (`--cloud region=us-east-1,auth=sigv4`,
 * `--headers X-Title=Tollgate`).
 * @throws UsageError naming the flag and the entry without `NAME=`
 */
export function namedValues(text: string, flag: string, shape = 'NAME=VALUE'): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of list(text)) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`${flag}: '${entry}' is not ${shape}`);
    map[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return map;
}

/**
 * Copies each defined flag into a request body: `mapping` is `{ flag: [bodyField, convert] }`.
 * Undefined flags are left out so the server keeps (update) or defaults (create) them.
 */
export function bodyFrom(
  values: CliArgs['values'],
  mapping: Record<string, readonly [string, (text: string) => unknown]>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [flag, [field, convert]] of Object.entries(mapping)) {
    const value = values[flag];
    if (typeof value === 'string') body[field] = convert(value);
  }
  return body;
}

/** `--enable` / `--disable` → `{ [field]: boolean }` (`invert` for fields like `disabled`). @throws UsageError when both are given. */
export function enableFlag(values: CliArgs['values'], field: string, invert = false): Record<string, boolean> {
  if (values.enable && values.disable) throw new UsageError('--enable and --disable are mutually exclusive');
  if (!values.enable && !values.disable) return {};
  const enabled = values.enable === true;
  return { [field]: invert ? !enabled : enabled };
}

/**
 * The values of a repeatable flag (CliOption.multiple): each as given; `none` alone means an
 * empty list (clears the field); undefined when the flag is absent.
 */
export function repeatedFlag(values: CliArgs['values'], flag: string): string[] | undefined {
  const value = values[flag];
  if (value === undefined || typeof value === 'boolean') return undefined;
  const given = typeof value === 'string' ? [value] : [...value];
  return given.length === 1 && NULL_WORDS.has(given[0]!.toLowerCase()) ? [] : given;
}

/** The per-model limit names `--model-limit` takes. */
const MODEL_LIMIT_NAMES = new Set(['rpm', 'tpm', 'rpd', 'tpd']);

/**
 * `MODEL:rpm=10,tpm=1000,rpd=500,tpd=100000` (any of the four) → `{ model, rpm, … }`; the model is
 * everything before the last `:`, so model names with a colon work.
 * @throws UsageError for a missing `:`, an unknown limit or an entry without `=`.
 */
export function modelLimit(text: string): Record<string, unknown> {
  const at = text.lastIndexOf(':');
  if (at <= 0) throw new UsageError(`--model-limit: '${text}' is not MODEL:rpm=N,tpm=N,rpd=N,tpd=N`);
  const limit: Record<string, unknown> = { model: text.slice(0, at) };
  for (const entry of list(text.slice(at + 1))) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, Math.max(eq, 0));
    if (eq <= 0 || !MODEL_LIMIT_NAMES.has(name))
      throw new UsageError(`--model-limit: '${entry}' is not rpm=N, tpm=N, rpd=N or tpd=N`);
    limit[name] = numberOrNull(entry.slice(eq + 1));
  }
  return limit;
}

/**
 * The body fields of the repeatable `--tag NAME=VALUE` and `--model-limit MODEL:…` flags, when
 * given (`none` clears): `{ tags?, modelLimits? }`.
 * @throws UsageError for a malformed `--model-limit`.
 */
export function tagsAndModelLimits(values: CliArgs['values']): Record<string, unknown> {
  const tags = repeatedFlag(values, 'tag');
  const limits = repeatedFlag(values, 'model-limit');
  return {
    ...(tags === undefined ? {} : { tags }),
    ...(limits === undefined ? {} : { modelLimits: limits.map(modelLimit) }),
  };
}

/** A path segment, URL-encoded. */
export function segment(text: string): string {
  return encodeURIComponent(text);
}

/**
 * The kinds of command the CLI runs against one admin API collection (`/admin/api/<collection>`),
 * built from a few facts each: list it as a table, change one item with only the flags given,
 * revoke one item with a reason, and print the record a write answers with (and, for a command
 * that mints a secret, the secret alone on the last line, so scripts can take `tail -n 1`).
 */
import {
  bodyFrom,
  enableFlag,
  segment,
  type CliArgs,
  type CliCommand,
  type CliOption,
  type CliOutput,
} from './cli-arguments.ts';
import type { AdminRequest } from './admin-client.ts';
import { recordIn, recordsIn, type JsonRecord } from './admin-answer.ts';
import { cellText, printRecord, printTable, type Column } from './cli-table.ts';

/** How flags become body fields, as `bodyFrom` takes it: `{ flag: [bodyField, convert] }`. */
export type FlagFields = Readonly<Record<string, readonly [string, (text: string) => unknown]>>;

/** The admin API path of a collection, or of one item of it (URL-encoded) and an action on it. */
export function adminPath(collection: string, id?: string, action?: string): string {
  const item = id === undefined ? '' : `/${segment(id)}`;
  return `/admin/api/${collection}${item}${action === undefined ? '' : `/${action}`}`;
}

/** What a `<resource> list` command needs to know. */
export interface ListCommandSpec {
  readonly name: string;
  readonly summary: string;
  /** e.g. `admin-tokens`: the command sends `GET /admin/api/<collection>`. */
  readonly collection: string;
  /** The answer's array of records, e.g. `adminTokens`. */
  readonly field: string;
  readonly columns: ReadonlyArray<Column<JsonRecord>>;
  /** Flags of the command (default none). */
  readonly options?: Readonly<Record<string, CliOption>>;
  /** Which records to print, given the parsed flags (default: all). */
  readonly keep?: (record: JsonRecord, args: CliArgs | undefined) => boolean;
}

/**
 * A command that lists a collection as a table (`(none)` when empty).
 * @throws Error (when printing) if the answer has no array at `spec.field`.
 */
export function listCommand(spec: ListCommandSpec): CliCommand {
  return {
    name: spec.name,
    summary: spec.summary,
    positionals: [],
    options: spec.options ?? {},
    request: () => ({ method: 'GET', path: adminPath(spec.collection) }),
    print(body, out, args) {
      const records = recordsIn(body, spec.field);
      const kept = spec.keep ? records.filter((record) => spec.keep!(record, args)) : records;
      printTable(out, kept, spec.columns);
    },
  };
}

/** What a `<resource> update ID` command needs to know. */
export interface UpdateCommandSpec {
  readonly name: string;
  readonly summary: string;
  /** e.g. `users`: the command sends `PATCH /admin/api/<collection>/<ID>`. */
  readonly collection: string;
  /** The flags that set fields, in the order help lists them. */
  readonly options: Readonly<Record<string, CliOption>>;
  readonly fields: FlagFields;
  /**
   * `--enable` / `--disable`: the body field they set (`disabled` holds the inverse of
   * `--enable`) and their help texts.
   */
  readonly switch: { readonly field: 'enabled' | 'disabled'; readonly enable: string; readonly disable: string };
  /** Body fields from flags `fields` cannot map (repeatable ones), e.g. tagsAndModelLimits. */
  readonly extraBody?: (values: CliArgs['values']) => Record<string, unknown>;
  readonly print: CliCommand['print'];
}

/**
 * A command that changes one item: only the flags given go into the body, so the server keeps
 * the rest. @throws UsageError (when building the request) for `--enable` with `--disable`, or
 * what `extraBody` throws.
 */
export function updateCommand(spec: UpdateCommandSpec): CliCommand {
  const { field, enable, disable } = spec.switch;
  return {
    name: spec.name,
    summary: spec.summary,
    positionals: ['ID'],
    options: {
      ...spec.options,
      enable: { type: 'boolean', help: enable },
      disable: { type: 'boolean', help: disable },
    },
    request: ({ positionals, values }): AdminRequest => ({
      method: 'PATCH',
      path: adminPath(spec.collection, positionals[0]),
      body: {
        ...bodyFrom(values, spec.fields),
        ...(spec.extraBody?.(values) ?? {}),
        ...enableFlag(values, field, field === 'disabled'),
      },
    }),
    print: spec.print,
  };
}

/** What a `<resource> revoke ID` command needs to know. */
export interface RevokeCommandSpec {
  readonly name: string;
  readonly summary: string;
  /** e.g. `keys`: the command sends `POST /admin/api/<collection>/<ID>/revoke`. */
  readonly collection: string;
  /** Help of `--reason`: where the reason is kept. */
  readonly reasonHelp: string;
  readonly print: CliCommand['print'];
}

/** A command that revokes one item, with an optional `--reason` (body `{ reason }`). */
export function revokeCommand(spec: RevokeCommandSpec): CliCommand {
  return {
    name: spec.name,
    summary: spec.summary,
    positionals: ['ID'],
    options: { reason: { type: 'string', value: 'TEXT', help: spec.reasonHelp } },
    request: ({ positionals, values }) => ({
      method: 'POST',
      path: adminPath(spec.collection, positionals[0], 'revoke'),
      body: bodyFrom(values, { reason: ['reason', String] }),
    }),
    print: spec.print,
  };
}

/** How to print the record a write answers with. */
export interface RecordAnswer {
  /** The answer's field holding the record, e.g. `key`. */
  readonly field: string;
  /** The first line, e.g. `created key key_…`; `body` is the whole answer. */
  readonly headline: (record: JsonRecord, body: JsonRecord) => string;
  /** The fields printed under the headline, as `name: value` lines (default: all of the record's). */
  readonly shown?: (record: JsonRecord) => Record<string, unknown>;
  /**
   * A secret the command minted, printed ALONE on the last line after a warning that it is
   * shown only once: its noun (`key`, `token`) and the answer's field holding it.
   */
  readonly secret?: { readonly noun: string; readonly field: string };
}

/**
 * A `print` for a write's answer: the headline, the record's fields, then the secret if any.
 * @throws Error (when printing) if the answer has no JSON object at `answer.field`.
 */
export function printRecordAnswer(answer: RecordAnswer): CliCommand['print'] {
  return (body: JsonRecord, out: CliOutput) => {
    const record = recordIn(body, answer.field);
    out.line(answer.headline(record, body));
    printRecord(out, answer.shown ? answer.shown(record) : record);
    if (answer.secret === undefined) return;
    out.line(`store this ${answer.secret.noun} now — it is shown only once:`);
    out.line(cellText(body[answer.secret.field]));
  };
}

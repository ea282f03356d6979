/**
 * The `tollgate` CLI: `tollgate <resource> <action> [ID] [--flags]`, parsed with node's
 * `util.parseArgs` (strict), sent to the admin API at TOLLGATE_URL (default
 * http://127.0.0.1:8080) with TOLLGATE_ADMIN_TOKEN — the gateway's bootstrap token or, better, a
 * personal admin token (`admin-tokens create`), whose name the audit then records for each change. Exit codes: 0 success, 1 API error or
 * gateway unreachable, 2 usage error. Errors go to stderr; results to stdout (`--json` prints the
 * raw answer).
 */
import { parseArgs } from 'node:util';
import { asRecord } from './admin-answer.ts';
import { AdminApiError, callAdminApi } from './admin-client.ts';
import { UsageError, type CliArgs, type CliCommand } from './cli-arguments.ts';
import { ADMIN_TOKEN_COMMANDS } from './cli-admin-token-commands.ts';
import { KEY_COMMANDS } from './cli-key-commands.ts';
import { COST_CONTROL_COMMANDS } from './cli-cost-control-commands.ts';
import { PRICE_COMMANDS } from './cli-price-commands.ts';
import { RESOURCE_COMMANDS } from './cli-resource-commands.ts';

/** Every CLI command, by `<resource> <action>` (or a single word). */
export const CLI_COMMANDS: ReadonlyArray<CliCommand> = [
  ...KEY_COMMANDS,
  ...RESOURCE_COMMANDS,
  ...COST_CONTROL_COMMANDS,
  ...PRICE_COMMANDS,
  ...ADMIN_TOKEN_COMMANDS,
];

/** Default admin API origin. */
export const DEFAULT_TOLLGATE_URL = 'http://127.0.0.1:8080';

/** The process around the CLI: environment and output streams (injected for tests). */
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  stdout(line: string): void;
  stderr(line: string): void;
}

/**
 * Runs one CLI invocation (`argv` without node and script). Never throws.
 * @returns the exit code: 0 ok, 1 API error / unreachable gateway, 2 usage error.
 */
export async function runCli(argv: ReadonlyArray<string>, io: CliIo): Promise<number> {
  const first = argv[0];
  if (first === undefined) return usage(io, 'missing command', globalHelp());
  if (first === '--help' || first === '-h' || first === 'help') return (io.stdout(globalHelp()), 0);
  const command =
    CLI_COMMANDS.find((c) => c.name === `${first} ${argv[1] ?? ''}`) ?? CLI_COMMANDS.find((c) => c.name === first);
  if (!command)
    return usage(
      io,
      `unknown command '${argv.slice(0, 2).join(' ')}'`,
      'run `tollgate --help` for the list of commands',
    );
  const rest = argv.slice(command.name.split(' ').length);
  let args: CliArgs;
  try {
    args = parseCommandArgs(command, rest);
  } catch (error) {
    return usage(io, (error as Error).message, commandHelp(command));
  }
  if (args.values.help) return (io.stdout(commandHelp(command)), 0);
  const token = io.env.TOLLGATE_ADMIN_TOKEN;
  if (!token)
    return usage(
      io,
      'TOLLGATE_ADMIN_TOKEN is not set: export your personal admin token (or the gateway’s bootstrap token)',
      '',
    );
  try {
    const request = await command.request(args);
    const body = await callAdminApi({ baseUrl: io.env.TOLLGATE_URL || DEFAULT_TOLLGATE_URL, token }, request);
    if (args.values.json) io.stdout(JSON.stringify(body, null, 2));
    else command.print(asRecord(body, 'the answer'), { line: (text) => io.stdout(text) }, args);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usage(io, error.message, commandHelp(command));
    if (error instanceof AdminApiError) {
      io.stderr(
        `error: ${error.message}${error.field ? ` (field: ${error.field})` : ''}${error.status ? ` [HTTP ${error.status}]` : ''}`,
      );
      return 1;
    }
    io.stderr(`error: ${(error as Error).message}`);
    return 1;
  }
}

/**
 * Parses `rest` for `command` (strict: unknown flags and missing values are errors) and checks
 * the positional count and required flags.
 * @throws Error / UsageError with a message naming the problem.
 */
function parseCommandArgs(command: CliCommand, rest: ReadonlyArray<string>): CliArgs {
  const options = Object.fromEntries(
    Object.entries(command.options).map(([name, o]) => [name, { type: o.type, multiple: o.multiple === true }]),
  );
  const { values, positionals } = parseArgs({
    args: [...rest],
    options: { ...options, help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  const flags = values as CliArgs['values'];
  if (flags.help) return { values: flags, positionals };
  if (positionals.length < command.positionals.length)
    throw new UsageError(`missing ${command.positionals.slice(positionals.length).join(' ')}`);
  if (positionals.length > command.positionals.length)
    throw new UsageError(`unexpected argument '${positionals[command.positionals.length]}'`);
  for (const [name, option] of Object.entries(command.options)) {
    if (option.required && flags[name] === undefined) throw new UsageError(`missing required --${name}`);
  }
  return { values: flags, positionals };
}

function usage(io: CliIo, message: string, help: string): number {
  io.stderr(`usage error: ${message}`);
  if (help) io.stderr(help);
  return 2;
}

/** `tollgate keys create --name NAME [--user ID] …` plus the option list. */
export function commandHelp(command: CliCommand): string {
  const flags = Object.entries(command.options).map(([name, o]) => {
    const flag = `${o.type === 'boolean' ? `--${name}` : `--${name} ${o.value ?? 'VALUE'}`}${o.multiple ? ' …' : ''}`;
    return o.required ? flag : `[${flag}]`;
  });
  const lines = [
    `usage: tollgate ${[command.name, ...command.positionals, ...flags].join(' ')} [--json]`,
    `  ${command.summary}`,
  ];
  const rows = Object.entries(command.options).map(
    ([name, o]) =>
      [
        o.type === 'boolean' ? `--${name}` : `--${name} ${o.value ?? 'VALUE'}`,
        `${o.help}${o.required ? ' (required)' : ''}${o.multiple ? ' (repeatable)' : ''}`,
      ] as const,
  );
  rows.push(['--json', 'print the raw JSON answer'], ['-h, --help', 'show this help']);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  lines.push('', 'options:', ...rows.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`));
  return lines.join('\n');
}

/** The command list with one-line summaries and the environment variables. */
export function globalHelp(): string {
  const width = Math.max(...CLI_COMMANDS.map((c) => c.name.length));
  return [
    'usage: tollgate <command> [ID] [--flags]   (npm run tollgate -- <command> …)',
    '',
    'commands:',
    ...CLI_COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'environment:',
    `  TOLLGATE_URL          gateway origin (default ${DEFAULT_TOLLGATE_URL})`,
    '  TOLLGATE_ADMIN_TOKEN  your personal admin token, or the gateway’s bootstrap token (required)',
    '',
    'exit codes: 0 ok, 1 API error or gateway unreachable, 2 usage error.',
    'Run `tollgate <command> --help` for a command’s flags.',
  ].join('\n');
}

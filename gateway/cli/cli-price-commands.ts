/**
 * `tollgate prices list` and `prices set`. A price set without `--effective-from` is in force from
 * the moment it is set; the gateway refuses (400, naming the winning entry) a price another entry
 * would shadow, unless `--force` is given. `prices list` marks each entry `in force`, `scheduled`
 * or `superseded`, and shows only the first two unless `--all` is given.
 */
import { bodyFrom, UsageError, type CliCommand } from './cli-arguments.ts';
import { adminPath, listCommand, printRecordAnswer } from './cli-command-kinds.ts';
import { cellText } from './cli-table.ts';

const pricesList = listCommand({
  name: 'prices list',
  summary: 'list the price entries in force and scheduled, per model and channel (USD per million tokens)',
  collection: 'prices',
  field: 'prices',
  options: { all: { type: 'boolean', help: 'also list superseded entries' } },
  keep: (p, args) => args?.values.all === true || p.status !== 'superseded',
  columns: [
    { header: 'MODEL', cell: (p) => p.model },
    { header: 'CHANNEL', cell: (p) => p.channel ?? '*' },
    { header: 'STATUS', cell: (p) => p.status },
    { header: 'INPUT', cell: (p) => p.inputPerMTok },
    { header: 'OUTPUT', cell: (p) => p.outputPerMTok },
    { header: 'CACHE READ', cell: (p) => p.cacheReadPerMTok },
    { header: 'CACHE WRITE', cell: (p) => p.cacheWritePerMTok },
    { header: 'CACHE WRITE 1H', cell: (p) => p.cacheWrite1hPerMTok },
    { header: 'FROM', cell: (p) => p.effectiveFrom },
    { header: 'PRICE ID', cell: (p) => p.priceId },
  ],
});

/**
 * A price flag's text → a JSON number. Only plain decimals (`0.27`, `12`, `-1` — the server names a
 * negative) convert; anything else (`abc`, `1e3`, `NaN`, `Infinity`) and decimals beyond 9 places,
 * which a JSON number could not carry exactly, are refused here, naming the flag.
 * @throws UsageError naming `--<flag>`.
 */
function priceNumber(flag: string): (text: string) => number {
  return (text) => {
    const match = /^-?\d+(?:\.(\d+))?$/.exec(text.trim());
    if (!match)
      throw new UsageError(`--${flag}: '${text}' is not a number: give USD per million tokens as a decimal, e.g. 0.27`);
    if ((match[1] ?? '').replace(/0+$/, '').length > 9)
      throw new UsageError(`--${flag}: '${text}' has more than 9 decimal places`);
    return Number(text);
  };
}

const PRICE_FIELDS = {
  model: ['model', String],
  channel: ['channel', String],
  input: ['inputPerMTok', priceNumber('input')],
  output: ['outputPerMTok', priceNumber('output')],
  'cache-read': ['cacheReadPerMTok', priceNumber('cache-read')],
  'cache-write': ['cacheWritePerMTok', priceNumber('cache-write')],
  'cache-write-1h': ['cacheWrite1hPerMTok', priceNumber('cache-write-1h')],
  from: ['effectiveFrom', String],
  'effective-from': ['effectiveFrom', String],
  id: ['priceId', String],
} as const;

const pricesSet: CliCommand = {
  name: 'prices set',
  summary: 'set a price (USD per million tokens), in force from now unless --effective-from says otherwise',
  positionals: [],
  options: {
    model: { type: 'string', value: 'M', help: 'upstream model name', required: true },
    channel: { type: 'string', value: 'C', help: 'only on this channel' },
    input: { type: 'string', value: 'USD', help: 'input price per million tokens', required: true },
    output: { type: 'string', value: 'USD', help: 'output price per million tokens', required: true },
    'cache-read': { type: 'string', value: 'USD', help: 'cache-read price (default: input)' },
    'cache-write': { type: 'string', value: 'USD', help: 'cache-write price, 5-minute writes (default: input)' },
    'cache-write-1h': {
      type: 'string',
      value: 'USD',
      help: 'Anthropic 1-hour cache-write price (default: --cache-write)',
    },
    from: { type: 'string', value: 'ISO', help: 'effective from, an ISO-8601 date or date-time (default: now)' },
    'effective-from': { type: 'string', value: 'ISO', help: 'same as --from' },
    id: {
      type: 'string',
      value: 'PRICE-ID',
      help: 'explicit entry id (default: model|channel|from); the same id replaces the entry',
    },
    force: { type: 'boolean', help: 'set it even though another entry wins over it (the gateway names that entry)' },
  },
  request: ({ values }) => {
    if (values.from !== undefined && values['effective-from'] !== undefined)
      throw new UsageError('--from and --effective-from are the same flag: give one');
    return {
      method: 'PUT',
      path: adminPath('prices'),
      body: { ...bodyFrom(values, PRICE_FIELDS), ...(values.force ? { force: true } : {}) },
    };
  },
  print: printRecordAnswer({
    field: 'price',
    headline: (price, body) => `${body.created ? 'set' : 'replaced'} price ${cellText(price.priceId)}`,
  }),
};

/** The `prices` commands. */
export const PRICE_COMMANDS: ReadonlyArray<CliCommand> = [pricesList, pricesSet];

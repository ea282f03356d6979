/**
 * The pino logger of every Tollgate process (gateway, `npm run consumers`, the consumer thread
 * through its parent), made by each composition root: JSON lines, or human-readable lines through
 * pino-pretty on a terminal; secrets redacted by path (https://getpino.io/#/docs/redaction).
 *
 * Output format: TOLLGATE_LOG_FORMAT=pretty|json; unset, pretty when the output stream is a TTY
 * and JSON otherwise (files, pipes, containers, log shippers).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { loopTurnLogDestination } from './loop-turn-log-destination.ts';

/** Output of the process logger: `json` (one object per line) or `pretty` (pino-pretty, for people). */
export type LogFormat = 'json' | 'pretty';

/** pino levels plus `silent`. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** What a secret is replaced with in a log line. */
export const REDACTED = '[Redacted]';

/** Request and response headers that carry credentials (every client format's key header, cookies), as path segments. */
const SECRET_HEADERS = [
  '.authorization',
  '["proxy-authorization"]',
  '["x-api-key"]',
  '["x-goog-api-key"]',
  '["api-key"]',
  '.cookie',
  '["set-cookie"]',
];
/** Fields that hold credentials (channel configs, console users, control-plane secrets). */
const SECRET_FIELDS = [
  'apiKey',
  'password',
  'passwordHash',
  'masterKey',
  'hmacSecret',
  'adminToken',
  'credential',
  // A channel's key pool (README "Key pools"): its entries hold keys.
  'credentials',
  'cookie',
  'cookies',
];
/**
 * Where a log line carries a request, an answer, an upstream call, a channel, a user or a config:
 * the line itself and these objects in it. The paths are spelled out for each of them instead of
 * a leading wildcard (`*.apiKey`): fast-redact walks every key of every line for a leading
 * wildcard, which measured about 50 µs per `request completed` line against 4 µs without.
 */
const CARRIERS = ['', 'req.', 'res.', 'request.', 'response.', 'upstream.', 'channel.', 'user.', 'config.'];

/**
 * Every path pino redacts (https://getpino.io/#/docs/redaction): the secret headers, the secret
 * fields and the URLs (whose Gemini `key` query parameter alone is masked, see redactSecret) of a
 * line and of each carrier in it, and the `key` of a parsed query.
 */
export const SECRET_LOG_PATHS: ReadonlyArray<string> = CARRIERS.flatMap((carrier) => [
  ...SECRET_HEADERS.map((header) => `${carrier}headers${header}`),
  ...SECRET_FIELDS.map((field) => `${carrier}${field}`),
  `${carrier}url`,
  `${carrier}query.key`,
]);

/** `?key=…` / `&key=…` in a URL (the Gemini API key as a query parameter). */
const KEY_QUERY_PARAMETER = /([?&]key=)[^&#]*/gi;

/**
 * pino's censor: a logged URL keeps everything but the value of its `key` query parameter; any
 * other redacted value becomes REDACTED.
 */
export function redactSecret(value: unknown, path: ReadonlyArray<string>): unknown {
  if (path[path.length - 1] === 'url' && typeof value === 'string')
    return value.replace(KEY_QUERY_PARAMETER, `$1${REDACTED}`);
  return REDACTED;
}

const LOG_LEVELS: ReadonlyArray<LogLevel> = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The level LOG_LEVEL asks for (default `info`), for processes without the gateway's config schema.
 * @throws Error naming the variable when it is not a pino level or `silent`
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv): LogLevel {
  const asked = env.LOG_LEVEL?.trim().toLowerCase() ?? '';
  if (asked === '') return 'info';
  const level = LOG_LEVELS.find((candidate) => candidate === asked);
  if (!level) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not '${env.LOG_LEVEL}'`);
  return level;
}

/**
 * The format TOLLGATE_LOG_FORMAT asks for; unset or empty: `pretty` when `output` is a TTY, else `json`.
 * @throws Error naming the variable when it holds anything but `pretty` or `json`
 */
export function logFormatFromEnv(env: NodeJS.ProcessEnv, output: { readonly isTTY?: boolean }): LogFormat {
  const asked = env.TOLLGATE_LOG_FORMAT?.trim().toLowerCase();
  if (asked === undefined || asked === '') return output.isTTY === true ? 'pretty' : 'json';
  if (asked === 'pretty' || asked === 'json') return asked;
  throw new Error(`TOLLGATE_LOG_FORMAT must be pretty or json, not '${env.TOLLGATE_LOG_FORMAT}'`);
}

/** Options of createProcessLogger. */
export interface ProcessLoggerOptions {
  /** The process's name, on every line (`tollgate`, `tollgate-consumers`). */
  readonly name: string;
  readonly level: LogLevel;
  readonly format: LogFormat;
  /**
   * Where lines go (default: stdout, the lines of one turn of the event loop in one synchronous
   * write at its end, and those pending at exit written then: loop-turn-log-destination.ts).
   */
  readonly destination?: DestinationStream;
  /** Colours in pretty output (default: when stdout is a TTY). */
  readonly colorize?: boolean;
}

/** A pino logger with the secret paths redacted and the chosen format. */
export function createProcessLogger(options: ProcessLoggerOptions): Logger {
  const settings = {
    name: options.name,
    level: options.level,
    redact: { paths: [...SECRET_LOG_PATHS], censor: redactSecret },
  };
  if (options.format === 'pretty') {
    const pretty = pinoPretty({
      colorize: options.colorize ?? process.stdout.isTTY === true,
      sync: true,
      ...(options.destination ? { destination: options.destination } : {}),
    });
    return pino(settings, pretty);
  }
  return pino(settings, options.destination ?? loopTurnLogDestination(1));
}

/** A `(level, message, extra)` log sink (gateway node, engine adapters, consumers) writing to `logger`. */
export type LevelLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  extra?: Record<string, unknown>,
) => void;

/** The `(level, message, extra)` sink the engine adapters and the consumers take, writing through `logger`. */
export function levelLogOf(logger: Logger): LevelLog {
  return (level, message, extra) => logger[level](extra ?? {}, message);
}

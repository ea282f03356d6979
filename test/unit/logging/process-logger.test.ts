/**
 * The process logger: every secret-bearing header, a Gemini `key` query parameter, channel
 * credentials, passwords and cookies are redacted by path, in JSON and pretty output, on a real
 * Fastify request over loopback; the format follows TOLLGATE_LOG_FORMAT or the terminal.
 */
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProcessLogger,
  logFormatFromEnv,
  logLevelFromEnv,
  type LogFormat,
} from '../../../infra/logging/process-logger.ts';

const SECRETS = {
  authorization: 'Bearer sk-authorization-secret-1',
  'proxy-authorization': 'Basic cHJveHktc2VjcmV0LTI=',
  'x-api-key': 'sk-ant-x-api-key-secret-3',
  'x-goog-api-key': 'AIza-goog-header-secret-4',
  'api-key': 'azure-api-key-secret-5',
  cookie: 'tollgate_session=cookie-secret-6',
};
const GEMINI_QUERY_KEY = 'AIza-query-secret-7';
const CHANNEL_API_KEY = 'sk-channel-credential-secret-8';
const POOLED_API_KEY = 'sk-pooled-credential-secret-9';
const PASSWORD = 'console-password-secret-9';
const ALL_SECRETS = [
  ...Object.values(SECRETS),
  GEMINI_QUERY_KEY,
  CHANNEL_API_KEY,
  POOLED_API_KEY,
  PASSWORD,
  'cookie-secret-6',
  'sk-authorization-secret-1',
];

/** A Writable that keeps what it was given. */
function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Serves one route that logs the request the way a careless line would: headers, URL, query, a channel and a user. */
async function logOneRequest(format: LogFormat): Promise<string> {
  const output = capture();
  const logger = createProcessLogger({
    name: 'tollgate-test',
    level: 'info',
    format,
    destination: output.stream,
    colorize: false,
  });
  const baseLogger: FastifyBaseLogger = logger;
  const server = Fastify({ loggerInstance: baseLogger });
  app = server;
  server.get('/v1beta/models/:model', async (request) => {
    request.log.info(
      {
        req: { method: request.method, url: request.url, headers: request.headers },
        headers: request.headers,
        query: request.query,
      },
      'request received',
    );
    request.log.info(
      {
        channel: { id: 'ch-visible', apiKey: CHANNEL_API_KEY, credentials: [{ id: 'k1', apiKey: POOLED_API_KEY }] },
        user: { login: 'admin-visible', password: PASSWORD },
        cookies: { tollgate_session: 'cookie-secret-6' },
      },
      'control plane',
    );
    request.log.info(
      {
        url: request.url,
        upstream: {
          url: `https://generativelanguage.googleapis.com${request.url}`,
          headers: { 'x-goog-api-key': SECRETS['x-goog-api-key'] },
        },
      },
      'upstream call',
    );
    return { ok: true };
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.server.address() as { port: number };
  const response = await fetch(
    `http://127.0.0.1:${port}/v1beta/models/gemini-x:generateContent?alt=sse&key=${GEMINI_QUERY_KEY}`,
    { headers: { ...SECRETS, 'x-visible-header': 'visible-value' } },
  );
  expect(response.status).toBe(200);
  await response.text();
  return output.text();
}

describe('the process logger', () => {
  it.each<LogFormat>(['json', 'pretty'])('redacts every secret of a logged request (%s)', async (format) => {
    const text = await logOneRequest(format);
    for (const secret of ALL_SECRETS) expect(text, `secret leaked: ${secret}`).not.toContain(secret);
    // The rest of each line is still there: the test would see a logger that drops everything.
    for (const visible of [
      'visible-value',
      'ch-visible',
      'admin-visible',
      'alt=sse',
      'gemini-x:generateContent',
      'generativelanguage.googleapis.com',
      '[Redacted]',
    ])
      expect(text).toContain(visible);
  });

  it('writes one JSON object per line, named after the process', async () => {
    const all = (await logOneRequest('json'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const lines = all.filter(
      (line) => line.reqId !== undefined && line.msg !== 'incoming request' && line.msg !== 'request completed',
    );
    expect(lines.map((line) => line.msg)).toEqual(['request received', 'control plane', 'upstream call']);
    expect(lines.every((line) => line.name === 'tollgate-test' && typeof line.reqId === 'string')).toBe(true);
    expect(lines[2]).toMatchObject({ url: '/v1beta/models/gemini-x:generateContent?alt=sse&key=[Redacted]' });
  });

  it('chooses pretty on a terminal and JSON elsewhere unless TOLLGATE_LOG_FORMAT says', () => {
    expect(logFormatFromEnv({}, { isTTY: true })).toBe('pretty');
    expect(logFormatFromEnv({}, { isTTY: false })).toBe('json');
    expect(logFormatFromEnv({}, {})).toBe('json');
    expect(logFormatFromEnv({ TOLLGATE_LOG_FORMAT: 'json' }, { isTTY: true })).toBe('json');
    expect(logFormatFromEnv({ TOLLGATE_LOG_FORMAT: 'Pretty' }, { isTTY: false })).toBe('pretty');
    expect(() => logFormatFromEnv({ TOLLGATE_LOG_FORMAT: 'xml' }, {})).toThrow(
      /TOLLGATE_LOG_FORMAT must be pretty or json/,
    );
  });

  it('reads LOG_LEVEL for processes without the gateway config (default info)', () => {
    expect(logLevelFromEnv({})).toBe('info');
    expect(logLevelFromEnv({ LOG_LEVEL: 'Debug' })).toBe('debug');
    expect(logLevelFromEnv({ LOG_LEVEL: 'silent' })).toBe('silent');
    expect(() => logLevelFromEnv({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL must be one of/);
  });
});

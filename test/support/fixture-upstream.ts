/**
 * A fake upstream provider for tests: replays recorded wire traffic from
 * `test/fixtures/upstream/<protocol>/<scenario>.(json|sse)` byte for byte. The scenario is the
 * upstream model name the gateway sends (from the body, or the Gemini URL path), so a channel's
 * `modelMap` chooses what the fake answers. It records every request it receives.
 * Special scenarios: `fail-<status>` answers that status with the protocol's error body;
 * `hang` never answers (for timeouts). Like the real APIs, it refuses an unknown top-level field or
 * an orphan tool result with a 400 (gateway/mock/strict-request-rules.ts) before any scenario.
 */
import { readFileSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { WireFormat } from '../../gateway/canonical/formats.ts';
import { refuseLikeProvider, type StrictRulesOptions } from '../../gateway/mock/strict-request-rules.ts';

export const FIXTURE_ROOT = fileURLToPath(new URL('../fixtures/upstream/', import.meta.url));

/**
 * The vendor fields DeepSeek's Chat Completions API documents beyond OpenAI's
 * (https://api-docs.deepseek.com/api/create-chat-completion: `thinking`), for a fake standing in
 * for DeepSeek on an `openai-chat` channel.
 */
export const DEEPSEEK_CHAT_FIELDS: StrictRulesOptions = { extraFields: { 'openai-chat': ['thinking'] } };

/** One request the fake received. */
export interface RecordedUpstreamRequest {
  readonly protocol: WireFormat;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A running fake upstream. */
export interface FixtureUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Base URL for a channel of `protocol`, in that protocol's SDK convention. */
  baseUrl(protocol: WireFormat): string;
  readonly requests: RecordedUpstreamRequest[];
  close(): Promise<void>;
}

/** Path to a fixture file, or undefined if it does not exist. */
export function fixturePath(
  protocol: WireFormat,
  scenario: string,
  ext: 'json' | 'sse' | 'expect.json',
): string | undefined {
  const path = `${FIXTURE_ROOT}${protocol}/${scenario}.${ext}`;
  return existsSync(path) ? path : undefined;
}

function protocolOf(path: string): WireFormat | undefined {
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  if (path.endsWith('/responses')) return 'openai-responses';
  if (path.endsWith('/v1/messages')) return 'anthropic-messages';
  if (/\/models\/.+:(generateContent|streamGenerateContent)/.test(path)) return 'gemini';
  return undefined;
}

function errorBody(protocol: WireFormat, status: number): string {
  if (protocol === 'anthropic-messages')
    return JSON.stringify({
      type: 'error',
      error: {
        type: status >= 500 ? 'api_error' : 'invalid_request_error',
        message: `fake upstream failure ${status}`,
      },
    });
  if (protocol === 'gemini')
    return JSON.stringify({
      error: {
        code: status,
        message: `fake upstream failure ${status}`,
        status: status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT',
      },
    });
  return JSON.stringify({
    error: {
      message: `fake upstream failure ${status}`,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: null,
    },
  });
}

function scenarioOf(protocol: WireFormat, path: string, body: string): { scenario: string; stream: boolean } {
  if (protocol === 'gemini') {
    const match = /\/models\/(.+):(generateContent|streamGenerateContent)/.exec(path);
    return { scenario: decodeURIComponent(match?.[1] ?? ''), stream: match?.[2] === 'streamGenerateContent' };
  }
  const parsed = JSON.parse(body) as { model?: string; stream?: boolean };
  return { scenario: parsed.model ?? '', stream: parsed.stream === true };
}

function answer(
  protocol: WireFormat,
  path: string,
  body: string,
  res: ServerResponse,
  rules: StrictRulesOptions,
): void {
  const refusal = refuseLikeProvider(protocol, path, JSON.parse(body) as unknown, rules);
  if (refusal) {
    res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
    return;
  }
  const { scenario, stream } = scenarioOf(protocol, path, body);
  if (scenario === 'hang') return;
  const fail = /^fail-(\d{3})$/.exec(scenario);
  if (fail) {
    res.writeHead(Number(fail[1]), { 'content-type': 'application/json' }).end(errorBody(protocol, Number(fail[1])));
    return;
  }
  const file = fixturePath(protocol, scenario, stream ? 'sse' : 'json');
  if (!file) {
    res.writeHead(404, { 'content-type': 'application/json' }).end(errorBody(protocol, 404));
    return;
  }
  res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
  res.end(readFileSync(file));
}

/**
 * Starts the fake on 127.0.0.1 (ephemeral port). `rules` may accept a vendor's extra fields (for a
 * fake standing in for that vendor); by default only the official API's fields pass.
 */
export async function startFixtureUpstream(rules: StrictRulesOptions = {}): Promise<FixtureUpstream> {
  const requests: RecordedUpstreamRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const protocol = protocolOf(path.split('?')[0] ?? '');
      if (!protocol) return void res.writeHead(404).end('{"error":{"message":"unknown path"}}');
      requests.push({ protocol, path, headers: req.headers, body });
      try {
        answer(protocol, path, body, res, rules);
      } catch {
        res.writeHead(500, { 'content-type': 'application/json' }).end(errorBody(protocol, 500));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: (protocol) => (protocol === 'openai-chat' || protocol === 'openai-responses' ? `${origin}/v1` : origin),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

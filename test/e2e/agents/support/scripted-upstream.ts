/**
 * A fake model provider speaking all five upstream protocols on one loopback port, scripted per
 * agent run (see plan-scripted-reply.ts): the four wire formats and Amazon Bedrock's Converse
 * (`POST /model/{modelId}/converse` and `/converse-stream`, answered in Converse's JSON and
 * ConverseStream's AWS event stream; the Bedrock fake forwards its checked Converse calls here).
 * It answers generation requests streamed or not as
 * asked, answers token-count requests, and records every request it receives with the facts
 * read from it, so a test can compare what the agent offered with what reached the upstream.
 * Like the real APIs it refuses, with their 400, an unknown top-level field or an orphan tool result
 * (gateway/mock/strict-request-rules.ts) on every endpoint, and breaks of the replay rules
 * (provider-replay-rules.ts) on generation requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UpstreamProtocol } from '../../../../gateway/canonical/formats.ts';
import { refuseLikeProviderAt } from '../../../../gateway/mock/strict-request-rules.ts';
import { encodeWireReply, type ScriptedReasoning, type ScriptedReply } from './encode-wire-reply.ts';
import { planScriptedReply, type AgentScenario } from './plan-scripted-reply.ts';
import {
  anthropicThinkingOn,
  converseThinkingOn,
  invalidRequestBody,
  IssuedSignatures,
  replayRuleViolation,
} from './provider-replay-rules.ts';
import { generationFormatOf, readWireRequest, type JsonObject, type WireRequestSummary } from './read-wire-request.ts';

/** One request the fake received. `summary`/`reply` are set for generation requests only. */
export interface UpstreamExchange {
  readonly method: string;
  readonly path: string;
  readonly format?: UpstreamProtocol;
  readonly body: unknown;
  readonly summary?: WireRequestSummary;
  readonly reply?: ScriptedReply;
  readonly status: number;
  /** Why the fake refused the request (status 400), in the provider's words. */
  readonly refusal?: string;
}

/** A running scripted upstream. */
export interface ScriptedUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Channel base URL for `protocol` in that protocol's SDK convention (`/v1` for OpenAI). */
  baseUrl(protocol: UpstreamProtocol): string;
  /** Every request received, in arrival order. */
  readonly exchanges: UpstreamExchange[];
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/**
 * Signed reasoning the protocol's current models return with an answer: Anthropic, and Claude
 * through Converse, when thinking is on; Gemini 3 always (thought signatures); Responses when
 * `include` asks for `reasoning.encrypted_content`; never for Chat Completions.
 */
function reasoningFor(
  format: UpstreamProtocol,
  body: JsonObject,
  signatures: IssuedSignatures,
): ScriptedReasoning | undefined {
  const wanted =
    (format === 'anthropic-messages' && anthropicThinkingOn(body)) ||
    (format === 'bedrock-converse' && converseThinkingOn(body)) ||
    format === 'gemini' ||
    (format === 'openai-responses' &&
      Array.isArray(body.include) &&
      body.include.includes('reasoning.encrypted_content'));
  const text = 'Planning the next step.';
  return wanted ? { text, signature: signatures.mint(text) } : undefined;
}

/** Token-count endpoints: Anthropic `count_tokens`, Gemini `countTokens`, Responses `input_tokens`. */
function countTokensAnswer(path: string): unknown {
  if (path.endsWith('/v1/messages/count_tokens')) return { input_tokens: 42 };
  if (/:countTokens$/.test(path)) return { totalTokens: 42 };
  if (path.endsWith('/v1/responses/input_tokens')) return { object: 'response.input_tokens', input_tokens: 42 };
  return undefined;
}

function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string | Uint8Array,
  headers: Readonly<Record<string, string>> = {},
): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-cache', ...headers }).end(body);
}

/** Bedrock's error type header of a 400 (restJson1, https://smithy.io/2.0/aws/protocols/aws-restjson1-protocol.html#operation-error-serialization). */
const BEDROCK_VALIDATION_HEADERS = {
  'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
};

/**
 * Starts the fake on 127.0.0.1 with an ephemeral port, answering by `scenario`. A request it
 * cannot read is answered 400 and recorded, so a malformed translation fails the test.
 */
export async function startScriptedUpstream(scenario: AgentScenario): Promise<ScriptedUpstream> {
  const exchanges: UpstreamExchange[] = [];
  const signatures = new IssuedSignatures();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const method = request.method ?? 'GET';
    readJson(request)
      .then((body) => {
        const format = generationFormatOf(path);
        const strict = method === 'POST' ? refuseLikeProviderAt(path, body) : undefined;
        if (strict) {
          const summary = format ? readWireRequest(format, path, body) : undefined;
          exchanges.push({
            method,
            path,
            ...(format ? { format } : {}),
            body,
            ...(summary ? { summary } : {}),
            status: 400,
            refusal: strict.message,
          });
          return send(response, 400, 'application/json', strict.body);
        }
        const counted = countTokensAnswer(path);
        if (counted !== undefined) {
          exchanges.push({ method, path, body, status: 200 });
          return send(response, 200, 'application/json', JSON.stringify(counted));
        }
        if (!format || method !== 'POST') {
          exchanges.push({ method, path, body, status: 404 });
          return send(
            response,
            404,
            'application/json',
            JSON.stringify({ error: { message: `scripted upstream: no route ${method} ${path}` } }),
          );
        }
        const summary = readWireRequest(format, path, body);
        const object = body as JsonObject;
        const refusal = replayRuleViolation(format, object, signatures);
        if (refusal) {
          exchanges.push({ method, path, format, body, summary, status: 400, refusal });
          return send(
            response,
            400,
            'application/json',
            invalidRequestBody(format, refusal),
            format === 'bedrock-converse' ? BEDROCK_VALIDATION_HEADERS : {},
          );
        }
        const reply = planScriptedReply(summary, scenario);
        const includeUsage = (object.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
        const encoded = encodeWireReply(format, reply, {
          model: summary.model,
          stream: summary.stream,
          includeUsage,
          reasoning: reasoningFor(format, object, signatures),
        });
        exchanges.push({ method, path, format, body, summary, reply, status: 200 });
        send(response, 200, encoded.contentType, encoded.body);
      })
      .catch((error: unknown) => {
        exchanges.push({ method, path, body: undefined, status: 400 });
        send(
          response,
          400,
          'application/json',
          JSON.stringify({ error: { message: `scripted upstream: unreadable request: ${String(error)}` } }),
        );
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: (protocol) => (protocol === 'openai-chat' || protocol === 'openai-responses' ? `${origin}/v1` : origin),
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

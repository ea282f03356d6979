/**
 * Traces end to end: with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a fake OTLP/HTTP collector, a
 * request carrying a W3C traceparent continues the caller's trace on the server span (with the
 * gateway request id as an attribute), the upstream receives a traceparent of the same trace, and
 * the collector receives the server span and the upstream client span of that trace.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ID_ATTRIBUTE, startTracing, type RunningTracing } from '../../infra/telemetry/start-tracing.ts';
import { startHeaderEchoUpstream, type HeaderEchoUpstream } from '../support/header-echo-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';

/** A span as the OTLP/HTTP JSON exporter sends it (ids in hex or base64, per encoder). */
interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: ReadonlyArray<{ key: string; value: { stringValue?: string } }>;
}

/** OTLP SpanKind (https://opentelemetry.io/docs/specs/otlp/): 2 server, 3 client. */
const SPAN_KIND = { server: 2, client: 3 } as const;
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';

/** An id as hex, whichever way the JSON encoder wrote it. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/.test(id) && (id.length === 32 || id.length === 16)
    ? id
    : Buffer.from(id, 'base64').toString('hex');
}

/** A fake OTLP/HTTP collector: keeps the spans of every POST /v1/traces (JSON). */
async function startCollector(): Promise<{ origin: string; spans: ExportedSpan[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: ExportedSpan[] }> }>;
        };
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * POSTs `body` with node:http, not fetch: fetch runs on Node's bundled undici, which the undici
 * instrumentation would also trace, adding a traceparent of its own next to the caller's.
 */
function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

let collector: Awaited<ReturnType<typeof startCollector>>;
let upstream: HeaderEchoUpstream;
let tracing: RunningTracing | undefined;
let gateway: TestGateway;
const savedEnv = { ...process.env };

beforeAll(async () => {
  collector = await startCollector();
  upstream = await startHeaderEchoUpstream({ 'x-request-id': 'req_upstream_traced' });
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.origin;
  process.env.OTEL_SERVICE_NAME = 'tollgate-tracing-test';
  tracing = await startTracing(process.env);
  gateway = await startTestGateway(
    {
      channels: [
        {
          id: 'traced-ch',
          provider: 'openai',
          protocol: 'openai-chat',
          baseUrl: `${upstream.origin}/v1`,
          apiKey: 'k',
          models: ['gpt-x'],
        },
      ],
    },
    { ...(tracing ? { instrument: tracing.instrumentApp } : {}) },
  );
});

afterAll(async () => {
  await gateway?.close();
  await tracing?.shutdown();
  process.env = savedEnv;
  await upstream?.close();
  await collector?.close();
});

describe('tracing over OTLP/HTTP', () => {
  it('continues the caller trace into the server span, the upstream call and the collector', async () => {
    expect(tracing).toBeDefined();
    const response = await post(
      `${gateway.origin}/v1/chat/completions`,
      {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        traceparent: `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`,
      },
      JSON.stringify({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(response.status).toBe(200);
    const requestId = response.headers['x-request-id'];

    expect(upstream.requests).toHaveLength(1);
    const sentUpstream = String(upstream.requests[0]?.traceparent ?? '');
    expect(sentUpstream).toMatch(new RegExp(`^00-${CALLER_TRACE_ID}-[0-9a-f]{16}-01$`));

    // Shutting down flushes the batch processor: every span of the request reaches the collector.
    await tracing?.shutdown();
    const ofTrace = collector.spans.filter((span) => hexId(span.traceId) === CALLER_TRACE_ID);
    const server = ofTrace.find((span) => span.kind === SPAN_KIND.server);
    const client = ofTrace.find((span) => span.kind === SPAN_KIND.client);
    expect(server, `spans received: ${JSON.stringify(collector.spans.map((s) => [s.name, s.kind]))}`).toBeDefined();
    expect(client).toBeDefined();
    expect(hexId(server?.parentSpanId)).toBe(CALLER_SPAN_ID);
    expect(server?.attributes?.find((a) => a.key === REQUEST_ID_ATTRIBUTE)?.value.stringValue).toBe(requestId);
    // The upstream's traceparent names the client span as its parent.
    expect(sentUpstream.split('-')[2]).toBe(hexId(client?.spanId));
  });
});

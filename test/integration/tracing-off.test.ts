/**
 * Tracing off (no OTLP endpoint, or OTEL_SDK_DISABLED / OTEL_TRACES_EXPORTER=none): nothing of the
 * OpenTelemetry SDK is loaded, no undici diagnostics channel has a subscriber, and a request that
 * carries a traceparent reaches the upstream without one.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, tracingConfigured } from '../../infra/telemetry/start-tracing.ts';
import { startHeaderEchoUpstream, type HeaderEchoUpstream } from '../support/header-echo-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';

/** The channels undici publishes on and the undici instrumentation subscribes to (https://undici.nodejs.org/#/docs/api/DiagnosticsChannel). */
const UNDICI_CHANNELS = [
  'undici:request:create',
  'undici:client:sendHeaders',
  'undici:request:headers',
  'undici:request:trailers',
  'undici:request:error',
];

/** Module files of the OpenTelemetry SDK and instrumentations loaded in this process. */
function loadedTelemetryModules(): string[] {
  return Object.keys(createRequire(import.meta.url).cache).filter((file) =>
    /@opentelemetry[\\/](sdk-|exporter-|instrumentation)|@fastify[\\/]otel/.test(file),
  );
}

let upstream: HeaderEchoUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startHeaderEchoUpstream();
  gateway = await startTestGateway({
    channels: [
      {
        id: 'plain-ch',
        provider: 'openai',
        protocol: 'openai-chat',
        baseUrl: `${upstream.origin}/v1`,
        apiKey: 'k',
        models: ['gpt-x'],
      },
    ],
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('tracing not configured', () => {
  it.each([
    ['no endpoint', {}],
    ['OTEL_SDK_DISABLED=true', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }],
    [
      'OTEL_TRACES_EXPORTER=none',
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', OTEL_TRACES_EXPORTER: 'none' },
    ],
  ])('%s: starts nothing and loads nothing', async (_case, env: NodeJS.ProcessEnv) => {
    expect(tracingConfigured(env)).toBe(false);
    expect(await startTracing(env)).toBeUndefined();
    expect(loadedTelemetryModules()).toEqual([]);
    for (const name of UNDICI_CHANNELS) expect(diagnosticsChannel.hasSubscribers(name), name).toBe(false);
  });

  it('is on with either endpoint variable', () => {
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });

  it('sends no traceparent upstream, even when the caller sent one', async () => {
    // The channel check above can fail: prove it by subscribing for a moment.
    const probe = (): void => undefined;
    diagnosticsChannel.subscribe('undici:request:create', probe);
    expect(diagnosticsChannel.hasSubscribers('undici:request:create')).toBe(true);
    diagnosticsChannel.unsubscribe('undici:request:create', probe);

    const body = JSON.stringify({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] });
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(
        `${gateway.origin}/v1/chat/completions`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TEST_KEY}`,
            'content-type': 'application/json',
            traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
          },
        },
        (incoming) => {
          incoming.resume();
          incoming.on('end', () => resolve(incoming.statusCode ?? 0));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    expect(status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.traceparent).toBeUndefined();
    expect(loadedTelemetryModules()).toEqual([]);
  });
});

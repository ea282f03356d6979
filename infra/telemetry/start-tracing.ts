/**
 * OpenTelemetry traces for a gateway process, exported over OTLP/HTTP when the standard
 * environment asks for it (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/):
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT set, and neither
 * OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none. The exporter, the sampler
 * (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; default parentbased_always_on), the batch span
 * processor (OTEL_BSP_*) and the resource (OTEL_SERVICE_NAME, default `tollgate`;
 * OTEL_RESOURCE_ATTRIBUTES) read the rest of their settings from the same variables.
 *
 * Off, nothing is loaded: the SDK and the instrumentations are imported only when tracing is
 * configured, so the request path carries no hook, no span and no context propagation.
 *
 * On: a Node tracer provider registered globally (AsyncLocalStorage context, W3C `traceparent`
 * and `baggage` propagation), @fastify/otel as a plugin for the server spans (the caller's
 * `traceparent` is continued; https://github.com/fastify/otel) and the undici instrumentation
 * for the upstream calls' client spans, which sends `traceparent` upstream
 * (https://www.npmjs.com/package/@opentelemetry/instrumentation-undici).
 */
import type { FastifyInstance } from 'fastify';

/** The span attribute naming the gateway request id (`req_…`, the x-request-id answer header). */
export const REQUEST_ID_ATTRIBUTE = 'tollgate.request_id';

/** Service name on the spans when OTEL_SERVICE_NAME is not set. */
export const DEFAULT_SERVICE_NAME = 'tollgate';

/** Tracing that runs: its Fastify plugin and its end. */
export interface RunningTracing {
  /** Registers the server-span plugin on `app`; call before any route is added (AppDeps.instrument). */
  readonly instrumentApp: (app: FastifyInstance) => Promise<void>;
  /** Stops the instrumentations, exports the spans still buffered, shuts the provider down and unregisters the globals. Idempotent. */
  shutdown(): Promise<void>;
}

/** Whether `env` asks for traces (see the module doc). */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/**
 * Starts tracing when `env` configures it, else resolves undefined without loading anything.
 * The exporter reads its endpoint and headers from process.env (the SDK's own reading).
 * @throws Error when an OpenTelemetry package cannot be loaded
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<RunningTracing | undefined> {
  if (!tracingConfigured(env)) return undefined;
  const [api, node, exporter, resources, undici, fastifyOtel] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-undici'),
    import('@fastify/otel'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new node.NodeTracerProvider({
    resource,
    spanProcessors: [new node.BatchSpanProcessor(new exporter.OTLPTraceExporter())],
  });
  provider.register();
  const upstreamCalls = new undici.UndiciInstrumentation();
  const serverSpans = new fastifyOtel.FastifyOtelInstrumentation({
    requestHook: (span, request) => span.setAttribute(REQUEST_ID_ATTRIBUTE, request.id),
  });
  let stopped: Promise<void> | undefined;
  return {
    instrumentApp: async (app) => {
      await app.register(serverSpans.plugin());
    },
    shutdown() {
      stopped ??= (async () => {
        upstreamCalls.disable();
        serverSpans.disable();
        await provider.shutdown();
        api.trace.disable();
        api.propagation.disable();
        api.context.disable();
      })();
      return stopped;
    },
  };
}

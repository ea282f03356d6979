/**
 * buildApp(config, deps) → a Fastify instance with every client route, not listening (tests
 * inject or listen on port 0; start-gateway-node.ts listens on HOST:PORT). Every collaborator is
 * made by the caller: the process's composition root through start-gateway-node.ts, or a test
 * (test/support/test-app-deps.ts fills in the usual ones).
 */
import { startIdleMemoryReducer } from './lifecycle/idle-memory-reducer.ts';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Dispatcher } from 'undici';
import { generateId } from './canonical/ids.ts';
import type { GatewayConfig } from './config/config-schema.ts';
import type { EventLog } from '../schemas/event-log/event-log.ts';
import type { StateStore } from '../schemas/state-store/state-store.ts';
import type { CredentialCooldownStore } from '../schemas/state-store/credential-cooldowns.ts';
import { CredentialPool } from './routing/credential-pool.ts';
import { createOutcomeSink } from './events/outcome-sink.ts';
import type { OutcomeSink } from './exchange/exchange-outcome.ts';
import { registerAnthropicMessagesRoutes } from './http/anthropic-messages-routes.ts';
import {
  createFrameworkErrorHandler,
  handleClientSocketError,
  installClientErrorHandlers,
} from './http/client-error-handler.ts';
import { installJsonBodyParser } from './http/json-body-parser.ts';
import { decorateClientRequests } from './http/client-route-hooks.ts';
import { registerGeminiRoutes } from './http/gemini-routes.ts';
import { registerModelsRoutes } from './http/models-routes.ts';
import { registerOpenaiChatRoutes } from './http/openai-chat-routes.ts';
import { registerOpenaiEmbeddingsRoutes } from './http/openai-embeddings-routes.ts';
import type { EmbeddingAdapters } from './upstream/embedding-adapter.ts';
import { createGeminiEmbeddingsAdapter } from './upstream/gemini-embeddings/gemini-embeddings-adapter.ts';
import { openaiEmbeddingsAdapter } from './upstream/openai-embeddings/openai-embeddings-adapter.ts';
import { bedrockEmbeddingsAdapter } from './upstream/bedrock-embeddings/bedrock-embeddings-adapter.ts';
import { azureEmbeddingsAdapter } from './upstream/azure-embeddings/azure-embeddings-adapter.ts';
import { vertexEmbeddingsAdapter } from './upstream/vertex-embeddings/vertex-embeddings-adapter.ts';
import { registerResponsesApiRoutes } from './responses-api/responses-api-routes.ts';
import type { ClientRouteServices } from './exchange/client-request.ts';
import { resolveChannel } from './routing/channel.ts';
import type { ChannelLimits } from './policy/channel-limits.ts';
import { ChannelHealthView } from './routing/channel-health-view.ts';
import { ChannelRouter, type RandomSource } from './routing/channel-router.ts';
import { createRequestPricer } from './policy/request-pricer.ts';
import type { BudgetLedger } from '../schemas/state-store/budget-ledger.ts';
import type { RateLimiter } from '../schemas/state-store/rate-limiter.ts';
import { registerAdminRoutes } from './control-plane/admin-routes.ts';
import { registerConsole } from './console/console-routes.ts';
import { ConsoleSessions } from './console/console-session.ts';
import type { AnalyticsStore } from '../schemas/analytics/analytics-store.ts';
import type { ResponseStore } from '../schemas/state-store/response-store.ts';
import type { SessionStore } from '../schemas/state-store/session-store.ts';
import type { AffinityStore } from '../schemas/state-store/affinity-store.ts';
import { DEFAULT_ROUTING_SETTINGS } from './config/routing-settings.ts';
import { createExchangeRouting } from './exchange/exchange-routing.ts';
import { InFlightBoard } from './routing/in-flight-board.ts';
import type { InFlightRegistry } from '../schemas/state-store/in-flight-registry.ts';
import type { ControlPlane } from './control-plane/local-control-plane.ts';
import { anthropicMessagesAdapter } from './upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { geminiAdapter } from './upstream/gemini/gemini-adapter.ts';
import { openaiChatAdapter } from './upstream/openai-chat/openai-chat-adapter.ts';
import { openaiResponsesAdapter } from './upstream/openai-responses/openai-responses-adapter.ts';
import { azureOpenAiSurface } from './upstream/azure-openai/azure-openai-surface.ts';
import { vertexAnthropicSurface } from './upstream/vertex-ai/vertex-anthropic-surface.ts';
import { vertexGeminiSurface } from './upstream/vertex-ai/vertex-gemini-surface.ts';
import { bedrockConverseAdapter } from './upstream/bedrock-converse/bedrock-converse-adapter.ts';
import { bedrockInvokeSurface } from './upstream/bedrock-invoke/bedrock-invoke-surface.ts';
import { CloudCredentials, type ChannelCredentialFactories } from './upstream/cloud-credentials/cloud-credentials.ts';
import { azureEntraIdCredentials } from './upstream/cloud-credentials/azure-entra-credential.ts';
import {
  vertexDefaultCredentials,
  vertexServiceAccountCredentials,
} from './upstream/cloud-credentials/google-oauth-credential.ts';
import { awsSigV4Credentials } from './upstream/cloud-credentials/aws-sigv4-credential.ts';
import type { UpstreamAdapters } from './upstream/upstream-adapter.ts';
import type { GatewayMetrics } from './metrics/gateway-metrics.ts';
import { registerMetricsRoute } from './metrics/metrics-route.ts';
import type { NodeDrain } from './lifecycle/node-drain.ts';
import type { ReadinessProbe } from './lifecycle/readiness-probe.ts';

/** Collaborators made by the caller (start-gateway-node.ts, or a test) and injected. */
export interface AppDeps {
  /** undici dispatcher for upstream calls (an Agent with keep-alive in production). */
  readonly dispatcher: Dispatcher;
  /** Base URL of the mock upstream, for channels of provider `mock` without a baseUrl. */
  readonly mockBaseUrl?: string;
  /** Receives one outcome per request, after the log line and event publishing. */
  readonly onOutcome?: OutcomeSink;
  /** Where request, usage and failover events go (none: events are not recorded). */
  readonly eventLog?: EventLog;
  /** Shared state (channel health from the feedback consumer). None: routing uses only this node's breaker-free order. */
  readonly stateStore?: StateStore;
  /** How often the shared channel health is re-read, ms (default 1000). */
  readonly healthRefreshMs?: number;
  /**
   * Cooldowns of pooled credentials shared by every node (README "Key pools"), chosen by the
   * composition root; none: each node keeps its own. The caller closes it.
   */
  readonly credentialCooldowns?: CredentialCooldownStore;
  /** Routing randomness (tests pin it). */
  readonly random?: RandomSource;
  /** Keep-alive interval for idle client streams, ms (default 15 000). */
  readonly keepAliveMs?: number;
  /**
   * The process's pino logger (made by the composition root with its redaction paths and output
   * format); each request logs through a child bound to `requestId`. None or false: silent.
   */
  readonly logger?: false | FastifyBaseLogger;
  /**
   * Registers tracing on the app before any route (the composition root's OpenTelemetry plugin);
   * none: nothing is instrumented.
   */
  readonly instrument?: (app: FastifyInstance) => Promise<void>;
  /**
   * Keys, users, channels, prices: the control plane following the event log's config topic, or
   * (tests) an in-memory one seeded from the config file (control-plane/local-control-plane.ts).
   * With an `eventLog`, pass the control plane that follows that log's config topic: its
   * `priceRevision` is stamped on every traffic event, and the consumers price with that revision
   * of the same topic (they wait for it).
   */
  readonly controlPlane: ControlPlane;
  /** RPM/TPM limiter (Redis shared by all nodes, or in-process memory), chosen by the composition root. */
  readonly limiter: RateLimiter;
  /** Per-channel RPM/TPM limits (in production: the control plane's channel limits on `limiter`, policy/channel-limits.ts). */
  readonly channelLimits: ChannelLimits;
  /** Most channels tried per request (default 4). */
  readonly maxAttempts?: number;
  /** Console sessions (Redis shared by all nodes, or in-process memory), chosen by the composition root. */
  readonly sessionStore: SessionStore;
  /**
   * Prompt-cache affinity pins (Redis shared by all nodes, or in-process memory), chosen by the
   * composition root; none: no affinity (README "Prompt-cache affinity"). The caller closes it.
   */
  readonly affinityStore?: AffinityStore;
  /** Where every node publishes its requests in flight per channel (`least-busy`); none: this node's own count. */
  readonly inFlightRegistry?: InFlightRegistry;
  /**
   * Stored Responses answers (Redis shared by all nodes, or in-process memory), chosen by the
   * composition root: `store`, `previous_response_id` and `GET`/`DELETE /v1/responses/{id}`. None:
   * nothing is stored, every `previous_response_id` is unknown (400) and every id 404s. The
   * caller closes it.
   */
  readonly responseStore?: ResponseStore;
  /** The consumption log and spend for the console (none: its usage pages answer 503). */
  readonly analytics?: AnalyticsStore;
  /** Clock for the console, ms since epoch (default Date.now). */
  readonly now?: () => number;
  /**
   * Budget windows and holds across nodes (the state store's engine); none: budgets and daily caps
   * are not enforced (the embedded and production roots always give one).
   */
  readonly budgetLedger?: BudgetLedger;
  /** Clock of budget windows, ms since epoch (tests move it across a window's end; default Date.now). */
  readonly budgetClock?: () => number;
  /**
   * Prometheus metrics served at `config.metricsPath` (the composition root's registry, with the
   * process metrics and the consumer thread's merged in). Undefined, or `config.metricsPath`
   * false: no metrics route and nothing counted.
   */
  readonly metrics: GatewayMetrics | undefined;
  /** The node's drain, begun by the composition root on SIGTERM/SIGINT. */
  readonly drain: NodeDrain;
  /** What `GET /readyz` reports (lifecycle/readiness-probe.ts). */
  readonly readiness: ReadinessProbe;
  /**
   * Credential factories of cloud channels by `<provider>/<auth>` that replace the node's own
   * (CLOUD_CREDENTIAL_FACTORIES): tests point them at fake token endpoints. None: the node's own.
   */
  readonly cloudCredentialFactories?: ChannelCredentialFactories;
}

/** Spend as read without a state store: nothing was ever counted, so every key and user stands at 0 nano-USD. */
const NO_SPEND_COUNTERS: Pick<StateStore, 'getSpend'> = { getSpend: async () => ({ keyNanoUsd: 0n, userNanoUsd: 0n }) };

/** One embedding adapter per embedding API style (gateway/upstream/embedding-adapter.ts). */
export const EMBEDDING_ADAPTERS: EmbeddingAdapters = {
  openai: openaiEmbeddingsAdapter,
  gemini: createGeminiEmbeddingsAdapter(geminiAdapter),
  bedrock: bedrockEmbeddingsAdapter,
  azure: azureEmbeddingsAdapter,
  vertex: vertexEmbeddingsAdapter,
};

/** The upstream adapters by adapter key (Channel.adapterKey): one per protocol, and the cloud surfaces'. */
export const UPSTREAM_ADAPTERS: UpstreamAdapters = {
  'openai-chat': openaiChatAdapter,
  'openai-responses': openaiResponsesAdapter,
  'anthropic-messages': anthropicMessagesAdapter,
  gemini: geminiAdapter,
  'azure:openai-chat': azureOpenAiSurface(openaiChatAdapter),
  'azure:openai-responses': azureOpenAiSurface(openaiResponsesAdapter),
  'vertex:gemini': vertexGeminiSurface(geminiAdapter),
  'vertex:anthropic-messages': vertexAnthropicSurface(anthropicMessagesAdapter),
  'bedrock-converse': bedrockConverseAdapter,
  'bedrock:bedrock-converse': bedrockConverseAdapter,
  'bedrock:anthropic-messages': bedrockInvokeSurface(anthropicMessagesAdapter),
};

/** The credential factories of cloud channels by `<provider>/<auth>`, besides the static keys CloudCredentials has itself. */
export const CLOUD_CREDENTIAL_FACTORIES: ChannelCredentialFactories = {
  'azure/entra-id': azureEntraIdCredentials(),
  'vertex/service-account': vertexServiceAccountCredentials(),
  'vertex/default-credentials': vertexDefaultCredentials(),
  'bedrock/sigv4': awsSigV4Credentials(),
};

/** Builds the gateway app. Throws if a channel cannot be resolved (config validation catches that first). */
export async function buildApp(config: GatewayConfig, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    // One id per request: Fastify's request id is the gateway's `req_…` id, in the answer's
    // x-request-id, every log line (child binding `requestId`) and the events. A client's own
    // x-request-id is never taken over (ids must be unique): requestIdHeader stays false.
    genReqId: () => generateId('req_'),
    requestIdHeader: false,
    // One log line per request comes from the outcome sink instead of Fastify's request logs.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    return503OnClosing: false,
    // Router and socket errors answered in the client's own format (client-error-handler.ts).
    frameworkErrors: createFrameworkErrorHandler(config.bodyLimit),
    clientErrorHandler: handleClientSocketError,
  });
  if (deps.instrument) await deps.instrument(app);
  // Every answer names its request, also those of routes that never reach a client handler (404, admin, console).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Any content type parses as JSON, after the nesting/size pre-scan (json-body-parser.ts).
  installJsonBodyParser(app);
  decorateClientRequests(app);
  const { controlPlane } = deps;
  const view = controlPlane.view;
  const channelsNow = () => view.channels().map((record) => resolveChannel(record.config, deps.mockBaseUrl));
  const router = new ChannelRouter(channelsNow(), deps.random);
  // Cloud channels' credentials: one client (token cache, signer) per channel, kept for the node's life.
  const upstreamAuth = new CloudCredentials({ ...CLOUD_CREDENTIAL_FACTORIES, ...deps.cloudCredentialFactories });
  // Shared health (feedback consumer → state store) plus this node's circuit breaker steer routing.
  const health = deps.stateStore
    ? new ChannelHealthView({
        store: deps.stateStore,
        channelIds: router.channels.map((c) => c.id),
        refreshMs: deps.healthRefreshMs ?? 1000,
        log: app.log,
      })
    : undefined;
  if (health) {
    router.setHealthSource(health);
    app.addHook('onReady', async () => void (await health.start()));
    app.addHook('onClose', async () => health.stop());
  }
  // Key pools: which credential an attempt uses; cooldowns shared through the store, read in the background.
  const credentialPool = new CredentialPool({
    ...(deps.credentialCooldowns ? { store: deps.credentialCooldowns } : {}),
    channelIds: router.channels.map((c) => c.id),
    refreshMs: deps.healthRefreshMs ?? 1000,
    log: app.log,
  });
  app.addHook('onReady', async () => void (await credentialPool.start()));
  app.addHook('onClose', async () => credentialPool.stop());
  // Channels added, changed or removed through the control plane take effect for the next request.
  const stopWatching = view.onChange(() => {
    router.setChannels(channelsNow());
    health?.setChannelIds(router.channels.map((c) => c.id));
    credentialPool.setChannelIds(router.channels.map((c) => c.id));
  });
  app.addHook('onClose', async () => stopWatching());
  const { limiter, channelLimits, drain, readiness } = deps;
  const metrics = config.metricsPath === false ? undefined : deps.metrics;
  if (metrics && deps.eventLog) metrics.watchEventLog(deps.eventLog);
  const pricer = createRequestPricer({
    prices: () => view.prices(),
    version: () => view.version,
    channelsServing: (model) => router.channelsServing(model),
  });
  metrics?.priceCacheReads(pricer);
  metrics?.watchCredentialPool(() =>
    router.channels.map((c) => ({ channelId: c.id, states: credentialPool.stateOf(c) })),
  );
  const onOutcome = createOutcomeSink({
    log: app.log,
    eventLog: deps.eventLog,
    priceRevision: () => view.priceRevision,
    metrics,
    onOutcome: deps.onOutcome,
  });
  // Requests in flight per channel across nodes, for `least-busy` (routing/in-flight-board.ts).
  const inFlight = new InFlightBoard({
    ...(deps.inFlightRegistry ? { registry: deps.inFlightRegistry } : {}),
    log: app.log,
  });
  app.addHook('onReady', async () => void inFlight.start());
  app.addHook('onClose', async () => inFlight.stop());
  // Garbage left by a burst of work is collected once the node goes quiet (lifecycle/idle-memory-reducer.ts).
  const memoryReducer = startIdleMemoryReducer();
  app.addHook('onClose', async () => memoryReducer.stop());
  const routing = createExchangeRouting({
    settings: config.routing ?? DEFAULT_ROUTING_SETTINGS,
    ...(deps.affinityStore ? { affinityStore: deps.affinityStore } : {}),
    ...(health ? { health } : {}),
    inFlight,
    pricer,
    log: app.log,
  });
  const services: ClientRouteServices = {
    controlPlane: { view, hmacSecret: controlPlane.secrets.hmacSecret },
    admission: { limiter, spend: deps.stateStore ?? NO_SPEND_COUNTERS, onStoreOutage: config.storeOutage },
    ...(deps.budgetLedger
      ? {
          budgets: {
            ledger: deps.budgetLedger,
            directory: view,
            pricer,
            capsTimeZone: config.budgets?.timeZone ?? 'UTC',
            ...(deps.budgetClock ? { clock: deps.budgetClock } : {}),
          },
        }
      : {}),
    exchange: {
      dispatcher: deps.dispatcher,
      router,
      adapters: UPSTREAM_ADAPTERS,
      upstreamAuth,
      log: app.log,
      keepAliveMs: deps.keepAliveMs ?? 15_000,
      requestDeadlineMs: config.requestDeadlineMs,
      drainDeadline: drain.deadlinePassed,
      onOutcome,
      channelLimits,
      credentialPool,
      ...(health ? { onAttempt: health.onAttempt } : {}),
      ...(deps.maxAttempts === undefined ? {} : { maxAttempts: deps.maxAttempts }),
      routing,
    },
    ...(deps.responseStore ? { responseStore: deps.responseStore } : {}),
    ...(metrics ? { metrics } : {}),
    attribution: {
      ...(config.attribution ? { endUserFrom: config.attribution.endUserFrom } : {}),
      teamOf: (teamId: string) => view.team(teamId),
    },
    drain,
  };
  installClientErrorHandlers(app, config.bodyLimit);
  if (metrics) registerMetricsRoute(app, metrics, config.metricsPath || '/metrics');
  app.get('/healthz', async () => ({
    status: 'ok',
    channels: router.channels.length,
    models: router.listModels().length,
  }));
  // Readiness: 200 `ready`, else 503 naming each failed check (lifecycle/readiness-probe.ts).
  app.get('/readyz', async (_request, reply) => {
    const report = await readiness.report();
    return reply
      .code(report.status === 'ready' ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(report);
  });
  registerResponsesApiRoutes(app, services);
  registerOpenaiChatRoutes(app, services);
  registerAnthropicMessagesRoutes(app, services);
  registerGeminiRoutes(app, services, EMBEDDING_ADAPTERS);
  registerOpenaiEmbeddingsRoutes(app, services, EMBEDDING_ADAPTERS);
  registerModelsRoutes(app, services, Math.floor(Date.now() / 1000));
  registerAdminRoutes(app, {
    view,
    append: (events) => controlPlane.append(events),
    secrets: controlPlane.secrets,
    adminToken: config.adminToken,
    credentialPool,
    ...(config.budgets ? { budgetTimeZone: config.budgets.timeZone } : {}),
  });
  const { sessionStore } = deps;
  await registerConsole(app, {
    view,
    append: (events) => controlPlane.append(events),
    secrets: controlPlane.secrets,
    sessions: new ConsoleSessions({ store: sessionStore, view, limiter, ...(deps.now ? { now: deps.now } : {}) }),
    dispatcher: deps.dispatcher,
    adapters: UPSTREAM_ADAPTERS,
    upstreamAuth,
    credentialPool,
    now: deps.now ?? Date.now,
    ...(deps.stateStore ? { stateStore: deps.stateStore } : {}),
    ...(deps.analytics ? { analytics: deps.analytics } : {}),
    ...(deps.mockBaseUrl ? { mockBaseUrl: deps.mockBaseUrl } : {}),
    ...(deps.budgetLedger ? { budgetLedger: deps.budgetLedger } : {}),
    ...(deps.budgetClock ? { budgetClock: deps.budgetClock } : {}),
    budgetTimeZone: config.budgets?.timeZone ?? 'UTC',
  });
  return app;
}

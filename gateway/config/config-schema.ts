/**
 * The configuration schema: one zod schema for the config file (`TOLLGATE_CONFIG`, YAML or JSON)
 * and the environment (`PORT`, `HOST`, …). Parsed once at start-up, frozen, injected.
 */
import { z } from 'zod';
import { isKnownTimeZone } from '../../schemas/control-plane/budget-periods.ts';
import { UPSTREAM_PROTOCOLS } from '../canonical/formats.ts';
import { priceBookSchema } from '../../schemas/billing/price-book.ts';
import { getProviderPreset } from '../providers/presets.ts';
import { CLOUD_AUTH_METHODS, PROVIDER_IDS, type CloudSettings } from '../providers/provider-preset.ts';
import { cloudSettingsProblems } from './cloud-settings-rules.ts';
import { DEFAULT_ROUTING_SETTINGS, routingSchema, type RoutingSettings } from './routing-settings.ts';

/** Default total deadline of one upstream attempt, ms (10 min). */
export const DEFAULT_ATTEMPT_DEADLINE_MS = 600_000;
/** Default total deadline of one client request across failover attempts, ms (15 min). */
export const DEFAULT_REQUEST_DEADLINE_MS = 900_000;

/** How long a stopping node lets requests in flight finish before it cuts them, ms (TOLLGATE_DRAIN_TIMEOUT_MS). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/**
 * Default minimum rate of a streamed upstream body: 256 bytes per 5 min after the first byte.
 * Reasoning models may stream nothing for minutes while they think (OpenAI Responses sends no
 * event during unsummarised reasoning), so the window is long; a body dripping slower than this
 * is cut, and any drip ends at the attempt deadline.
 */
export const DEFAULT_MIN_STREAM_RATE = Object.freeze({ bytes: 256, windowMs: 300_000 });

/**
 * Headers the gateway sets itself on upstream calls (credentials, framing, hop-by-hop): a
 * channel's `headers` may not name them.
 */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'x-amz-date',
  'x-amz-security-token',
  'x-amz-content-sha256',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

/** The `cloud` object of a channel (CloudSettings). */
const cloudSettingsSchema: z.ZodType<CloudSettings> = z
  .object({
    auth: z.enum(CLOUD_AUTH_METHODS).optional(),
    region: z
      .string()
      .regex(/^[a-z0-9-]+$/, 'must be a region or location name such as us-east-1 or us-central1')
      .optional(),
    project: z
      .string()
      .regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'must be a Google Cloud project id')
      .optional(),
    apiVersion: z
      .string()
      .regex(
        /^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$|^v1$|^preview$|^latest$/,
        'must be an Azure api-version such as 2024-10-21',
      )
      .optional(),
    tenantId: z.string().min(1).optional(),
    clientId: z.string().min(1).optional(),
    roleArn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:iam::[0-9]{12}:role\/.+$/,
        'must be an IAM role ARN (arn:aws:iam::123456789012:role/name)',
      )
      .optional(),
    externalId: z.string().min(1).optional(),
  })
  .strict();

/** The id rule of channels and of a channel's pooled credentials. */
const channelIdField = z
  .string()
  .min(1, 'must be a non-empty string')
  .regex(/^[A-Za-z0-9._:-]+$/, 'may contain only letters, digits, ".", "_", ":" and "-"');

/** A limit of a pooled credential: a positive integer, or null / absent for unlimited. */
const credentialLimitField = z.number().int().positive('must be a positive integer').nullable().default(null);

/**
 * One credential of a channel's key pool (README "Key pools"): its id (unique within the channel,
 * shown in the admin API, console, metrics and events), the secret `apiKey` (never logged,
 * encrypted in events), and its own `rpm` (requests per minute) and `tpm` (tokens per minute),
 * null = unlimited.
 */
export const channelCredentialSchema = z
  .object({
    id: channelIdField,
    apiKey: z.string().default(''),
    rpm: credentialLimitField,
    tpm: credentialLimitField,
  })
  .strict();

/** One pooled credential of a channel, defaults filled (channelCredentialSchema). */
export type ChannelCredentialConfig = z.infer<typeof channelCredentialSchema>;

/**
 * One upstream account: a provider, a protocol, a credential and the models it serves. The one
 * declaration of a channel's fields: routing's Channel, the control plane's ChannelRecord, the
 * ChannelUpserted mapping and the admin API's ChannelView are derived from it.
 */
export const channelSchema = z
  .object({
    id: channelIdField,
    provider: z.enum(PROVIDER_IDS),
    protocol: z.enum(UPSTREAM_PROTOCOLS).optional(),
    baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    /** The upstream credential (a secret: never logged, encrypted in events). */
    apiKey: z.string().default(''),
    /**
     * A key pool instead of `apiKey`: several credentials of one account family, each with its
     * own RPM/TPM and cooldown (README "Key pools"). Absent: the channel's one credential is
     * `apiKey` (pool member `default`).
     */
    credentials: z.array(channelCredentialSchema).min(1, 'must list at least one credential').optional(),
    /** Client-facing model names served as is. */
    models: z.array(z.string().min(1)).default([]),
    /** Client model name → upstream model name (its keys are served too). */
    modelMap: z.record(z.string().min(1), z.string().min(1)).default({}),
    /** Higher tiers are tried first. */
    priority: z.number().int().default(0),
    /** Relative share within a tier (> 0). */
    weight: z.number().positive('must be > 0').default(1),
    enabled: z.boolean().default(true),
    /** Upstream time limit to response headers and for every gap between body bytes, ms. */
    timeoutMs: z.number().int().positive().default(600_000),
    /**
     * Total time one attempt on this channel may take, from sending the request to the last byte
     * of the answer, ms (README "Deadlines"). Default 600 000 (10 min).
     */
    deadlineMs: z.number().int().positive().default(DEFAULT_ATTEMPT_DEADLINE_MS),
    /**
     * Slowest streamed body accepted: at least `bytes` in every window of `windowMs` after the
     * first body byte, or the attempt is cut (README "Deadlines"). `bytes: 0` turns it off.
     * Default 128 bytes per 60 000 ms.
     */
    minStreamRate: z
      .object({ bytes: z.number().int().min(0), windowMs: z.number().int().positive() })
      .strict()
      .default({ ...DEFAULT_MIN_STREAM_RATE }),
    /**
     * Azure, Bedrock and Vertex channels: region, project, api-version and how the channel
     * authenticates (CloudSettings; required fields per cloud in cloud-settings-rules.ts).
     */
    cloud: cloudSettingsSchema.optional(),
    /**
     * Extra request headers sent upstream on every call (not secret: shown in the console), e.g.
     * OpenRouter's attribution headers `HTTP-Referer` and `X-Title`
     * (https://openrouter.ai/docs/app-attribution). Credential, framing and hop-by-hop headers
     * are refused.
     */
    headers: z
      .record(
        z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name'),
        z.string().regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'must be a header value without control characters'),
      )
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers))
          if (RESERVED_HEADERS.has(name.toLowerCase()))
            ctx.addIssue({
              code: 'custom',
              message: `'${name}' is set by the gateway and cannot be overridden`,
              path: [name],
            });
      })
      .default({}),
    /** Mock provider only: behaviour of the built-in fake model. */
    mock: z
      .object({
        latencyMs: z.number().int().min(0).default(0),
        chunkDelayMs: z.number().int().min(0).default(0),
        failStatus: z.number().int().min(400).max(599).optional(),
      })
      .optional(),
  })
  .strict()
  .refine((c) => c.models.length > 0 || Object.keys(c.modelMap).length > 0, {
    message: 'must serve at least one model (models or modelMap)',
    path: ['models'],
  })
  .refine((c) => c.baseUrl !== undefined || !needsOwnBaseUrl(c.provider, c.protocol), {
    error: (issue) =>
      `is required for provider ${String((issue.input as { provider?: unknown }).provider)} (it has no default host)`,
    path: ['baseUrl'],
  })
  .superRefine((channel, ctx) => {
    const pool = channel.credentials;
    if (pool === undefined) {
      for (const problem of cloudSettingsProblems(channel))
        ctx.addIssue({ code: 'custom', message: problem.message, path: [...problem.path] });
      return;
    }
    if (channel.apiKey !== '')
      ctx.addIssue({
        code: 'custom',
        message: 'give either apiKey or credentials, not both (a key pool lists every key under credentials)',
        path: ['credentials'],
      });
    const seen = new Set<string>();
    pool.forEach((credential, index) => {
      if (seen.has(credential.id))
        ctx.addIssue({
          code: 'custom',
          message: `duplicate credential id '${credential.id}'`,
          path: ['credentials', index, 'id'],
        });
      seen.add(credential.id);
      // Each pooled credential must suit the cloud's auth method as a lone apiKey would.
      for (const problem of cloudSettingsProblems({ ...channel, apiKey: credential.apiKey })) {
        const path = problem.path[0] === 'apiKey' ? ['credentials', index, 'apiKey'] : [...problem.path];
        if (index === 0 || path[0] === 'credentials') ctx.addIssue({ code: 'custom', message: problem.message, path });
      }
    });
  });

/**
 * True when the provider's endpoint for `protocol` (default: its default protocol) has no default
 * base URL and no regional host (the generic compatible kinds, Azure), so a channel must give its own.
 */
function needsOwnBaseUrl(provider: (typeof PROVIDER_IDS)[number], protocol: string | undefined): boolean {
  const preset = getProviderPreset(provider);
  const endpoint = preset.endpoints[(protocol ?? preset.defaultProtocol) as keyof typeof preset.endpoints];
  return endpoint !== undefined && endpoint.baseUrl === undefined && endpoint.regionalBaseUrl === undefined;
}

/** A bootstrap API key accepted by the gateway. */
export const keySchema = z
  .object({
    name: z.string().min(1),
    key: z.string().startsWith('sk-', 'must start with "sk-"').min(8, 'is too short'),
  })
  .strict();

/**
 * Where a request's end-user id may be read, in the config's `attribution.endUserFrom`:
 * `header` — the `x-tollgate-end-user` header (any client format);
 * `safety_identifier` — OpenAI's `safety_identifier` (Chat Completions and Responses,
 * https://platform.openai.com/docs/api-reference/chat/create#chat_create-safety_identifier);
 * `user` — OpenAI's `user` (Chat Completions and Responses);
 * `metadata.user_id` — Anthropic's `metadata.user_id` (Messages,
 * https://docs.anthropic.com/en/api/messages#body-metadata).
 */
export const END_USER_SOURCES = ['header', 'safety_identifier', 'user', 'metadata.user_id'] as const;

/** One place a request's end-user id may be read (END_USER_SOURCES). */
export type EndUserSource = (typeof END_USER_SOURCES)[number];

/** The default precedence of end-user sources: the header, then `safety_identifier`, `user`, `metadata.user_id`. */
export const DEFAULT_END_USER_FROM: ReadonlyArray<EndUserSource> = END_USER_SOURCES;

/**
 * The config file's `attribution` section. `endUserFrom`: the sources of a request's end-user id,
 * first found wins (each at most once; an empty list records no end user). Default:
 * DEFAULT_END_USER_FROM.
 */
export const attributionSchema = z
  .object({
    endUserFrom: z
      .array(z.enum(END_USER_SOURCES))
      .refine((sources) => new Set(sources).size === sources.length, 'must not name a source twice')
      .default([...DEFAULT_END_USER_FROM]),
  })
  .strict();

/** How requests are attributed (the config file's `attribution` section, defaults filled). */
export interface AttributionConfig {
  readonly endUserFrom: ReadonlyArray<EndUserSource>;
}

/**
 * The config file's `budgets` section. `timeZone`: the IANA time zone of the calendar days of
 * requests/tokens per day (RPD/TPD) and of new calendar budgets that name none (default `UTC`).
 */
export const budgetsSchema = z
  .object({
    timeZone: z
      .string()
      .refine(isKnownTimeZone, {
        error: (issue) => `unknown time zone '${String(issue.input)}' (an IANA name such as UTC or Europe/Berlin)`,
      })
      .default('UTC'),
  })
  .strict();

/** Budget settings (the config file's `budgets` section, defaults filled). */
export interface BudgetsConfig {
  readonly timeZone: string;
}

/** The config file. */
export const configFileSchema = z
  .object({
    channels: z.array(channelSchema).default([]),
    keys: z.array(keySchema).default([]),
    /** USD per million tokens per upstream model (schemas/billing/price-book.ts); read by the billing and ledger consumers. */
    prices: priceBookSchema,
    /** How requests are attributed to end users (AttributionConfig). */
    attribution: attributionSchema.default({ endUserFrom: [...DEFAULT_END_USER_FROM] }),
    /** Time zone of daily caps and calendar budgets (BudgetsConfig). */
    budgets: budgetsSchema.default({ timeZone: 'UTC' }),
    /** Strategies, prompt-cache affinity, fallback chains and retries (RoutingSettings). */
    routing: routingSchema.default(DEFAULT_ROUTING_SETTINGS),
  })
  .strict()
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.channels.forEach((channel, i) => {
      if (seen.has(channel.id))
        ctx.addIssue({ code: 'custom', message: `duplicate channel id '${channel.id}'`, path: ['channels', i, 'id'] });
      seen.add(channel.id);
    });
  });

/** Listener and limits from the environment. */
export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  TOLLGATE_CONFIG: z.string().optional(),
  /** Max request body, bytes. */
  TOLLGATE_BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Where the embedded event log, spool and embedded ClickHouse (chdb) keep their files. */
  TOLLGATE_DATA_DIR: z.string().min(1).default('./data'),
  /** `in-process` runs the consumers inside the gateway; `off` leaves them to `npm run consumers`. Default: in-process without KAFKA_BROKERS, off with it. */
  TOLLGATE_CONSUMERS: z.enum(['in-process', 'off']).optional(),
  /**
   * Behind a reverse proxy or load balancer: `true` (trust X-Forwarded-For/-Proto from any peer)
   * or a comma list of the proxies' addresses/CIDRs (e.g. `10.0.0.0/8,127.0.0.1`). Decides the client address (sign-in
   * limits, logs) and whether the console's cookie is marked Secure. Unset: trust no proxy.
   */
  TOLLGATE_TRUST_PROXY: z
    .string()
    .trim()
    .min(1)
    .transform((text): boolean | string => (text === 'true' ? true : text === 'false' ? false : text))
    .optional(),
  /** Total time for one client request across its failover attempts, ms (README "Deadlines"). */
  TOLLGATE_REQUEST_DEADLINE_MS: z.coerce.number().int().positive().default(DEFAULT_REQUEST_DEADLINE_MS),
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish before they are cut, ms (README "Readiness and drain"). */
  TOLLGATE_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(DEFAULT_DRAIN_TIMEOUT_MS),
  /**
   * Most connections a node opens to one upstream origin; unset (or 0) means no cap. Streams hold
   * their connection for the whole answer, so a cap is also the most concurrent streams a node
   * relays to that origin: requests past it wait for a free connection.
   */
  TOLLGATE_UPSTREAM_CONNECTIONS: z.coerce.number().int().min(0).max(1_000_000).default(0),
  /**
   * Path of the Prometheus scrape endpoint (no API key: keep it off the public network or move it);
   * `off` removes the route. Default `/metrics`.
   */
  TOLLGATE_METRICS_PATH: z
    .union([z.literal('off'), z.string().regex(/^\/[A-Za-z0-9._~/-]*$/, 'must be a path such as /metrics, or off')])
    .default('/metrics'),
  /** Bearer token of the admin API (`/admin/api`); unset disables it. */
  TOLLGATE_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** What RPM/TPM limits of keys and users do while the state store (Redis) is unreachable: `open` admits unchecked, `closed` answers 503. */
  TOLLGATE_LIMITS_ON_STORE_OUTAGE: z.enum(['open', 'closed']).default('open'),
  /** What spend quotas do while the state store (Redis) is unreachable: `open` admits unchecked, `closed` answers 503. */
  TOLLGATE_QUOTAS_ON_STORE_OUTAGE: z.enum(['open', 'closed']).default('open'),
  KAFKA_BROKERS: z.string().min(1).optional(),
  REDIS_URL: z.string().min(1).optional(),
  /** A Redis Cluster instead of REDIS_URL: comma-separated seed nodes `host:port` (parsed and checked by the Redis adapters). */
  REDIS_CLUSTER_NODES: z.string().min(1).optional(),
  CLICKHOUSE_URL: z.string().min(1).optional(),
});

export type ChannelConfig = z.infer<typeof channelSchema>;
export type KeyConfig = z.infer<typeof keySchema>;
export type ConfigFile = z.infer<typeof configFileSchema>;

/** `open`: admit without the check (logged); `closed`: refuse with 503 and retry-after. */
export type StoreOutageResponse = 'open' | 'closed';

/**
 * What admission does per limit kind when the state store cannot answer in time (Redis down):
 * `limits` — RPM/TPM of keys and users; `quotas` — spend quotas of keys and users. Channel limits
 * always fail open: the upstream enforces its own quota.
 */
export interface StoreOutagePolicy {
  readonly limits: StoreOutageResponse;
  readonly quotas: StoreOutageResponse;
}

/** The parsed, validated configuration the app runs on. */
export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  /** Max request body size, bytes. */
  readonly bodyLimit: number;
  /** Total time for one client request across its failover attempts, ms (TOLLGATE_REQUEST_DEADLINE_MS). */
  readonly requestDeadlineMs: number;
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish before they are cut, ms (TOLLGATE_DRAIN_TIMEOUT_MS). */
  readonly drainTimeoutMs: number;
  /** Most connections per upstream origin, or undefined for no cap (TOLLGATE_UPSTREAM_CONNECTIONS). */
  readonly upstreamConnections?: number;
  readonly logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  readonly channels: ReadonlyArray<ChannelConfig>;
  readonly keys: ReadonlyArray<KeyConfig>;
  readonly prices: ReadonlyArray<ConfigFile['prices'][number]>;
  /** Data directory (embedded event log, spool, chdb). */
  readonly dataDir: string;
  /** Bearer token of the admin API; undefined disables it. */
  readonly adminToken?: string;
  /** Path of `GET /metrics` (TOLLGATE_METRICS_PATH); false: no metrics route. Default `/metrics`. */
  readonly metricsPath?: string | false;
  /** Fastify's `trustProxy` (TOLLGATE_TRUST_PROXY): false unless the gateway runs behind a proxy. */
  readonly trustProxy: boolean | string;
  /** Admission while the state store is unreachable (TOLLGATE_LIMITS_ON_STORE_OUTAGE, TOLLGATE_QUOTAS_ON_STORE_OUTAGE; both default open). */
  readonly storeOutage: StoreOutagePolicy;
  /** How requests are attributed to end users (the config file's `attribution`); absent: DEFAULT_END_USER_FROM. */
  readonly attribution?: AttributionConfig;
  /** Time zone of daily caps and calendar budgets (the config file's `budgets`); absent: UTC. */
  readonly budgets?: BudgetsConfig;
  /** Strategies, affinity, fallback chains and retries (the config file's `routing`); absent: DEFAULT_ROUTING_SETTINGS. */
  readonly routing?: RoutingSettings;
  /** Whether the consumers run inside this process. */
  readonly consumers: 'in-process' | 'off';
  readonly kafkaBrokers?: string[];
  readonly redisUrl?: string;
  /** REDIS_CLUSTER_NODES as given (a Redis Cluster's seed nodes), when set. */
  readonly redisClusterNodes?: string;
  readonly clickhouseUrl?: string;
  /** True when no config file was given and the built-in demo channel and key are in use. */
  readonly demo: boolean;
}

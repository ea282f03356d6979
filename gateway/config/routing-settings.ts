/**
 * The config file's `routing` section: how a channel is chosen among those serving a model
 * (strategy), how a conversation keeps to the channel holding its prompt cache (affinity), which
 * other models are tried when a model cannot answer (fallback chains), and how transient failures
 * are retried. Every field has a default, so a config without `routing` routes as weighted random
 * with affinity on, no fallbacks and no retries of a channel already tried. README "Routing".
 */
import { z } from 'zod';

/**
 * How channels of one priority tier are ordered for a request (README "Routing strategies"):
 * `weighted` — weighted random by channel weight (scaled down by error rate);
 * `latency` — lowest EWMA of time to first token (streamed requests) or of total time (others),
 * from the shared health feed; channels within 10 % of the best share by weight;
 * `least-busy` — fewest requests in flight on the channel across every gateway node;
 * `cost` — lowest price-book price of the request's expected tokens on the channel's upstream model.
 */
export const ROUTING_STRATEGIES = ['weighted', 'latency', 'least-busy', 'cost'] as const;

/** One routing strategy (ROUTING_STRATEGIES). */
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

/**
 * When a model's fallback chain is followed (README "Fallback chains"):
 * `unavailable` — every channel of the model failed (or was at its limit) before the first byte;
 * `context-window` — the upstream refused the request as longer than the model's context window;
 * `content-policy` — the upstream refused the request on content policy.
 */
export const FALLBACK_TRIGGERS = ['unavailable', 'context-window', 'content-policy'] as const;

/** One reason to follow a fallback chain (FALLBACK_TRIGGERS). */
export type FallbackTrigger = (typeof FALLBACK_TRIGGERS)[number];

/** Default time a conversation stays pinned to its channel after its last request, ms (5 min: Anthropic's default cache lifetime). */
export const DEFAULT_AFFINITY_TTL_MS = 300_000;

/** Default cap on an upstream Retry-After the gateway waits for before its next attempt, ms. */
export const DEFAULT_RETRY_AFTER_CAP_MS = 1_000;

/** Default first back-off before retrying a channel already tried, ms (doubled per round, full jitter). */
export const DEFAULT_RETRY_BACKOFF_BASE_MS = 250;

/** Default longest back-off before retrying a channel already tried, ms. */
export const DEFAULT_RETRY_BACKOFF_MAX_MS = 8_000;

const modelName = z.string().min(1, 'must be a non-empty model name');

/** Per model alias: its strategy and fallback chain. */
export const modelRoutingSchema = z
  .object({
    strategy: z.enum(ROUTING_STRATEGIES).optional(),
    /** Other model aliases tried in order when this one cannot answer (see `fallbackOn`). */
    fallbacks: z
      .array(modelName)
      .refine((models) => new Set(models).size === models.length, 'must not name a model twice')
      .default([]),
    /** When the chain is followed (default: only when the model is unavailable). */
    fallbackOn: z
      .array(z.enum(FALLBACK_TRIGGERS))
      .refine((triggers) => new Set(triggers).size === triggers.length, 'must not name a trigger twice')
      .default(['unavailable']),
  })
  .strict();

/** A model alias's routing (modelRoutingSchema, defaults filled). */
export type ModelRouting = z.infer<typeof modelRoutingSchema>;

/** The `routing` section of the config file. Times in ms. */
export const routingSchema = z
  .object({
    /** Strategy of every model without its own (default `weighted`). */
    strategy: z.enum(ROUTING_STRATEGIES).default('weighted'),
    affinity: z
      .object({
        /** Keep a conversation on the channel (and credential) that served it last (default true). */
        enabled: z.boolean().default(true),
        /**
         * How long a pin outlives the conversation's last request, ms. Default: the pinned
         * channel's provider's prompt-cache lifetime (PROMPT_CACHE_LIFETIME_MS), 5 min when unknown;
         * one hour when the request asks for a one-hour cache.
         */
        ttlMs: z.number().int().positive().optional(),
      })
      .strict()
      .default({ enabled: true }),
    retries: z
      .object({
        /** Rounds of retries over channels already tried that failed transiently (default 0: SDKs retry on their own). */
        maxRetries: z.number().int().min(0).max(10).default(0),
        /** First back-off of a retry round, ms; doubled per round with full jitter (default 250). */
        backoffBaseMs: z.number().int().positive().default(DEFAULT_RETRY_BACKOFF_BASE_MS),
        /** Longest back-off, ms (default 8000). */
        backoffMaxMs: z.number().int().positive().default(DEFAULT_RETRY_BACKOFF_MAX_MS),
        /** Longest upstream Retry-After waited for before the next attempt, ms; a longer one is not waited for (default 1000). */
        retryAfterCapMs: z.number().int().min(0).default(DEFAULT_RETRY_AFTER_CAP_MS),
      })
      .strict()
      .default({
        maxRetries: 0,
        backoffBaseMs: DEFAULT_RETRY_BACKOFF_BASE_MS,
        backoffMaxMs: DEFAULT_RETRY_BACKOFF_MAX_MS,
        retryAfterCapMs: DEFAULT_RETRY_AFTER_CAP_MS,
      }),
    /** Per model alias (the client-facing name): strategy and fallback chain. */
    models: z.record(modelName, modelRoutingSchema).default({}),
  })
  .strict()
  .superRefine((routing, ctx) => {
    for (const [model, settings] of Object.entries(routing.models))
      settings.fallbacks.forEach((fallback, i) => {
        if (fallback === model)
          ctx.addIssue({
            code: 'custom',
            message: `a model cannot fall back to itself`,
            path: ['models', model, 'fallbacks', i],
          });
      });
  });

/** The routing settings (the config file's `routing` section, defaults filled). */
export type RoutingSettings = z.infer<typeof routingSchema>;

/** Routing settings of a config without a `routing` section. */
export const DEFAULT_ROUTING_SETTINGS: RoutingSettings = routingSchema.parse({});

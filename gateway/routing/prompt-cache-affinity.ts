/**
 * Prompt-cache affinity: the requests of one conversation go to the channel (and key-pool
 * credential) that served it last, so the provider's prompt cache — which lives per upstream
 * account — is hit again. README "Prompt-cache affinity".
 *
 * The affinity key is what the client already sends, first found wins:
 * 1. the `x-tollgate-affinity-key` header (any client format);
 * 2. OpenAI `prompt_cache_key` (Chat Completions and Responses,
 *    https://platform.openai.com/docs/guides/prompt-caching#how-it-works);
 * 3. the session headers of coding agents: Claude Code's `x-claude-code-session-id`, Codex's
 *    `session_id` (and `conversation_id`);
 * 4. Gemini `cachedContent` (https://ai.google.dev/gemini-api/docs/caching);
 * 5. OpenAI `safety_identifier`, then `user`; Anthropic `metadata.user_id`;
 * 6. else a digest of the request's stable prefix: system prompt, tool names and the first
 *    message (a conversation's later turns only append to it), long texts sampled.
 * The key is a SHA-256 digest of (API key id, model alias, source, value): the client's text is
 * never stored, and one caller's session id never steers another caller's requests.
 */
import { createHash } from 'node:crypto';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { AffinityPin, AffinityStore } from '../../schemas/state-store/affinity-store.ts';
import { isStateStoreUnavailable } from '../../schemas/state-store/state-store-unavailable.ts';
import { DEFAULT_AFFINITY_TTL_MS } from '../config/routing-settings.ts';

/** Where an affinity key came from (the metrics' `source` label). */
export type AffinitySource = 'header' | 'prompt_cache_key' | 'agent_session' | 'cached_content' | 'end_user' | 'prefix';

/** A request's affinity key: an opaque digest (hex) and where its value came from. */
export interface AffinityKey {
  readonly key: string;
  readonly source: AffinitySource;
  /** The request asks the provider for a one-hour (or longer) cache: the pin lives at least an hour. */
  readonly longCache: boolean;
}

/** What the affinity key is read from: the client's raw body and headers, and the decoded request. */
export interface AffinityKeyInput {
  readonly keyId: string;
  readonly request: CanonicalRequest;
  readonly rawBody: Readonly<Record<string, unknown>>;
  /** Request headers, names lower-case (Node's IncomingHttpHeaders). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The header any client may send to name its conversation for affinity. */
export const AFFINITY_KEY_HEADER = 'x-tollgate-affinity-key';

/** Session headers coding agents send on every request of one session, in precedence order. */
const AGENT_SESSION_HEADERS = ['x-claude-code-session-id', 'session_id', 'conversation_id'] as const;

/** Longest client value read as an affinity key, characters (longer ones are cut before hashing). */
const MAX_VALUE_LENGTH = 512;

/** The affinity key of a request (never throws; every request has one, the prefix digest last). */
export function affinityKeyOf(input: AffinityKeyInput): AffinityKey {
  const longCache = asksForLongCache(input.rawBody);
  const found = clientValue(input);
  if (found) return { key: digest(input, found.source, found.value), source: found.source, longCache };
  return { key: digest(input, 'prefix', stablePrefix(input.request)), source: 'prefix', longCache };
}

function clientValue(input: AffinityKeyInput): { source: AffinitySource; value: string } | undefined {
  const header = headerValue(input.headers, AFFINITY_KEY_HEADER);
  if (header) return { source: 'header', value: header };
  const body = input.rawBody;
  const promptCacheKey = stringValue(body.prompt_cache_key);
  if (promptCacheKey) return { source: 'prompt_cache_key', value: promptCacheKey };
  for (const name of AGENT_SESSION_HEADERS) {
    const session = headerValue(input.headers, name);
    if (session) return { source: 'agent_session', value: `${name}=${session}` };
  }
  const cached = stringValue(body.cachedContent) ?? stringValue(body.cached_content);
  if (cached) return { source: 'cached_content', value: cached };
  const metadata = body.metadata;
  const endUser =
    stringValue(body.safety_identifier) ??
    stringValue(body.user) ??
    (typeof metadata === 'object' && metadata !== null
      ? stringValue((metadata as Record<string, unknown>).user_id)
      : undefined);
  if (endUser) return { source: 'end_user', value: endUser };
  return undefined;
}

/**
 * System prompt, tool names and first message: what stays the same across a conversation's turns.
 * Long texts are sampled (their first and last SAMPLE_CHARS characters and their length), so the
 * digest costs the same for a 200 kB prompt as for a 10 kB one: two conversations that differ only
 * in the middle of a long text share a key, which only means they share a channel.
 */
function stablePrefix(request: CanonicalRequest): string {
  const first = request.messages[0];
  const firstText = first
    ? first.content
        .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : part.type))
        .join('\u0001')
    : '';
  const toolNames = (request.tools ?? []).map((tool) => tool.name).join('\u0001');
  return [sampled(request.system ?? ''), toolNames, first?.role ?? '', sampled(firstText)].join('\u0000');
}

/** Characters kept from each end of a long text in the prefix digest. */
const SAMPLE_CHARS = 2048;

function sampled(text: string): string {
  if (text.length <= 2 * SAMPLE_CHARS) return text;
  return `${text.slice(0, SAMPLE_CHARS)}\u0002${text.length}\u0002${text.slice(-SAMPLE_CHARS)}`;
}

function digest(input: AffinityKeyInput, source: AffinitySource, value: string): string {
  return createHash('sha256')
    .update(`${input.keyId}\u0000${input.request.model}\u0000${source}\u0000${value}`)
    .digest('hex')
    .slice(0, 40);
}

function headerValue(headers: AffinityKeyInput['headers'], name: string): string | undefined {
  const raw = headers[name];
  return stringValue(Array.isArray(raw) ? raw[0] : raw);
}

function stringValue(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_VALUE_LENGTH);
}

/**
 * True when the body asks for a cache of an hour or more: an Anthropic `cache_control` with
 * `"ttl": "1h"` (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#1-hour-cache-duration)
 * or OpenAI `prompt_cache_retention: "24h"`
 * (https://platform.openai.com/docs/guides/prompt-caching#extended-prompt-cache-retention).
 */
function asksForLongCache(body: Readonly<Record<string, unknown>>): boolean {
  if (body.prompt_cache_retention === '24h') return true;
  return (
    hasOneHourCacheControl(body.system, 0) ||
    hasOneHourCacheControl(body.tools, 0) ||
    hasOneHourCacheControl(body.messages, 0)
  );
}

/** Looks for `cache_control.ttl === "1h"` in a body part, at most 4 levels deep. */
function hasOneHourCacheControl(value: unknown, depth: number): boolean {
  if (depth > 4 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => hasOneHourCacheControl(item, depth + 1));
  const record = value as Record<string, unknown>;
  const control = record.cache_control;
  if (typeof control === 'object' && control !== null && (control as Record<string, unknown>).ttl === '1h') return true;
  return hasOneHourCacheControl(record.content, depth + 1);
}

/**
 * How long providers keep a cached prefix after its last use, ms, by provider id; others:
 * DEFAULT_AFFINITY_TTL_MS (5 min).
 * - OpenAI: "cached prefixes generally remain active for 5 to 10 minutes of inactivity"
 *   (https://platform.openai.com/docs/guides/prompt-caching#how-it-works) — the longer end.
 * - Anthropic (and Claude on Bedrock and Vertex): 5 minutes, refreshed on each hit
 *   (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#how-prompt-caching-works).
 * - DeepSeek: the disk cache is cleared "within a few hours to a few days" when unused
 *   (https://api-docs.deepseek.com/guides/kv_cache) — an hour kept.
 */
export const PROMPT_CACHE_LIFETIME_MS: Readonly<Record<string, number>> = Object.freeze({
  openai: 600_000,
  azure: 600_000,
  anthropic: 300_000,
  deepseek: 3_600_000,
});

/** One hour, ms: the pin lifetime of a request asking for a one-hour cache. */
const LONG_CACHE_TTL_MS = 3_600_000;

/** What a lookup found, as the outcome and metrics record it. */
export type AffinityLookup =
  | { readonly state: 'off' }
  | { readonly state: 'unavailable'; readonly key: AffinityKey }
  | { readonly state: 'found'; readonly key: AffinityKey; readonly pin: AffinityPin }
  | { readonly state: 'none'; readonly key: AffinityKey };

/**
 * How the request's affinity ended (ExchangeOutcome.affinity): `hit` — served by its pinned
 * channel; `moved` — pinned, but another channel served (the pinned one was cooling, at its limit
 * or failed); `new` — no pin yet, now pinned; `off` — affinity disabled or unavailable.
 */
export type AffinityResult = 'hit' | 'moved' | 'new' | 'off';

/** The logger affinity writes to (pino / Fastify's logger fit). */
export interface AffinityLog {
  debug(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Settings of PromptCacheAffinity. */
export interface PromptCacheAffinityOptions {
  readonly store: AffinityStore;
  /** Fixed pin lifetime, ms; absent: by the pinned channel's provider (PROMPT_CACHE_LIFETIME_MS). */
  readonly ttlMs?: number;
  readonly log?: AffinityLog;
}

/** Looks up and records conversation pins; fail-open (a store outage routes without affinity). */
export class PromptCacheAffinity {
  constructor(private readonly options: PromptCacheAffinityOptions) {}

  /** The pin of `key`; `unavailable` when the store cannot answer. Never throws. */
  async lookup(key: AffinityKey): Promise<AffinityLookup> {
    try {
      const pin = await this.options.store.get(key.key);
      return pin ? { state: 'found', key, pin } : { state: 'none', key };
    } catch (error) {
      this.options.log?.[isStateStoreUnavailable(error) ? 'debug' : 'warn'](
        { err: error },
        'affinity store unavailable: routed without affinity',
      );
      return { state: 'unavailable', key };
    }
  }

  /**
   * Once a channel accepted the request: pins `lookup`'s key to `served` for the provider's cache
   * lifetime and tells how affinity ended. A changed pin (`new`, `moved`) is written before this
   * resolves, so the conversation's next turn finds it on any node; re-pinning an unchanged pin
   * (`hit`) slides its lifetime, as a cache hit slides the provider's, without waiting. Never
   * rejects: a store that fails is logged and the request goes on.
   */
  async remember(lookup: AffinityLookup, served: AffinityPin & { readonly provider: string }): Promise<AffinityResult> {
    if (lookup.state === 'off' || lookup.state === 'unavailable') return 'off';
    const pin: AffinityPin =
      served.credentialId === undefined
        ? { channelId: served.channelId }
        : { channelId: served.channelId, credentialId: served.credentialId };
    const result = lookup.state === 'none' ? 'new' : samePin(lookup.pin, pin) ? 'hit' : 'moved';
    const write = this.options.store
      .put(lookup.key.key, pin, this.ttlFor(lookup.key, served.provider))
      .catch((error: unknown) => {
        this.options.log?.[isStateStoreUnavailable(error) ? 'debug' : 'warn'](
          { err: error },
          'affinity pin not stored',
        );
      });
    if (result !== 'hit') await write;
    return result;
  }

  /** The pin lifetime for a request of `key` served by `provider`, ms. */
  ttlFor(key: AffinityKey, provider: string): number {
    if (this.options.ttlMs !== undefined) return this.options.ttlMs;
    const lifetime = PROMPT_CACHE_LIFETIME_MS[provider] ?? DEFAULT_AFFINITY_TTL_MS;
    return key.longCache ? Math.max(lifetime, LONG_CACHE_TTL_MS) : lifetime;
  }
}

function samePin(a: AffinityPin, b: AffinityPin): boolean {
  return a.channelId === b.channelId && a.credentialId === b.credentialId;
}

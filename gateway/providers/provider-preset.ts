/**
 * Provider presets: rows of data describing each upstream provider — the protocols it offers with
 * their base URLs and auth, and the quirks adapters must honour. Cited from
 * gateway/providers/PROVIDER-DOCS.md.
 */
import type { UpstreamProtocol } from '../canonical/formats.ts';

/** Known providers; `mock` is the built-in fake model. */
export const PROVIDER_IDS = [
  'openai',
  'anthropic',
  'gemini',
  'deepseek',
  'dashscope',
  'moonshot',
  'minimax',
  'zhipu',
  'xiaomi',
  'openai-compatible',
  'anthropic-compatible',
  'openrouter',
  'groq',
  'mistral',
  'xai',
  'together',
  'fireworks',
  'volcengine-ark',
  'siliconflow',
  'ollama',
  'vllm',
  'lmstudio',
  'mock',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/**
 * How the credential is sent: `bearer` → `Authorization: Bearer`, `x-api-key`, `x-goog-api-key`,
 * `api-key` (header names), `bearer+x-api-key` → both headers. `optional-bearer`: a server that
 * needs no key unless its operator set one (local servers: Ollama, vLLM `--api-key`, LM Studio
 * "Require Authentication"): `Authorization: Bearer` when the channel has a key, no credential
 * header otherwise, and a channel may omit the key.
 */
export type AuthScheme = 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'api-key' | 'bearer+x-api-key' | 'optional-bearer';

/**
 * One protocol a provider speaks: its default base URL (SDK convention) and auth scheme. No
 * `baseUrl`: the provider has no fixed host (the generic compatible kinds), so a channel of it must
 * give one.
 */
export interface ProviderEndpoint {
  readonly baseUrl?: string;
  readonly auth: AuthScheme;
}

/** Deviations from the protocol norm that adapters apply. All optional; absent means "standard". */
export interface ProviderQuirks {
  /** openai-chat: which field carries the output cap. Default `max_completion_tokens` for openai, `max_tokens` otherwise. */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** openai-chat: send `developer` role as `system` (most compat upstreams). */
  readonly developerAsSystem?: boolean;
  /** openai-chat: top-level body fields the upstream rejects, dropped before sending. */
  readonly dropFields?: ReadonlyArray<string>;
  /** openai-chat: reasoning arrives inline as `<think>…</think>` in `content` (MiniMax). */
  readonly thinkTagsInContent?: boolean;
  /** openai-chat: upstream accepts/needs `reasoning_content` on assistant turns in history. */
  readonly replayReasoningContent?: boolean;
  /** openai-chat: `tool_choice` other than `auto` is unsupported and degraded to `auto` (Zhipu). */
  readonly toolChoiceAutoOnly?: boolean;
  /** anthropic-messages: `max_tokens` to send when the client gave none (Anthropic requires it). */
  readonly defaultMaxTokens?: number;
  /**
   * Vendor body fields from a client of another format (`CanonicalRequest.extensions`) that this
   * provider's endpoint of a protocol accepts beyond the protocol's own fields
   * (gateway/upstream/vendor-extensions.ts). Absent: none.
   */
  readonly acceptedExtensions?: Readonly<Partial<Record<UpstreamProtocol, ReadonlyArray<string>>>>;
  /** anthropic-messages: forward the client's `anthropic-beta` header (true Anthropic only). */
  readonly forwardAnthropicBeta?: boolean;
  /** anthropic-messages: thinking signatures minted elsewhere are rejected (true Anthropic): drop unsigned/foreign thinking blocks. */
  readonly strictThinkingSignatures?: boolean;
  /** The upstream has a native token-count endpoint for this protocol. */
  readonly hasCountTokens?: boolean;
}

/** A provider preset row. */
export interface ProviderPreset {
  readonly id: ProviderId;
  readonly displayName: string;
  /** Protocols offered, with default base URLs. The first key listed is the default protocol. */
  readonly endpoints: Readonly<Partial<Record<UpstreamProtocol, ProviderEndpoint>>>;
  readonly defaultProtocol: UpstreamProtocol;
  readonly quirks: ProviderQuirks;
}

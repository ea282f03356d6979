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
  'azure',
  'bedrock',
  'vertex',
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
export type AuthScheme =
  'bearer' | 'x-api-key' | 'x-goog-api-key' | 'api-key' | 'bearer+x-api-key' | 'optional-bearer' | 'cloud-credentials';

/**
 * The clouds whose endpoints need more than a base URL and a key header: Azure OpenAI
 * (deployment URLs, `api-key` or Microsoft Entra ID tokens), Amazon Bedrock (regional hosts,
 * SigV4 signatures or Bedrock API keys, binary event streams) and Google Vertex AI (regional
 * hosts, project paths, OAuth2 access tokens). An endpoint of one uses auth `cloud-credentials`:
 * its adapter sends no credential header, and the credentials step adds the channel's credential
 * to the finished request (gateway/upstream/cloud-credentials/).
 */
export const CLOUD_SURFACES = ['azure', 'bedrock', 'vertex'] as const;

/** One cloud surface (CLOUD_SURFACES). */
export type CloudSurface = (typeof CLOUD_SURFACES)[number];

/**
 * How a cloud channel authenticates, in its `cloud.auth` (the secret itself is the channel's
 * `apiKey`, encrypted at rest like every credential):
 * - `api-key` — Azure: the resource key in the `api-key` header; Bedrock: a Bedrock API key as a
 *   bearer token (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html).
 * - `entra-id` — Azure: Microsoft Entra ID client credentials (`tenantId`, `clientId`, the client
 *   secret as `apiKey`), a bearer token for `https://cognitiveservices.azure.com/.default`.
 * - `sigv4` — Bedrock: AWS Signature Version 4 with `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`
 *   as `apiKey`, or the AWS default credential chain when `apiKey` is empty; `roleArn` assumes a role.
 * - `service-account` — Vertex: a service-account key file's JSON as `apiKey`, exchanged for
 *   OAuth2 access tokens (cached, refreshed before expiry).
 * - `default-credentials` — Vertex: Google Application Default Credentials of the gateway's host.
 */
export const CLOUD_AUTH_METHODS = ['api-key', 'entra-id', 'sigv4', 'service-account', 'default-credentials'] as const;

/** One cloud auth method (CLOUD_AUTH_METHODS). */
export type CloudAuthMethod = (typeof CLOUD_AUTH_METHODS)[number];

/**
 * A cloud channel's non-secret settings (the channel config's `cloud`). Which fields a cloud
 * requires is checked at configuration (gateway/config/config-schema.ts).
 */
export interface CloudSettings {
  /** How the channel authenticates; default per cloud: azure `api-key`, bedrock `sigv4`, vertex `service-account`. */
  readonly auth?: CloudAuthMethod;
  /** Bedrock: AWS region (`us-east-1`); Vertex: location (`us-central1`, or `global`). */
  readonly region?: string;
  /** Vertex: Google Cloud project id. */
  readonly project?: string;
  /**
   * Azure: the `api-version` of the deployment-based surface
   * (`/openai/deployments/{deployment}/…?api-version=…`); absent: the v1 surface (`/openai/v1/…`,
   * no api-version, the deployment name as `model`).
   */
  readonly apiVersion?: string;
  /** Azure `entra-id`: the directory (tenant) id. */
  readonly tenantId?: string;
  /** Azure `entra-id`: the application (client) id. */
  readonly clientId?: string;
  /** Bedrock `sigv4`: a role to assume with the channel's credentials (STS AssumeRole). */
  readonly roleArn?: string;
  /** Bedrock `sigv4` with `roleArn`: the external id the role's trust policy requires. */
  readonly externalId?: string;
}

/**
 * One protocol a provider speaks: its default base URL (SDK convention) and auth scheme. No
 * `baseUrl`: the provider has no fixed host (the generic compatible kinds), so a channel of it must
 * give one.
 */
export interface ProviderEndpoint {
  readonly baseUrl?: string;
  readonly auth: AuthScheme;
  /**
   * A regional host: `{region}` in it is replaced by the channel's `cloud.region`; `global`
   * (Vertex) uses `globalBaseUrl`. Used when the channel gives no `baseUrl`.
   */
  readonly regionalBaseUrl?: { readonly template: string; readonly globalBaseUrl?: string };
  /** The cloud whose URL scheme, framing and credentials this endpoint uses (CLOUD_SURFACES). */
  readonly surface?: CloudSurface;
  /**
   * True when a client's body of this protocol can never go upstream unchanged: the endpoint
   * wants the protocol's body reshaped (Anthropic on Bedrock and Vertex: no `model`, an
   * `anthropic_version` field) or framed otherwise, so every request is translated.
   */
  readonly reshapesBody?: true;
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
  /** The provider serves embeddings (EmbeddingSupport); absent: it serves none, and its channels are never embedding candidates. */
  readonly embeddings?: EmbeddingSupport;
}

/**
 * The embedding API an endpoint serves: `openai` — `POST {baseUrl}/embeddings`
 * (https://platform.openai.com/docs/api-reference/embeddings/create); `gemini` —
 * `POST {baseUrl}/v1beta/models/{model}:batchEmbedContents` (https://ai.google.dev/api/embeddings).
 * `azure` — the OpenAI body at Azure OpenAI's v1 or deployment paths, credential added by the cloud
 * credentials step. `bedrock` — InvokeModel `POST {baseUrl}/model/{modelId}/invoke` with the model family's own body
 * (Titan Text Embeddings, Cohere Embed), signed by the cloud credentials step. `vertex` — Vertex AI
 * `publishers/google/models/{model}:predict` with `instances`, with an OAuth2 token from that step.
 */
export type EmbeddingApiStyle = 'openai' | 'gemini' | 'bedrock' | 'azure' | 'vertex';

/** How a provider serves embeddings, from its documentation (gateway/providers/PROVIDER-DOCS.md). */
export interface EmbeddingSupport {
  /**
   * The embedding API of each of the provider's protocols that has one, at that protocol's base
   * URL; absent: `openai` for the OpenAI protocols (Chat, Responses) and `gemini` for `gemini`.
   */
  readonly apiByProtocol?: Readonly<Partial<Record<UpstreamProtocol, EmbeddingApiStyle>>>;
  /** Most inputs one upstream call may carry; a larger batch is split into several calls. Absent: no documented limit. */
  readonly maxInputsPerCall?: number;
  /** Per-model overrides of `maxInputsPerCall`: the first entry whose `modelIncludes` is in the upstream model id wins. */
  readonly maxInputsPerCallByModel?: ReadonlyArray<{
    readonly modelIncludes: string;
    readonly maxInputsPerCall: number;
  }>;
  /** Most input tokens (summed over the inputs) one upstream call may carry (tokens, estimated by the gateway's tokenizer). */
  readonly maxInputTokensPerCall?: number;
  /** The OpenAI-style endpoint takes `input` as token-id arrays; absent: only text (token ids are refused by name). */
  readonly acceptsTokenIds?: boolean;
  /** Body field carrying the vector length asked for; default `dimensions` (Mistral: `output_dimension`). */
  readonly dimensionsField?: 'dimensions' | 'output_dimension';
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

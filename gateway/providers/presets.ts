/**
 * The provider preset table. Base URLs and auth per gateway/providers/PROVIDER-DOCS.md
 * (endpoint matrix), quirks per the provider documents listed there. International hosts are the defaults; a channel's
 * `baseUrl` overrides them (e.g. China-region hosts).
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import type { ProviderId, ProviderPreset, ProviderQuirks } from './provider-preset.ts';

/**
 * Fields of OpenAI's own platform (stored completions, service tiers, safety identifiers, prompt
 * cache keys, metadata) that most OpenAI-compatible servers reject with a 400: their presets drop
 * them before sending.
 */
const OPENAI_PLATFORM_FIELDS: ReadonlyArray<string> = [
  'store',
  'service_tier',
  'safety_identifier',
  'prompt_cache_key',
  'metadata',
];

/** Amazon Bedrock Runtime's regional host (https://docs.aws.amazon.com/general/latest/gr/bedrock.html). */
const BEDROCK_RUNTIME_HOST = { template: 'https://bedrock-runtime.{region}.amazonaws.com' } as const;

/** Vertex AI's regional host, and its global one (https://cloud.google.com/vertex-ai/docs/general/locations). */
const VERTEX_AI_HOST = {
  template: 'https://{region}-aiplatform.googleapis.com',
  globalBaseUrl: 'https://aiplatform.googleapis.com',
} as const;

/**
 * A self-hosted server (Ollama, vLLM, LM Studio) at `origin` (`http://localhost:PORT`): Chat
 * Completions and Responses under `/v1`, Anthropic Messages at the root, no key unless its operator
 * set one (`optional-bearer`); `max_tokens`, `system` for `developer`, the OpenAI platform fields
 * dropped, a default Messages `max_tokens` of 4096; embeddings as `embeddings` says.
 */
function localServerPreset(
  id: ProviderId,
  displayName: string,
  origin: string,
  embeddings: NonNullable<ProviderQuirks['embeddings']>,
): ProviderPreset {
  return {
    id,
    displayName,
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: `${origin}/v1`, auth: 'optional-bearer' },
      'openai-responses': { baseUrl: `${origin}/v1`, auth: 'optional-bearer' },
      'anthropic-messages': { baseUrl: origin, auth: 'optional-bearer' },
    },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      dropFields: OPENAI_PLATFORM_FIELDS,
      defaultMaxTokens: 4096,
      embeddings,
    },
  };
}

const PRESETS: Readonly<Record<ProviderId, ProviderPreset>> = {
  openai: {
    id: 'openai',
    displayName: 'OpenAI',
    defaultProtocol: 'openai-responses',
    endpoints: {
      'openai-responses': { baseUrl: 'https://api.openai.com/v1', auth: 'bearer' },
      'openai-chat': { baseUrl: 'https://api.openai.com/v1', auth: 'bearer' },
    },
    quirks: {
      maxTokensField: 'max_completion_tokens',
      hasCountTokens: true,
      // Embeddings: at most 2048 inputs and 300 000 tokens summed over them per call; `input` may be
      // token-id arrays (https://platform.openai.com/docs/api-reference/embeddings/create).
      embeddings: { maxInputsPerCall: 2048, maxInputTokensPerCall: 300_000, acceptsTokenIds: true },
    },
  },
  anthropic: {
    id: 'anthropic',
    displayName: 'Anthropic',
    defaultProtocol: 'anthropic-messages',
    endpoints: { 'anthropic-messages': { baseUrl: 'https://api.anthropic.com', auth: 'x-api-key' } },
    quirks: {
      defaultMaxTokens: 4096,
      forwardAnthropicBeta: true,
      strictThinkingSignatures: true,
      hasCountTokens: true,
    },
  },
  gemini: {
    id: 'gemini',
    displayName: 'Google Gemini',
    defaultProtocol: 'gemini',
    endpoints: {
      gemini: { baseUrl: 'https://generativelanguage.googleapis.com', auth: 'x-goog-api-key' },
      'openai-chat': { baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', auth: 'bearer' },
    },
    // Embeddings: `batchEmbedContents` (and the OpenAI-compatible /embeddings) take at most 100
    // requests per call — the API answers 400 "at most 100 requests can be in one batch"
    // (https://ai.google.dev/api/embeddings#method:-models.batchembedcontents,
    // https://ai.google.dev/gemini-api/docs/openai#embeddings).
    quirks: { hasCountTokens: true, embeddings: { maxInputsPerCall: 100 } },
  },
  // DeepSeek: cache fields prompt_cache_hit/miss_tokens, keep-alive comments and blank-line padding (https://api-docs.deepseek.com/guides/kv_cache,
  // https://api-docs.deepseek.com/quick_start/rate_limit).
  deepseek: {
    id: 'deepseek',
    displayName: 'DeepSeek',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://api.deepseek.com', auth: 'bearer' },
      'anthropic-messages': { baseUrl: 'https://api.deepseek.com/anthropic', auth: 'bearer+x-api-key' },
      'openai-responses': { baseUrl: 'https://api.deepseek.com', auth: 'bearer' },
    },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      replayReasoningContent: true,
      defaultMaxTokens: 8192,
    },
  },
  // DashScope: rejects `store`, developer role; Anthropic endpoint requires max_tokens
  // (https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope,
  // https://www.alibabacloud.com/help/en/model-studio/anthropic-api-messages).
  dashscope: {
    id: 'dashscope',
    displayName: 'Alibaba DashScope (Qwen)',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', auth: 'bearer' },
      'anthropic-messages': { baseUrl: 'https://dashscope-intl.aliyuncs.com/apps/anthropic', auth: 'bearer+x-api-key' },
      'openai-responses': {
        baseUrl: 'https://dashscope-intl.aliyuncs.com/api/v2/apps/protocols/compatible-mode/v1',
        auth: 'bearer',
      },
    },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      dropFields: ['store', 'reasoning_effort', 'service_tier', 'safety_identifier', 'prompt_cache_key', 'metadata'],
      replayReasoningContent: true,
      defaultMaxTokens: 8192,
      // The Responses endpoint takes the Chat endpoint's thinking switches
      // (https://www.alibabacloud.com/help/en/model-studio/compatibility-with-openai-responses-api).
      acceptedExtensions: { 'openai-responses': ['enable_thinking', 'thinking_budget'] },
      // Embeddings at compatible-mode/v1/embeddings: text-embedding-v3/v4 take at most 10 inputs
      // per call, text only (https://www.alibabacloud.com/help/en/model-studio/text-embedding-synchronous-api).
      embeddings: { apiByProtocol: { 'openai-chat': 'openai' }, maxInputsPerCall: 10 },
    },
  },
  // Moonshot: usage inside choices[0] on streams, top-level cached_tokens (https://platform.moonshot.ai/docs/api/chat).
  moonshot: {
    id: 'moonshot',
    displayName: 'Moonshot Kimi',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://api.moonshot.ai/v1', auth: 'bearer' },
      'anthropic-messages': { baseUrl: 'https://api.moonshot.ai/anthropic', auth: 'bearer+x-api-key' },
    },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      replayReasoningContent: true,
      defaultMaxTokens: 8192,
    },
  },
  // MiniMax: <think> tags inline in content; prefers max_completion_tokens
  // (https://platform.minimax.io/docs/api-reference/text-openai-api).
  minimax: {
    id: 'minimax',
    displayName: 'MiniMax',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://api.minimax.io/v1', auth: 'bearer' },
      'anthropic-messages': { baseUrl: 'https://api.minimax.io/anthropic', auth: 'bearer+x-api-key' },
      'openai-responses': { baseUrl: 'https://api.minimax.io/v1', auth: 'bearer' },
    },
    quirks: {
      maxTokensField: 'max_completion_tokens',
      developerAsSystem: true,
      thinkTagsInContent: true,
      defaultMaxTokens: 8192,
    },
  },
  // Zhipu/Z.ai: max_tokens, only tool_choice auto, string error codes (https://docs.z.ai/guides/develop/openai/python).
  zhipu: {
    id: 'zhipu',
    displayName: 'Zhipu / Z.ai (GLM)',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://api.z.ai/api/paas/v4', auth: 'bearer' },
      'anthropic-messages': { baseUrl: 'https://api.z.ai/api/anthropic', auth: 'bearer+x-api-key' },
    },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      toolChoiceAutoOnly: true,
      replayReasoningContent: true,
      defaultMaxTokens: 8192,
      // Embeddings at /api/paas/v4/embeddings: embedding-3 takes at most 64 inputs per call, text
      // only, `dimensions` 256–2048 (https://docs.z.ai/api-reference/tools/embeddings).
      embeddings: { apiByProtocol: { 'openai-chat': 'openai' }, maxInputsPerCall: 64 },
    },
  },
  // Xiaomi MiMo: null prompt_tokens_details; Anthropic endpoint documents Bearer, not x-api-key
  // (https://platform.xiaomimimo.com/docs/en-US/api/chat/anthropic-api).
  xiaomi: {
    id: 'xiaomi',
    displayName: 'Xiaomi MiMo',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://api.xiaomimimo.com/v1', auth: 'bearer' },
      'anthropic-messages': { baseUrl: 'https://api.xiaomimimo.com/anthropic', auth: 'bearer' },
    },
    quirks: {
      maxTokensField: 'max_completion_tokens',
      developerAsSystem: true,
      replayReasoningContent: true,
      defaultMaxTokens: 8192,
    },
  },
  // Any OpenAI-compatible endpoint: no fixed host, so a channel of it must give `baseUrl`; the
  // portable subset of Chat Completions (max_tokens, system role).
  'openai-compatible': {
    id: 'openai-compatible',
    displayName: 'Any OpenAI-compatible endpoint',
    defaultProtocol: 'openai-chat',
    endpoints: { 'openai-chat': { auth: 'bearer' } },
    // Embeddings at {baseUrl}/embeddings, the request as the client sent it (token ids included):
    // the endpoint enforces its own limits.
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      embeddings: { apiByProtocol: { 'openai-chat': 'openai' }, acceptsTokenIds: true },
    },
  },
  // Any Anthropic-compatible endpoint: a channel of it must give `baseUrl`. Compatible hosts take the
  // key as Bearer or x-api-key (e.g. https://docs.fireworks.ai/tools-sdks/anthropic-compatibility,
  // https://lmstudio.ai/docs/developer/anthropic-compat), so both are sent.
  'anthropic-compatible': {
    id: 'anthropic-compatible',
    displayName: 'Any Anthropic-compatible endpoint',
    defaultProtocol: 'anthropic-messages',
    endpoints: { 'anthropic-messages': { auth: 'bearer+x-api-key' } },
    quirks: { defaultMaxTokens: 4096 },
  },
  // OpenRouter: usage (with cost) is always in the answer and its last stream chunk; the
  // `usage: {include: true}` parameter is deprecated and has no effect, so it is not sent
  // (https://openrouter.ai/docs/use-cases/usage-accounting). Attribution headers HTTP-Referer and
  // X-OpenRouter-Title / X-Title (https://openrouter.ai/docs/app-attribution) are the operator's own.
  openrouter: {
    id: 'openrouter',
    displayName: 'OpenRouter',
    defaultProtocol: 'openai-chat',
    endpoints: { 'openai-chat': { baseUrl: 'https://openrouter.ai/api/v1', auth: 'bearer' } },
    quirks: { maxTokensField: 'max_tokens', developerAsSystem: true },
  },
  // Groq: logprobs, logit_bias, top_logprobs and messages[].name answer 400; n must be 1; the
  // Responses API is served at the same base (https://console.groq.com/docs/openai).
  groq: {
    id: 'groq',
    displayName: 'Groq',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://api.groq.com/openai/v1', auth: 'bearer' },
      'openai-responses': { baseUrl: 'https://api.groq.com/openai/v1', auth: 'bearer' },
    },
    quirks: {
      maxTokensField: 'max_completion_tokens',
      developerAsSystem: true,
      dropFields: ['logprobs', 'logit_bias', 'top_logprobs', 'store', 'metadata', 'service_tier'],
    },
  },
  // Mistral: Chat Completions only, `max_tokens` (https://docs.mistral.ai/api/#tag/chat,
  // https://docs.mistral.ai/resources/migration-guides); OpenAI platform fields it does not define
  // are dropped.
  mistral: {
    id: 'mistral',
    displayName: 'Mistral AI',
    defaultProtocol: 'openai-chat',
    endpoints: { 'openai-chat': { baseUrl: 'https://api.mistral.ai/v1', auth: 'bearer' } },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      dropFields: OPENAI_PLATFORM_FIELDS,
      // Embeddings at /v1/embeddings (mistral-embed, codestral-embed), text only, the vector length
      // as `output_dimension` (https://docs.mistral.ai/api/endpoint/embeddings).
      embeddings: { apiByProtocol: { 'openai-chat': 'openai' }, dimensionsField: 'output_dimension' },
    },
  },
  // xAI: Chat Completions and Responses at https://api.x.ai/v1; its Anthropic SDK compatibility is
  // deprecated, so not offered (https://docs.x.ai/api/integrations,
  // https://docs.x.ai/developers/model-capabilities/text/comparison).
  xai: {
    id: 'xai',
    displayName: 'xAI (Grok)',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://api.x.ai/v1', auth: 'bearer' },
      'openai-responses': { baseUrl: 'https://api.x.ai/v1', auth: 'bearer' },
    },
    quirks: { maxTokensField: 'max_completion_tokens' },
  },
  // Together AI: Chat Completions, `<provider>/<model>` names (https://docs.together.ai/docs/inference/openai-compatibility).
  together: {
    id: 'together',
    displayName: 'Together AI',
    defaultProtocol: 'openai-chat',
    endpoints: { 'openai-chat': { baseUrl: 'https://api.together.ai/v1', auth: 'bearer' } },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      dropFields: OPENAI_PLATFORM_FIELDS,
      // Embeddings at /v1/embeddings (https://docs.together.ai/reference/embeddings-2).
      embeddings: { apiByProtocol: { 'openai-chat': 'openai' } },
    },
  },
  // Fireworks: Chat Completions at /inference/v1 (usage in the last stream chunk), Anthropic Messages
  // at /inference with a Bearer key (https://docs.fireworks.ai/tools-sdks/openai-compatibility,
  // https://docs.fireworks.ai/tools-sdks/anthropic-compatibility).
  fireworks: {
    id: 'fireworks',
    displayName: 'Fireworks AI',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'https://api.fireworks.ai/inference/v1', auth: 'bearer' },
      'anthropic-messages': { baseUrl: 'https://api.fireworks.ai/inference', auth: 'bearer+x-api-key' },
    },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      dropFields: OPENAI_PLATFORM_FIELDS,
      defaultMaxTokens: 8192,
      // Embeddings at /inference/v1/embeddings (https://docs.fireworks.ai/guides/querying-embeddings-models).
      embeddings: { apiByProtocol: { 'openai-chat': 'openai' } },
    },
  },
  // Volcengine Ark (Doubao): Chat Completions at /api/v3 (Beijing region); the model is a model
  // name or an `ep-…` endpoint id (https://www.volcengine.com/docs/82379/1330626).
  'volcengine-ark': {
    id: 'volcengine-ark',
    displayName: 'Volcengine Ark (Doubao)',
    defaultProtocol: 'openai-chat',
    endpoints: { 'openai-chat': { baseUrl: 'https://ark.cn-beijing.volces.com/api/v3', auth: 'bearer' } },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      replayReasoningContent: true,
      dropFields: OPENAI_PLATFORM_FIELDS,
      // Embeddings at /api/v3/embeddings (doubao-embedding, https://www.volcengine.com/docs/82379/1521766).
      embeddings: { apiByProtocol: { 'openai-chat': 'openai' } },
    },
  },
  // SiliconFlow: Chat Completions with `max_tokens`, `reasoning_content` on thinking models
  // (https://docs.siliconflow.com/en/api-reference/chat-completions/chat-completions).
  siliconflow: {
    id: 'siliconflow',
    displayName: 'SiliconFlow',
    defaultProtocol: 'openai-chat',
    endpoints: { 'openai-chat': { baseUrl: 'https://api.siliconflow.com/v1', auth: 'bearer' } },
    quirks: {
      maxTokensField: 'max_tokens',
      developerAsSystem: true,
      replayReasoningContent: true,
      dropFields: OPENAI_PLATFORM_FIELDS,
      // Embeddings at /v1/embeddings (https://docs.siliconflow.com/en/api-reference/embeddings/create-embeddings).
      embeddings: { apiByProtocol: { 'openai-chat': 'openai' } },
    },
  },
  // Ollama (local): no key ("required but ignored" by clients); Chat Completions takes `max_tokens`
  // and `stream_options.include_usage`; stateless Responses; Anthropic Messages at the root
  // (https://docs.ollama.com/api/openai-compatibility, https://docs.ollama.com/api/anthropic-compatibility).
  // Embeddings at /v1/embeddings, text only (https://docs.ollama.com/api/openai-compatibility).
  ollama: localServerPreset('ollama', 'Ollama (local)', 'http://localhost:11434', {
    apiByProtocol: { 'openai-chat': 'openai' },
  }),
  // vLLM (local): a key only when the server runs with --api-key; Chat Completions, Responses and
  // Anthropic Messages (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html).
  // Embeddings at /v1/embeddings for pooling models, token ids accepted
  // (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html#embeddings-api).
  vllm: localServerPreset('vllm', 'vLLM (self-hosted)', 'http://localhost:8000', {
    apiByProtocol: { 'openai-chat': 'openai' },
    acceptsTokenIds: true,
  }),
  // Azure OpenAI: the resource endpoint (https://{resource}.openai.azure.com) is the channel's
  // baseUrl. Without `cloud.apiVersion` the v1 surface (/openai/v1/chat/completions and
  // /openai/v1/responses, the deployment name as `model`); with it the deployment surface
  // (/openai/deployments/{deployment}/chat/completions?api-version=…)
  // (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/api-version-lifecycle,
  // https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference). Auth: the `api-key`
  // header or a Microsoft Entra ID bearer token.
  azure: {
    id: 'azure',
    displayName: 'Azure OpenAI',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { auth: 'cloud-credentials', surface: 'azure' },
      'openai-responses': { auth: 'cloud-credentials', surface: 'azure' },
    },
    quirks: {
      maxTokensField: 'max_completion_tokens',
      // Embeddings at /openai/v1/embeddings or /openai/deployments/{deployment}/embeddings: at most
      // 2048 inputs per call, token ids accepted
      // (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference#embeddings).
      embeddings: {
        apiByProtocol: { 'openai-chat': 'azure', 'openai-responses': 'azure' },
        maxInputsPerCall: 2048,
        acceptsTokenIds: true,
      },
    },
  },
  // Amazon Bedrock: the regional runtime host (https://docs.aws.amazon.com/general/latest/gr/bedrock.html).
  // Every model family through Converse/ConverseStream
  // (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html); Anthropic
  // models also through InvokeModel/InvokeModelWithResponseStream with the Messages body, which
  // names no `model` and carries `anthropic_version: bedrock-2023-05-31`
  // (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html).
  // Auth: SigV4 (service `bedrock`) or a Bedrock API key as a bearer token.
  bedrock: {
    id: 'bedrock',
    displayName: 'Amazon Bedrock',
    defaultProtocol: 'bedrock-converse',
    endpoints: {
      'bedrock-converse': {
        auth: 'cloud-credentials',
        surface: 'bedrock',
        regionalBaseUrl: BEDROCK_RUNTIME_HOST,
      },
      'anthropic-messages': {
        auth: 'cloud-credentials',
        surface: 'bedrock',
        reshapesBody: true,
        regionalBaseUrl: BEDROCK_RUNTIME_HOST,
      },
    },
    quirks: {
      defaultMaxTokens: 4096,
      strictThinkingSignatures: true,
      // Embeddings through InvokeModel on the Converse channel's host: Titan Text Embeddings take one
      // `inputText` per call (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html),
      // Cohere Embed at most 96 `texts` (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html).
      embeddings: {
        apiByProtocol: { 'bedrock-converse': 'bedrock' },
        maxInputsPerCall: 96,
        maxInputsPerCallByModel: [{ modelIncludes: 'titan-embed', maxInputsPerCall: 1 }],
      },
    },
  },
  // Google Vertex AI: Gemini through publishers/google/models/{model}:generateContent and
  // :streamGenerateContent (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference),
  // Anthropic models through publishers/anthropic/models/{model}:rawPredict and :streamRawPredict
  // with the Messages body naming no `model` and carrying `anthropic_version: vertex-2023-10-16`
  // (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude).
  // Host: {region}-aiplatform.googleapis.com, or aiplatform.googleapis.com for `global`. Auth:
  // OAuth2 access tokens from a service-account key or Application Default Credentials.
  vertex: {
    id: 'vertex',
    displayName: 'Google Vertex AI',
    defaultProtocol: 'gemini',
    endpoints: {
      gemini: {
        auth: 'cloud-credentials',
        surface: 'vertex',
        regionalBaseUrl: VERTEX_AI_HOST,
      },
      'anthropic-messages': {
        auth: 'cloud-credentials',
        surface: 'vertex',
        reshapesBody: true,
        regionalBaseUrl: VERTEX_AI_HOST,
      },
    },
    quirks: {
      defaultMaxTokens: 4096,
      strictThinkingSignatures: true,
      // Gemini `:countTokens` and Claude `count-tokens:rawPredict`
      // (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/count-tokens,
      // https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/count-tokens).
      hasCountTokens: true,
      // Embeddings through publishers/google/models/{model}:predict: at most 250 instances and 20 000
      // input tokens per call, one instance for gemini-embedding-001
      // (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api).
      embeddings: {
        apiByProtocol: { gemini: 'vertex' },
        maxInputsPerCall: 250,
        maxInputTokensPerCall: 20_000,
        maxInputsPerCallByModel: [{ modelIncludes: 'gemini-embedding', maxInputsPerCall: 1 }],
      },
    },
  },
  // LM Studio (local): no key unless "Require Authentication" is on (then Bearer or x-api-key);
  // Chat Completions, Responses, Anthropic Messages (https://lmstudio.ai/docs/api/openai-api,
  // https://lmstudio.ai/docs/developer/anthropic-compat).
  // Embeddings at /v1/embeddings (https://lmstudio.ai/docs/api/openai-api).
  lmstudio: localServerPreset('lmstudio', 'LM Studio (local)', 'http://localhost:1234', {
    apiByProtocol: { 'openai-chat': 'openai' },
  }),
  // The built-in fake model (gateway/mock/): speaks every protocol; base URL filled at start-up.
  mock: {
    id: 'mock',
    displayName: 'Mock (built-in fake model)',
    defaultProtocol: 'openai-chat',
    endpoints: {
      'openai-chat': { baseUrl: 'http://mock.invalid/v1', auth: 'bearer' },
      'openai-responses': { baseUrl: 'http://mock.invalid/v1', auth: 'bearer' },
      'anthropic-messages': { baseUrl: 'http://mock.invalid', auth: 'x-api-key' },
      gemini: { baseUrl: 'http://mock.invalid', auth: 'x-goog-api-key' },
    },
    quirks: { defaultMaxTokens: 4096, hasCountTokens: true },
  },
};

/** The preset for a provider id. Throws GatewayError('internal') for an unknown id (config validation prevents it). */
export function getProviderPreset(id: ProviderId): ProviderPreset {
  const preset = PRESETS[id];
  if (!preset) throw new GatewayError('internal', `Unknown provider preset '${id}'`);
  return preset;
}

/** Every preset, for listings and config validation. */
export function listProviderPresets(): ProviderPreset[] {
  return Object.values(PRESETS);
}

/**
 * The provider preset table. Base URLs and auth per gateway/providers/PROVIDER-DOCS.md
 * (endpoint matrix), quirks per the provider documents listed there. International hosts are the defaults; a channel's
 * `baseUrl` overrides them (e.g. China-region hosts).
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import type { ProviderId, ProviderPreset } from './provider-preset.ts';

const PRESETS: Readonly<Record<ProviderId, ProviderPreset>> = {
  openai: {
    id: 'openai',
    displayName: 'OpenAI',
    defaultProtocol: 'openai-responses',
    endpoints: {
      'openai-responses': { baseUrl: 'https://api.openai.com/v1', auth: 'bearer' },
      'openai-chat': { baseUrl: 'https://api.openai.com/v1', auth: 'bearer' },
    },
    quirks: { maxTokensField: 'max_completion_tokens', hasCountTokens: true },
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
    quirks: { hasCountTokens: true },
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

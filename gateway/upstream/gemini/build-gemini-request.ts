/**
 * CanonicalRequest → Gemini generateContent / streamGenerateContent / countTokens HTTP calls
 * (per https://ai.google.dev/api/generate-content).
 */
import type { CanonicalRequest } from '../../canonical/request.ts';
import { authHeadersFor, authSchemeFor } from '../../providers/auth-headers.ts';
import type {
  BuiltUpstreamRequest,
  UpstreamCallTarget,
  UpstreamJsonRequest,
  UpstreamTarget,
} from '../upstream-adapter.ts';
import { encodeGeminiGenerationConfig, encodeGeminiTools } from './encode-gemini-config.ts';
import { encodeGeminiContents } from './encode-gemini-contents.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';
import type { ProviderPreset } from '../../providers/provider-preset.ts';
import { noteDroppedAnthropicBetas, selectVendorExtensions } from '../vendor-extensions.ts';

/** Top-level GenerateContentRequest fields that `extensions` may carry through to Gemini. */
const GEMINI_EXTENSION_FIELDS: ReadonlySet<string> = new Set(['safetySettings', 'cachedContent']);

/** OpenAI sampling extensions (wire names) that have a `generationConfig` equivalent. */
const GENERATION_CONFIG_EXTENSIONS: Readonly<Record<string, string>> = {
  presence_penalty: 'presencePenalty',
  frequency_penalty: 'frequencyPenalty',
  seed: 'seed',
};

/** Body keys the gateway sets itself; an extension may not override them. */
const RESERVED_KEYS: ReadonlySet<string> = new Set([
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'generationConfig',
]);

/**
 * The model's resource path as the SDKs build it: `models/{model}` unless the name already starts
 * with `models/` or `tunedModels/`. Each `/`-separated segment is percent-encoded, so ids with a
 * slash (`qwen/qwen3-max`) keep it (`tModel` in
 * https://github.com/googleapis/js-genai/blob/main/src/_transformers.ts).
 */
export function geminiModelPath(model: string): string {
  const path = model.startsWith('models/') || model.startsWith('tunedModels/') ? model : `models/${model}`;
  return path.split('/').map(encodeURIComponent).join('/');
}

function geminiHeaders(target: UpstreamTarget): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...authHeadersFor(authSchemeFor(target.provider, 'gemini'), target.apiKey),
  };
}

function dropUnsupported(request: CanonicalRequest, warnings: TranslationNotes): void {
  if (request.user !== undefined) warnings.drop('user: Gemini has no end-user field; dropped');
  if (request.metadata && Object.keys(request.metadata).length > 0)
    warnings.drop('metadata: Gemini has no request metadata; dropped');
}

/**
 * OpenAI sampling extensions go into `generationConfig`; the rest are passed, dropped or refused
 * by vendor-extensions.ts; `anthropic-beta` flags are never a body field.
 */
function mergeExtensions(
  body: Record<string, unknown>,
  request: CanonicalRequest,
  provider: ProviderPreset,
  warnings: TranslationNotes,
): void {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.extensions ?? {})) {
    const configField = GENERATION_CONFIG_EXTENSIONS[key];
    if (value === undefined) continue;
    if (configField !== undefined)
      body.generationConfig = {
        ...(body.generationConfig as Record<string, unknown> | undefined),
        [configField]: value,
      };
    else rest[key] = value;
  }
  const extensionTarget = {
    protocol: 'gemini' as const,
    provider,
    protocolFields: GEMINI_EXTENSION_FIELDS,
    reservedKeys: RESERVED_KEYS,
  };
  for (const [key, value] of selectVendorExtensions({ ...request, extensions: rest }, extensionTarget, warnings))
    body[key] = value;
  noteDroppedAnthropicBetas(request, warnings);
}

/**
 * Builds the GenerateContentRequest body (camelCase): contents, systemInstruction, tools,
 * toolConfig, generationConfig, plus `extensions` named in GEMINI_EXTENSION_FIELDS
 * (safetySettings, cachedContent) and the OpenAI sampling extensions presence_penalty,
 * frequency_penalty, seed (→ generationConfig presencePenalty, frequencyPenalty, seed); other
 * extensions are dropped or refused by vendor-extensions.ts.
 */
export function buildGeminiBody(
  request: CanonicalRequest,
  provider: ProviderPreset,
  warnings: TranslationNotes,
): Record<string, unknown> {
  const body: Record<string, unknown> = { contents: encodeGeminiContents(request.messages, warnings) };
  if (request.system !== undefined && request.system !== '')
    body.systemInstruction = { parts: [{ text: request.system }] };
  Object.assign(body, encodeGeminiTools(request, warnings));
  const generationConfig = encodeGeminiGenerationConfig(request, warnings);
  if (generationConfig) body.generationConfig = generationConfig;
  dropUnsupported(request, warnings);
  mergeExtensions(body, request, provider, warnings);
  return body;
}

/**
 * The full call: `POST {baseUrl}/v1beta/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse` when `request.stream`; auth per the provider (x-goog-api-key).
 */
export function buildGeminiRequest(request: CanonicalRequest, target: UpstreamTarget): BuiltUpstreamRequest {
  const warnings = new TranslationNotes();
  const body = buildGeminiBody(request, target.provider, warnings);
  return { request: { ...geminiCallTarget(request, target), body: JSON.stringify(body) }, notes: warnings };
}

/** `POST {baseUrl}/v1beta/models/{model}:generateContent` (`:streamGenerateContent?alt=sse` when streamed) with geminiHeaders. */
export function geminiCallTarget(request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget {
  const method = request.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return {
    url: `${target.baseUrl}/v1beta/${geminiModelPath(target.upstreamModel)}:${method}`,
    headers: geminiHeaders(target),
  };
}

/**
 * `POST {baseUrl}/v1beta/models/{model}:countTokens` (https://ai.google.dev/api/tokens): `{contents}` alone, or — when the
 * request has a system instruction or tools, which only count inside it —
 * `{generateContentRequest: {model: "models/…", contents, systemInstruction, tools}}`.
 */
export function buildGeminiCountTokensRequest(request: CanonicalRequest, target: UpstreamTarget): UpstreamJsonRequest {
  const full = buildGeminiBody(request, target.provider, new TranslationNotes());
  const url = `${target.baseUrl}/v1beta/${geminiModelPath(target.upstreamModel)}:countTokens`;
  const hasContext = full.systemInstruction !== undefined || full.tools !== undefined;
  const inner: Record<string, unknown> = { model: geminiModelPath(target.upstreamModel), contents: full.contents };
  if (full.systemInstruction !== undefined) inner.systemInstruction = full.systemInstruction;
  if (full.tools !== undefined) inner.tools = full.tools;
  const body = hasContext ? { generateContentRequest: inner } : { contents: full.contents };
  return { url, headers: geminiHeaders(target), body: JSON.stringify(body) };
}

/**
 * Converts Gemini `generationConfig` (https://ai.google.dev/api/generate-content#generationconfig)
 * into canonical sampling, output-format and reasoning fields. `candidateCount > 1` is refused
 * (the gateway returns one candidate); fields the canonical model cannot carry are reported in
 * `warnings`.
 */
import type { CanonicalRequest, DecodeResult, ReasoningConfig, ResponseFormat } from '../../canonical/request.ts';
import { convertGeminiSchemaObject } from './convert-gemini-schema.ts';
import type { GeminiGenerationConfig } from './gemini-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The canonical fields a generationConfig sets. */
export type GeminiConfigFields = Mutable<
  Pick<
    CanonicalRequest,
    'maxOutputTokens' | 'temperature' | 'topP' | 'topK' | 'stopSequences' | 'responseFormat' | 'reasoning'
  >
>;

/** Sampling hints the canonical model has no field for: dropped as safe to lose (README, "What the gateway drops"). */
const SAMPLING_HINTS = ['presencePenalty', 'frequencyPenalty', 'seed'] as const;
/** Outputs other APIs cannot produce: a request asking for them is refused when translated. */
const UNSUPPORTED_FIELDS = ['responseLogprobs', 'logprobs', 'speechConfig', 'imageConfig'] as const;
const THINKING_LEVELS: Readonly<Record<string, ReasoningConfig['effort']>> = {
  MINIMAL: 'minimal',
  LOW: 'low',
  MEDIUM: 'medium',
  HIGH: 'high',
};

/**
 * `responseJsonSchema` (preferred) or `responseSchema` → json-schema, either one converted to plain
 * JSON Schema by convertGeminiSchemaObject (clients send Gemini's upper-case `Type` names in both);
 * `application/json` alone → json-object.
 */
function decodeResponseFormat(config: GeminiGenerationConfig, warnings: TranslationNotes): ResponseFormat | undefined {
  const source = config.responseJsonSchema ?? config.responseSchema;
  const schema = source ? convertGeminiSchemaObject(source) : undefined;
  if (schema) return { type: 'json-schema', name: 'response', schema };
  const mime = config.responseMimeType;
  if (mime === 'application/json') return { type: 'json-object' };
  if (mime && mime !== 'text/plain')
    warnings.refuse('generationConfig.responseMimeType', `"${mime}" output cannot be requested from other APIs`);
  return undefined;
}

/**
 * `thinkingConfig` → ReasoningConfig: thinkingBudget 0 → `enabled: false`; -1 (dynamic) →
 * `enabled: true` without a budget; N > 0 → `enabled: true, budgetTokens: N` (tokens);
 * `thinkingLevel` MINIMAL|LOW|MEDIUM|HIGH → `effort`; `includeThoughts` copied.
 */
export function decodeGeminiThinking(
  thinking: GeminiGenerationConfig['thinkingConfig'],
  warnings: TranslationNotes,
): ReasoningConfig | undefined {
  if (!thinking) return undefined;
  const reasoning: Mutable<ReasoningConfig> = {};
  const budget = thinking.thinkingBudget;
  if (budget === 0) reasoning.enabled = false;
  else if (typeof budget === 'number') reasoning.enabled = true;
  if (typeof budget === 'number' && budget > 0) reasoning.budgetTokens = budget;
  const level = thinking.thinkingLevel?.toUpperCase();
  if (level && level !== 'THINKING_LEVEL_UNSPECIFIED') {
    const effort = THINKING_LEVELS[level];
    if (effort === undefined)
      warnings.drop(
        `generationConfig.thinkingConfig.thinkingLevel: "${thinking.thinkingLevel}" is not supported and was ignored`,
      );
    else {
      reasoning.effort = effort;
      if (budget !== 0) reasoning.enabled = true;
    }
  }
  if (typeof thinking.includeThoughts === 'boolean') reasoning.includeThoughts = thinking.includeThoughts;
  return Object.keys(reasoning).length > 0 ? reasoning : undefined;
}

function reportUnsupported(config: GeminiGenerationConfig, warnings: TranslationNotes): void {
  for (const field of SAMPLING_HINTS) {
    if (config[field] !== undefined && config[field] !== null)
      warnings.drop(`generationConfig.${field}: a sampling hint the gateway does not carry; dropped`);
  }
  for (const field of UNSUPPORTED_FIELDS) {
    if (config[field] !== undefined && config[field] !== null)
      warnings.refuse(`generationConfig.${field}`, 'it has no equivalent the gateway can carry');
  }
  const modalities = config.responseModalities?.filter((m) => m.toUpperCase() !== 'TEXT') ?? [];
  if (modalities.length > 0)
    warnings.refuse(
      'generationConfig.responseModalities',
      `${modalities.join(', ')} output cannot be produced through other APIs`,
    );
}

/** Decodes a generationConfig; fails only for `candidateCount > 1`. */
export function decodeGeminiConfig(
  config: GeminiGenerationConfig | null | undefined,
  warnings: TranslationNotes,
): DecodeResult<GeminiConfigFields> {
  const fields: GeminiConfigFields = {};
  if (!config) return { ok: true, value: fields };
  if (typeof config.candidateCount === 'number' && config.candidateCount > 1) {
    return {
      ok: false,
      message: 'generationConfig.candidateCount: only 1 candidate is supported',
      param: 'generationConfig.candidateCount',
    };
  }
  if (typeof config.maxOutputTokens === 'number') fields.maxOutputTokens = config.maxOutputTokens;
  if (typeof config.temperature === 'number') fields.temperature = config.temperature;
  if (typeof config.topP === 'number') fields.topP = config.topP;
  if (typeof config.topK === 'number') fields.topK = config.topK;
  if (config.stopSequences && config.stopSequences.length > 0) fields.stopSequences = config.stopSequences;
  const responseFormat = decodeResponseFormat(config, warnings);
  if (responseFormat) fields.responseFormat = responseFormat;
  const reasoning = decodeGeminiThinking(config.thinkingConfig, warnings);
  if (reasoning) fields.reasoning = reasoning;
  reportUnsupported(config, warnings);
  return { ok: true, value: fields };
}

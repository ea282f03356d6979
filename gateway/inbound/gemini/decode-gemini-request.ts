/**
 * Decodes a Gemini generateContent / streamGenerateContent body (https://ai.google.dev/api/generate-content)
 * and a countTokens body (https://ai.google.dev/api/tokens) into a CanonicalRequest. Model and streaming come from the URL path
 * (DecodeHints). snake_case and camelCase field names are both accepted. Never throws: bad input
 * yields `{ ok: false, message, param }` naming the field path (camelCase).
 */
import type { CanonicalRequest, DecodeResult } from '../../canonical/request.ts';
import { describeZodError } from '../describe-zod-error.ts';
import type { DecodeHints } from '../inbound-codec.ts';
import { decodeGeminiConfig } from './decode-gemini-config.ts';
import { decodeGeminiContents } from './decode-gemini-contents.ts';
import { decodeGeminiToolChoice, decodeGeminiTools } from './decode-gemini-tools.ts';
import { geminiRequestSchema, type GeminiRequestBody } from './gemini-request-schema.ts';
import { normalizeGeminiKeys } from './normalize-gemini-keys.ts';
import { decodedWith, TranslationNotes } from '../../canonical/translation-notes.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** How to decode: `path` prefixes error params (e.g. `generateContentRequest`); `countTokens` allows empty contents. */
interface DecodeOptions {
  readonly path: ReadonlyArray<string>;
  readonly countTokens: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `systemInstruction` text parts joined with "\n\n"; other parts are dropped with a warning. */
function decodeSystem(system: GeminiRequestBody['systemInstruction'], warnings: TranslationNotes): string | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === 'string') return system === '' ? undefined : system;
  const texts: string[] = [];
  system.parts.forEach((part, i) => {
    if (typeof part.text === 'string') {
      if (part.text !== '') texts.push(part.text);
    } else warnings.refuse(`systemInstruction.parts.${i}`, 'only text parts can be carried in a system instruction');
  });
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

function decodeToolFields(
  body: GeminiRequestBody,
  request: Mutable<CanonicalRequest>,
  warnings: TranslationNotes,
): void {
  if (body.tools && body.tools.length > 0) {
    const tools = decodeGeminiTools(body.tools, warnings);
    if (tools.length > 0) request.tools = tools;
  }
  const toolChoice = decodeGeminiToolChoice(body.toolConfig, warnings);
  if (toolChoice) request.toolChoice = toolChoice;
  if (body.safetySettings !== undefined && body.safetySettings !== null)
    warnings.drop('safetySettings: other providers apply their own safety policies; dropped');
  if (body.cachedContent) warnings.refuse('cachedContent', 'a cached content lives on the Gemini platform');
}

function decodeBody(
  body: unknown,
  model: string,
  stream: boolean,
  options: DecodeOptions,
): DecodeResult<CanonicalRequest> {
  const parsed = geminiRequestSchema.safeParse(normalizeGeminiKeys(body));
  if (!parsed.success) return { ok: false, ...describeZodError(parsed.error, options.path) };
  const data = parsed.data;
  const at = (field: string): string => [...options.path, field].join('.');
  if (data.contents.length === 0 && !options.countTokens)
    return { ok: false, message: `${at('contents')}: must not be empty`, param: at('contents') };
  const warnings = new TranslationNotes();
  const { messages, orphan } = decodeGeminiContents(data.contents, warnings);
  if (orphan)
    return {
      ok: false,
      message: `${options.path.map((p) => `${p}.`).join('')}${orphan.message}`,
      param: at(orphan.param),
    };
  const config = decodeGeminiConfig(data.generationConfig, warnings);
  if (!config.ok)
    return {
      ok: false,
      message: `${options.path.map((p) => `${p}.`).join('')}${config.message}`,
      param: at(config.param ?? 'generationConfig'),
    };
  const request: Mutable<CanonicalRequest> = { clientFormat: 'gemini', model, stream, messages, ...config.value };
  const system = decodeSystem(data.systemInstruction, warnings);
  if (system !== undefined) request.system = system;
  decodeToolFields(data, request, warnings);
  return decodedWith(request, warnings);
}

/** The model from the path, without a `models/` prefix; undefined when missing. */
function hintedModel(hints: DecodeHints, fallback?: unknown): string | undefined {
  const model = hints.model ?? (typeof fallback === 'string' ? fallback : undefined);
  const bare = model?.replace(/^models\//, '');
  return bare ? bare : undefined;
}

/** Decodes a generateContent body; `hints.model` is required, `hints.stream` defaults to false. */
export function decodeGeminiRequest(body: unknown, hints: DecodeHints): DecodeResult<CanonicalRequest> {
  if (!isRecord(body)) return { ok: false, message: 'body: expected a JSON object', param: '' };
  const model = hintedModel(hints);
  if (model === undefined)
    return {
      ok: false,
      message: 'model: missing from the request path (models/{model}:generateContent)',
      param: 'model',
    };
  return decodeBody(body, model, hints.stream === true, { path: [], countTokens: false });
}

/**
 * Decodes a countTokens body: `{contents}` or `{generateContentRequest: {model?, contents, …}}`.
 * The model comes from the path, else from `generateContentRequest.model`. Result has `stream: false`.
 */
export function decodeGeminiCountTokensRequest(body: unknown, hints: DecodeHints): DecodeResult<CanonicalRequest> {
  if (!isRecord(body)) return { ok: false, message: 'body: expected a JSON object', param: '' };
  const wrapped = body.generateContentRequest ?? body.generate_content_request;
  const inner = isRecord(wrapped) ? wrapped : undefined;
  const model = hintedModel(hints, inner?.model);
  if (model === undefined)
    return { ok: false, message: 'model: missing from the request path (models/{model}:countTokens)', param: 'model' };
  if (inner !== undefined)
    return decodeBody(inner, model, false, { path: ['generateContentRequest'], countTokens: true });
  return decodeBody(body.contents === undefined ? { ...body, contents: [] } : body, model, false, {
    path: [],
    countTokens: true,
  });
}

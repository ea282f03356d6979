/**
 * Canonical content parts → Gemini request parts (per https://ai.google.dev/api/generate-content, "Part
 * variants" and "Translation notes"). Each encoder returns the part, or undefined after pushing a
 * warning when the part cannot be sent.
 */
import type { FilePart, ImagePart, ReasoningPart, ToolCallPart, ToolResultPart } from '../../canonical/request.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** One Gemini request part (`text`, `inlineData`, `fileData`, `functionCall`, `functionResponse`). */
export type GeminiRequestPart = Readonly<Record<string, unknown>>;

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

/** Splits a base64 `data:` URL into media type and payload; undefined for any other URL. */
function parseDataUrl(url: string): { mimeType: string; data: string } | undefined {
  const match = DATA_URL.exec(url);
  return match?.[1] !== undefined && match[2] !== undefined ? { mimeType: match[1], data: match[2] } : undefined;
}

/** Media type guessed from a URL's file extension (fileData needs one), or undefined. */
function mimeTypeFromUrl(url: string): string | undefined {
  const extension = /\.([a-z0-9]+)(?:$|[?#])/i.exec(url)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : MIME_BY_EXTENSION[extension];
}

/** Image → `inlineData` (base64 or `data:` URL) or `fileData` (other URLs; mime type guessed, default image/jpeg). */
export function encodeGeminiImage(part: ImagePart): GeminiRequestPart {
  if (part.source.kind === 'base64') return { inlineData: { mimeType: part.source.mediaType, data: part.source.data } };
  const inline = parseDataUrl(part.source.url);
  if (inline) return { inlineData: inline };
  return { fileData: { mimeType: mimeTypeFromUrl(part.source.url) ?? 'image/jpeg', fileUri: part.source.url } };
}

/** File → `inlineData` / `fileData` (mime type from the part, the URL, or application/pdf); provider file ids are dropped. */
export function encodeGeminiFile(
  part: FilePart,
  path: string,
  warnings: TranslationNotes,
): GeminiRequestPart | undefined {
  const source = part.source;
  if (source.kind === 'file-id') {
    warnings.refuse(path, 'a file id is specific to the provider that issued it and cannot be sent to Gemini');
    return undefined;
  }
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const inline = parseDataUrl(source.url);
  if (inline) return { inlineData: inline };
  return {
    fileData: { mimeType: source.mediaType ?? mimeTypeFromUrl(source.url) ?? 'application/pdf', fileUri: source.url },
  };
}

/**
 * Replayed reasoning. Gemini ignores thought text on input; only a signature matters (Gemini 3
 * validates it), so reasoning without a signature is left out (not a loss for Gemini). Signed
 * reasoning → `{text, thought: true, thoughtSignature}` (or `{text: '', thoughtSignature}` when the
 * block had no text, as Gemini itself sends it). Anthropic redacted thinking is dropped with a warning.
 */
export function encodeGeminiReasoning(
  part: ReasoningPart,
  path: string,
  warnings: TranslationNotes,
): GeminiRequestPart | undefined {
  if (part.redacted !== undefined) {
    warnings.drop(`${path}: redacted reasoning cannot be sent to Gemini; dropped`);
    return undefined;
  }
  if (!part.signature) return undefined;
  return part.text === ''
    ? { text: '', thoughtSignature: part.signature }
    : { text: part.text, thought: true, thoughtSignature: part.signature };
}

/** Parses tool-call arguments into an object; text that is not a JSON object becomes `{}` with a warning. */
function parseArguments(text: string, path: string, warnings: TranslationNotes): Record<string, unknown> {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  warnings.refuse(path, 'tool call arguments are not a JSON object');
  return {};
}

/** Tool call → `{functionCall: {name, args, id}, thoughtSignature?}` (the signature is echoed as Gemini 3 requires). */
export function encodeGeminiFunctionCall(
  part: ToolCallPart,
  path: string,
  warnings: TranslationNotes,
): GeminiRequestPart {
  const functionCall = { name: part.name, args: parseArguments(part.arguments, path, warnings), id: part.id };
  return part.signature ? { functionCall, thoughtSignature: part.signature } : { functionCall };
}

/**
 * Tool result → `{functionResponse: {name, response, id}}`. `name` must be resolved by the caller.
 * `response` is the content when it is a JSON object string, else `{result: content}`; for an
 * error result the value goes under `error` instead. Images in results are dropped with a warning.
 */
export function encodeGeminiFunctionResponse(
  part: ToolResultPart,
  name: string,
  path: string,
  warnings: TranslationNotes,
): GeminiRequestPart {
  let text: string;
  if (typeof part.content === 'string') text = part.content;
  else {
    if (part.content.some((item) => item.type === 'image'))
      warnings.refuse(path, 'images in tool results cannot be sent to Gemini');
    text = part.content.map((item) => (item.type === 'text' ? item.text : '')).join('');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  const response = part.isError ? { error: isObject ? value : text } : isObject ? value : { result: text };
  return { functionResponse: { name, response, id: part.toolCallId } };
}

/**
 * Canonical content parts → Anthropic request content blocks (per https://docs.anthropic.com/en/api/messages).
 * Each encoder returns the block, or undefined after pushing a warning when the part cannot be sent.
 */
import type {
  FilePart,
  ImagePart,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from '../../canonical/request.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** One Anthropic request content block (`text`, `image`, `document`, `tool_use`, …). */
export type AnthropicRequestBlock = { readonly type: string } & Readonly<Record<string, unknown>>;

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** Splits a base64 `data:` URL into media type and payload; undefined for any other URL. */
function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = DATA_URL.exec(url);
  return match?.[1] !== undefined && match[2] !== undefined ? { mediaType: match[1], data: match[2] } : undefined;
}

/** `image` block: base64 source, `data:` URLs unpacked to base64, other URLs as `url` source. */
export function encodeAnthropicImage(part: ImagePart): AnthropicRequestBlock {
  if (part.source.kind === 'base64') {
    return { type: 'image', source: { type: 'base64', media_type: part.source.mediaType, data: part.source.data } };
  }
  const inline = parseDataUrl(part.source.url);
  if (inline) return { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } };
  return { type: 'image', source: { type: 'url', url: part.source.url } };
}

/**
 * `document` block for a file: base64 PDF → base64 source, base64 `text/plain` → text source,
 * base64 images → `image` block, URL → `url` source (Anthropic fetches PDFs by URL). Provider file
 * ids and other media types are dropped with a warning.
 */
export function encodeAnthropicFile(
  part: FilePart,
  path: string,
  warnings: TranslationNotes,
): AnthropicRequestBlock | undefined {
  const source = part.source;
  if (source.kind === 'file-id') {
    warnings.refuse(path, 'a file id is specific to the provider that issued it and cannot be sent to this upstream');
    return undefined;
  }
  if (source.kind === 'url') {
    const inline = parseDataUrl(source.url);
    if (!inline) return { type: 'document', source: { type: 'url', url: source.url } };
    return encodeAnthropicFile({ type: 'file', source: { kind: 'base64', ...inline } }, path, warnings);
  }
  const title = source.filename === undefined ? {} : { title: source.filename };
  if (source.mediaType === 'application/pdf') {
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: source.data }, ...title };
  }
  if (source.mediaType === 'text/plain') {
    const text = Buffer.from(source.data, 'base64').toString('utf8');
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title };
  }
  if (source.mediaType.startsWith('image/')) {
    return encodeAnthropicImage({
      type: 'image',
      source: { kind: 'base64', mediaType: source.mediaType, data: source.data },
    });
  }
  warnings.refuse(path, `files of type ${source.mediaType} are not supported by Anthropic Messages`);
  return undefined;
}

/**
 * `tool_result` block: `content` string, or text/image blocks; `is_error: true` only when set.
 */
export function encodeAnthropicToolResult(part: ToolResultPart): AnthropicRequestBlock {
  const content =
    typeof part.content === 'string'
      ? part.content
      : part.content.map((item: TextPart | ImagePart) =>
          item.type === 'text' ? { type: 'text', text: item.text } : encodeAnthropicImage(item),
        );
  return { type: 'tool_result', tool_use_id: part.toolCallId, content, ...(part.isError ? { is_error: true } : {}) };
}

/**
 * `thinking` / `redacted_thinking` block for replayed reasoning. `redacted` → `redacted_thinking`
 * `{data}`. With `strict` (true Anthropic validates signatures) a reasoning part without a signature
 * is dropped with a warning; compat upstreams get `signature: ''` when none is known.
 */
export function encodeAnthropicReasoning(
  part: ReasoningPart,
  strict: boolean,
  path: string,
  warnings: TranslationNotes,
): AnthropicRequestBlock | undefined {
  if (part.redacted !== undefined) return { type: 'redacted_thinking', data: part.redacted };
  if (part.signature === undefined || part.signature === '') {
    if (strict) {
      warnings.drop(`${path}: reasoning without a signature cannot be replayed to this upstream; dropped`);
      return undefined;
    }
    return { type: 'thinking', thinking: part.text, signature: '' };
  }
  return { type: 'thinking', thinking: part.text, signature: part.signature };
}

/**
 * `tool_use` block: `input` is the parsed `arguments` JSON object; text that is not a JSON object
 * is sent as `{}` with a warning (Anthropic requires an object).
 */
export function encodeAnthropicToolUse(
  part: ToolCallPart,
  path: string,
  warnings: TranslationNotes,
): AnthropicRequestBlock {
  let input: unknown;
  try {
    input = part.arguments.trim() === '' ? {} : JSON.parse(part.arguments);
  } catch {
    input = undefined;
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    warnings.refuse(path, 'tool call arguments are not a JSON object');
    input = {};
  }
  return { type: 'tool_use', id: part.id, name: part.name, input };
}

/**
 * Canonical conversation → Converse `messages` (Message and ContentBlock of
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html and
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html):
 * consecutive same-role turns merged, `toolResult` blocks first in their user message (Claude
 * requires it), empty turns dropped. Blobs (image and document bytes, redacted reasoning) travel
 * as base64 text, as the JSON wire carries them.
 */
import type {
  CanonicalMessage,
  ContentPart,
  FilePart,
  ImagePart,
  ReasoningPart,
  ToolCallPart,
  ToolResultPart,
} from '../../canonical/request.ts';
import type { TranslationNotes } from '../../canonical/translation-notes.ts';
import type { ConverseModelFamily } from './converse-model-family.ts';

/** One Converse ContentBlock as sent (exactly one member set). */
export type ConverseRequestBlock = Readonly<Record<string, unknown>>;

/** One Converse request message. */
export interface ConverseRequestMessage {
  readonly role: 'user' | 'assistant';
  readonly content: ConverseRequestBlock[];
}

/** ImageFormat of https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html by media type. */
const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** DocumentFormat of https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html by media type. */
const DOCUMENT_FORMATS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/markdown': 'md',
  'text/plain': 'txt',
};

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** Splits a base64 `data:` URL into media type and payload; undefined for any other URL. */
function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = DATA_URL.exec(url);
  return match?.[1] !== undefined && match[2] !== undefined ? { mediaType: match[1], data: match[2] } : undefined;
}

/** Per-request state of the encoder: the document names used so far (Converse wants them distinct). */
interface EncodeState {
  readonly family: ConverseModelFamily;
  readonly notes: TranslationNotes;
  readonly documentNames: Set<string>;
}

/**
 * `image` block from base64 bytes, a `data:` URL or an `s3://` URI. Converse takes no other URL
 * (ImageSource is bytes or s3Location): such an image, or one of a format Converse does not read,
 * is refused by path.
 */
function encodeImage(part: ImagePart, path: string, notes: TranslationNotes): ConverseRequestBlock | undefined {
  let inline: { mediaType: string; data: string } | undefined;
  if (part.source.kind === 'base64') inline = { mediaType: part.source.mediaType, data: part.source.data };
  else if (part.source.url.startsWith('s3://')) {
    const format = IMAGE_FORMATS[`image/${part.source.url.split('.').pop()?.toLowerCase() ?? ''}`];
    if (format) return { image: { format, source: { s3Location: { uri: part.source.url } } } };
  } else inline = parseDataUrl(part.source.url);
  if (!inline) {
    notes.refuse(path, 'Amazon Bedrock Converse takes images as bytes or s3:// locations, not by URL');
    return undefined;
  }
  const format = IMAGE_FORMATS[inline.mediaType.toLowerCase()];
  if (!format) {
    notes.refuse(path, `images of type ${inline.mediaType} are not supported by Amazon Bedrock Converse`);
    return undefined;
  }
  return { image: { format, source: { bytes: inline.data } } };
}

/**
 * A document name Converse accepts (alphanumerics, whitespace, hyphens, parentheses and square
 * brackets, no two whitespace characters in a row), distinct within the request.
 */
function documentName(filename: string | undefined, path: string, state: EncodeState): string {
  const stem = (filename ?? '').replace(/\.[^.]*$/, '');
  const cleaned = stem
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
  const base = cleaned === '' ? `document ${path.replace(/\D+/g, '-').replace(/^-|-$/g, '')}` : cleaned;
  let name = base;
  for (let n = 2; state.documentNames.has(name); n++) name = `${base} (${n})`;
  state.documentNames.add(name);
  return name;
}

/**
 * `document` block for a file given as base64 or a `data:` URL in a DocumentFormat Converse reads
 * (pdf, csv, doc, docx, xls, xlsx, html, md, txt); images given as files become `image` blocks.
 * URLs, provider file ids and other media types are refused by path.
 */
function encodeFile(part: FilePart, path: string, state: EncodeState): ConverseRequestBlock | undefined {
  const source = part.source;
  if (source.kind === 'file-id') {
    state.notes.refuse(
      path,
      'a file id is specific to the provider that issued it and cannot be sent to Amazon Bedrock',
    );
    return undefined;
  }
  const inline = source.kind === 'base64' ? source : parseDataUrl(source.url);
  if (!inline) {
    state.notes.refuse(path, 'Amazon Bedrock Converse takes documents as bytes, not by URL');
    return undefined;
  }
  const mediaType = inline.mediaType.toLowerCase();
  if (mediaType.startsWith('image/'))
    return encodeImage({ type: 'image', source: { kind: 'base64', mediaType, data: inline.data } }, path, state.notes);
  const format = DOCUMENT_FORMATS[mediaType];
  if (!format) {
    state.notes.refuse(path, `files of type ${inline.mediaType} are not supported by Amazon Bedrock Converse`);
    return undefined;
  }
  const filename = source.kind === 'base64' ? source.filename : undefined;
  return { document: { format, name: documentName(filename, path, state), source: { bytes: inline.data } } };
}

/**
 * `reasoningContent` block of replayed reasoning: `redactedContent` for a redacted block, else
 * `reasoningText {text, signature}`. Reasoning without a signature is dropped as safe: Claude
 * refuses unsigned thinking, and the other families do not read reasoning back.
 */
function encodeReasoning(part: ReasoningPart, path: string, notes: TranslationNotes): ConverseRequestBlock | undefined {
  if (part.redacted !== undefined) return { reasoningContent: { redactedContent: part.redacted } };
  if (part.signature === undefined || part.signature === '') {
    notes.drop(`${path}: reasoning without a signature cannot be replayed to Amazon Bedrock; dropped`);
    return undefined;
  }
  return { reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } };
}

/** `toolUse` block: `input` is the parsed `arguments` object; other JSON is refused and sent as `{}`. */
function encodeToolUse(part: ToolCallPart, path: string, notes: TranslationNotes): ConverseRequestBlock {
  let input: unknown;
  try {
    input = part.arguments.trim() === '' ? {} : JSON.parse(part.arguments);
  } catch {
    input = undefined;
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    notes.refuse(path, 'tool call arguments are not a JSON object');
    input = {};
  }
  return { toolUse: { toolUseId: part.id, name: part.name, input } };
}

/**
 * `toolResult` block: text and images as ToolResultContentBlocks; `status: "error"` for a failed
 * call on the families that document it (Anthropic Claude, Amazon Nova); elsewhere the flag is
 * dropped as safe (the result text still says what went wrong).
 */
function encodeToolResult(part: ToolResultPart, path: string, state: EncodeState): ConverseRequestBlock {
  const items = typeof part.content === 'string' ? [{ type: 'text' as const, text: part.content }] : part.content;
  const content: ConverseRequestBlock[] = [];
  items.forEach((item, i) => {
    if (item.type === 'text') content.push({ text: item.text });
    else {
      const image = encodeImage(item, `${path}.content.${i}`, state.notes);
      if (image) content.push(image);
    }
  });
  const result: Record<string, unknown> = { toolUseId: part.toolCallId, content };
  if (part.isError) {
    if (state.family === 'anthropic' || state.family === 'nova') result.status = 'error';
    else
      state.notes.drop(`${path}: the error flag of a tool result is not read by this model on Amazon Bedrock; dropped`);
  }
  return { toolResult: result };
}

function encodePart(
  part: ContentPart,
  role: CanonicalMessage['role'],
  path: string,
  state: EncodeState,
): ConverseRequestBlock | undefined {
  switch (part.type) {
    case 'text':
      // Converse refuses a blank text block ("text content blocks must contain non-whitespace
      // text"), which Claude often puts before a tool call and agents replay: it carries nothing.
      return part.text.trim() === '' ? undefined : { text: part.text };
    case 'image':
      return encodeImage(part, path, state.notes);
    case 'file':
      return encodeFile(part, path, state);
    case 'reasoning':
      if (role === 'assistant') return encodeReasoning(part, path, state.notes);
      state.notes.refuse(path, 'reasoning in a user turn cannot be sent to Amazon Bedrock Converse');
      return undefined;
    case 'tool-call':
      if (role === 'assistant') return encodeToolUse(part, path, state.notes);
      state.notes.refuse(path, 'a tool call in a user turn cannot be sent to Amazon Bedrock Converse');
      return undefined;
    case 'tool-result':
      if (role === 'user') return encodeToolResult(part, path, state);
      state.notes.refuse(path, 'a tool result in an assistant turn cannot be sent to Amazon Bedrock Converse');
      return undefined;
  }
}

/** Tool results before any other block of their user message. */
function toolResultsFirst(blocks: ConverseRequestBlock[]): ConverseRequestBlock[] {
  const results = blocks.filter((block) => 'toolResult' in block);
  return results.length === 0 || results.length === blocks.length
    ? blocks
    : [...results, ...blocks.filter((block) => !('toolResult' in block))];
}

/**
 * Encodes the canonical messages for a model of `family`. Parts that cannot be sent are refused
 * or dropped with a note naming their path (`messages.3.content.1`); a turn left with no blocks
 * is dropped (with a note) and its neighbours merge when they now share a role.
 */
/** No turn ends a cached prefix. */
const NO_CACHE_POINTS: ReadonlySet<number> = new Set();

export function encodeConverseMessages(
  messages: ReadonlyArray<CanonicalMessage>,
  family: ConverseModelFamily,
  notes: TranslationNotes,
  cacheAfter: ReadonlySet<number> = NO_CACHE_POINTS,
): ConverseRequestMessage[] {
  const state: EncodeState = { family, notes, documentNames: new Set() };
  const out: ConverseRequestMessage[] = [];
  messages.forEach((message, m) => {
    const blocks: ConverseRequestBlock[] = [];
    message.content.forEach((part, p) => {
      const block = encodePart(part, message.role, `messages.${m}.content.${p}`, state);
      if (block) blocks.push(block);
    });
    if (blocks.length === 0) {
      if (message.content.length > 0) notes.drop(`messages.${m}: nothing left to send in this turn; dropped`);
      return;
    }
    if (cacheAfter.has(m)) blocks.push({ cachePoint: { type: 'default' } });
    const last = out[out.length - 1];
    if (last?.role === message.role) last.content.push(...blocks);
    else out.push({ role: message.role, content: blocks });
  });
  return out.map((message) =>
    message.role === 'user' ? { role: 'user', content: toolResultsFirst(message.content) } : message,
  );
}

/**
 * Converts validated Anthropic request content blocks (https://docs.anthropic.com/en/api/messages) into canonical
 * content parts. Untranslatable blocks are dropped and reported in `warnings`.
 */
import type { ContentPart, FilePart, ImagePart, TextPart } from '../../canonical/request.ts';
import type {
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicToolResultBlock,
  ToolResultInnerBlock,
} from './anthropic-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** An image block: base64/url → ImagePart; a Files-API `file_id` → FilePart (kind `file-id`). */
function decodeImage(block: AnthropicImageBlock): ImagePart | FilePart {
  const source = block.source;
  switch (source.type) {
    case 'base64':
      return { type: 'image', source: { kind: 'base64', mediaType: source.media_type, data: source.data } };
    case 'url':
      return { type: 'image', source: { kind: 'url', url: source.url } };
    case 'file':
      return { type: 'file', source: { kind: 'file-id', fileId: source.file_id } };
  }
}

/** A document block: base64/url/file → FilePart; a plain-text source → TextPart; a content source → its text. */
function decodeDocument(block: AnthropicDocumentBlock, where: string, warnings: TranslationNotes): ContentPart[] {
  const source = block.source;
  const title = block.title ?? undefined;
  switch (source.type) {
    case 'base64':
      return [
        {
          type: 'file',
          source:
            title === undefined
              ? { kind: 'base64', mediaType: source.media_type, data: source.data }
              : { kind: 'base64', mediaType: source.media_type, data: source.data, filename: title },
        },
      ];
    case 'url':
      return [{ type: 'file', source: { kind: 'url', url: source.url } }];
    case 'file':
      return [{ type: 'file', source: { kind: 'file-id', fileId: source.file_id } }];
    case 'text':
      return [{ type: 'text', text: source.data }];
    case 'content': {
      if (typeof source.content === 'string') return [{ type: 'text', text: source.content }];
      const texts: TextPart[] = [];
      for (const inner of source.content) {
        if (inner.type === 'text' && typeof inner.text === 'string') texts.push({ type: 'text', text: inner.text });
        else warnings.refuse(where, `a document content block of type "${inner.type}" has no equivalent on other APIs`);
      }
      return texts;
    }
  }
}

function decodeToolResultContent(
  content: AnthropicToolResultBlock['content'],
  where: string,
  warnings: TranslationNotes,
): string | Array<TextPart | ImagePart> {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  const parts: Array<TextPart | ImagePart> = [];
  content.forEach((inner: ToolResultInnerBlock, i) => {
    if (inner.type === 'text') parts.push({ type: 'text', text: inner.text });
    else if (inner.type === 'image' && inner.source.type !== 'file') parts.push(decodeImage(inner) as ImagePart);
    else {
      const what = inner.type === 'image' ? 'an image by file_id' : `block type "${inner.originalType}"`;
      warnings.refuse(`${where}.content.${i}`, `${what} inside tool_result has no equivalent on other APIs`);
    }
  });
  return parts;
}

/**
 * Converts one block. `where` is its path (e.g. `messages.2.content.0`) for warnings.
 * tool_use `input` becomes JSON text; thinking keeps its signature; redacted_thinking its data.
 */
export function decodeAnthropicBlock(
  block: AnthropicContentBlock,
  where: string,
  warnings: TranslationNotes,
): ContentPart[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: block.text }];
    case 'image':
      return [decodeImage(block)];
    case 'document':
      return decodeDocument(block, where, warnings);
    case 'tool_use':
      return [{ type: 'tool-call', id: block.id, name: block.name, arguments: JSON.stringify(block.input) }];
    case 'tool_result': {
      const content = decodeToolResultContent(block.content, where, warnings);
      return [
        block.is_error === true
          ? { type: 'tool-result', toolCallId: block.tool_use_id, content, isError: true }
          : { type: 'tool-result', toolCallId: block.tool_use_id, content },
      ];
    }
    case 'thinking':
      return [
        block.signature
          ? { type: 'reasoning', text: block.thinking, signature: block.signature }
          : { type: 'reasoning', text: block.thinking },
      ];
    case 'redacted_thinking':
      return [{ type: 'reasoning', text: '', redacted: block.data }];
    case 'unsupported':
      warnings.refuse(where, `content block type "${block.originalType}" has no equivalent on other APIs`);
      return [];
  }
}

/** Converts a message's content (a string is one text part). */
export function decodeAnthropicContent(
  content: string | ReadonlyArray<AnthropicContentBlock>,
  where: string,
  warnings: TranslationNotes,
): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: ContentPart[] = [];
  content.forEach((block, i) => parts.push(...decodeAnthropicBlock(block, `${where}.${i}`, warnings)));
  return parts;
}

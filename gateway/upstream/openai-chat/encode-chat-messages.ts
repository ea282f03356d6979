/**
 * Canonical conversation → Chat Completions `messages` (https://platform.openai.com/docs/api-reference/chat).
 * - `system` becomes one leading `{role:'system'}` message (compat upstreams do not all know
 *   `developer`, gateway/providers/PROVIDER-DOCS.md).
 * - A user turn's tool results become one `{role:'tool'}` message each, placed before the turn's
 *   remaining user content (Chat requires tool messages right after the assistant tool calls).
 * - Assistant reasoning is replayed as `reasoning_content` only when the provider wants it
 *   (`quirks.replayReasoningContent`; https://api-docs.deepseek.com/guides/thinking_mode); otherwise it is dropped, which is normal and not warned.
 */
import type {
  CanonicalMessage,
  CanonicalRequest,
  ContentPart,
  FilePart,
  ImagePart,
  ToolResultPart,
} from '../../canonical/request.ts';
import type { ProviderQuirks } from '../../providers/provider-preset.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** One Chat Completions message as sent on the wire. */
export type ChatWireMessage = Record<string, unknown>;

/** A `data:` URL for inline base64 content. */
function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

function encodeImage(part: ImagePart): ChatWireMessage {
  const url = part.source.kind === 'url' ? part.source.url : dataUrl(part.source.mediaType, part.source.data);
  return { type: 'image_url', image_url: { url } };
}

/** `file` part: by id, or inline as filename + data URL; a non-image URL cannot be expressed. */
function encodeFile(part: FilePart, path: string, warnings: TranslationNotes): ChatWireMessage | undefined {
  const source = part.source;
  if (source.kind === 'file-id') return { type: 'file', file: { file_id: source.fileId } };
  if (source.kind === 'base64') {
    const extension = source.mediaType.split('/')[1]?.split(/[+;]/)[0] ?? 'bin';
    return {
      type: 'file',
      file: { filename: source.filename ?? `document.${extension}`, file_data: dataUrl(source.mediaType, source.data) },
    };
  }
  if (source.mediaType?.startsWith('image/')) return { type: 'image_url', image_url: { url: source.url } };
  warnings.refuse(
    path,
    'a file given by URL cannot be sent (Chat Completions accepts files only inline or by file id)',
  );
  return undefined;
}

/**
 * One `{role:'tool'}` message (text parts joined with newlines) and the result's images. Chat
 * Completions tool messages carry text only
 * (https://platform.openai.com/docs/api-reference/chat/create, "Tool message"), so images travel in
 * the user message that follows the tool messages, introduced by a line naming the tool call.
 */
function encodeToolResult(
  part: ToolResultPart,
  path: string,
  warnings: TranslationNotes,
): { message: ChatWireMessage; images: ChatWireMessage[] } {
  let content: string;
  const images: ChatWireMessage[] = [];
  if (typeof part.content === 'string') {
    content = part.content;
  } else {
    content = part.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
    const imageParts = part.content.filter((p): p is ImagePart => p.type === 'image');
    if (imageParts.length > 0)
      images.push(
        { type: 'text', text: `Images returned by tool call ${part.toolCallId}:` },
        ...imageParts.map(encodeImage),
      );
  }
  if (part.isError)
    warnings.drop(
      `${path}: tool-result error flag dropped (Chat Completions has no such flag; the result's text still says what failed)`,
    );
  return { message: { role: 'tool', tool_call_id: part.toolCallId, content }, images };
}

/** Tool messages first, then one user message with the tool results' images and the remaining parts (string when one text part). */
function encodeUserTurn(message: CanonicalMessage, path: string, warnings: TranslationNotes): ChatWireMessage[] {
  const toolMessages: ChatWireMessage[] = [];
  const toolImages: ChatWireMessage[] = [];
  const parts: ChatWireMessage[] = [];
  message.content.forEach((part: ContentPart, i) => {
    const partPath = `${path}.content.${i}`;
    if (part.type === 'tool-result') {
      const encoded = encodeToolResult(part, partPath, warnings);
      toolMessages.push(encoded.message);
      toolImages.push(...encoded.images);
    } else if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else if (part.type === 'image') parts.push(encodeImage(part));
    else if (part.type === 'file') {
      const file = encodeFile(part, partPath, warnings);
      if (file) parts.push(file);
    } else warnings.refuse(partPath, `a ${part.type} part cannot be sent in a user turn on Chat Completions`);
  });
  const all = [...toolImages, ...parts];
  if (all.length === 0) return toolMessages;
  const only = all[0];
  const content = all.length === 1 && only?.type === 'text' ? only.text : all;
  return [...toolMessages, { role: 'user', content }];
}

/** Assistant turn: joined text (null when there are tool calls and no text), tool_calls, optional reasoning_content. */
function encodeAssistantTurn(
  message: CanonicalMessage,
  path: string,
  quirks: ProviderQuirks,
  warnings: TranslationNotes,
): ChatWireMessage {
  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ChatWireMessage[] = [];
  message.content.forEach((part, i) => {
    if (part.type === 'text') text.push(part.text);
    else if (part.type === 'reasoning') reasoning.push(part.text);
    else if (part.type === 'tool-call')
      toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
    else
      warnings.refuse(
        `${path}.content.${i}`,
        `a ${part.type} part cannot be sent in an assistant turn (Chat Completions assistant messages carry text and tool calls only)`,
      );
  });
  const wire: ChatWireMessage = {
    role: 'assistant',
    content: text.length > 0 ? text.join('') : toolCalls.length > 0 ? null : '',
  };
  if (toolCalls.length > 0) wire.tool_calls = toolCalls;
  const reasoningText = reasoning.join('');
  if (quirks.replayReasoningContent && reasoningText !== '') wire.reasoning_content = reasoningText;
  return wire;
}

/**
 * Encodes `request.system` and `request.messages`. Returns the wire messages and warnings
 * (`messages.<i>.content.<j>: …`) for parts Chat Completions cannot carry. Never throws.
 */
export function encodeChatMessages(
  request: CanonicalRequest,
  quirks: ProviderQuirks,
): { messages: ChatWireMessage[]; warnings: TranslationNotes } {
  const warnings = new TranslationNotes();
  const messages: ChatWireMessage[] = [];
  if (request.system !== undefined && request.system !== '') messages.push({ role: 'system', content: request.system });
  request.messages.forEach((message, i) => {
    const path = `messages.${i}`;
    if (message.role === 'user') messages.push(...encodeUserTurn(message, path, warnings));
    else messages.push(encodeAssistantTurn(message, path, quirks, warnings));
  });
  return { messages, warnings };
}

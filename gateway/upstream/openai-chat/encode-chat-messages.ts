/**
 * Canonical conversation → Chat Completions `messages` (https://platform.openai.com/docs/api-reference/chat).
 * - `system` becomes one leading `{role:'system'}` message (compat upstreams do not all know
 *   `developer`, gateway/providers/PROVIDER-DOCS.md).
 * - A user turn's tool results become one `{role:'tool'}` message each, placed before the turn's
 *   remaining user content (Chat requires tool messages right after the assistant tool calls).
 * - Assistant reasoning is replayed as `reasoning_content` only when the provider wants it
 *   (`quirks.replayReasoningContent`, §6); otherwise it is dropped, which is normal and not warned.
 */
import type { CanonicalMessage, CanonicalRequest, ContentPart, FilePart, ImagePart, ToolResultPart } from '../../canonical/request.ts';
import type { ProviderQuirks } from '../../providers/provider-preset.ts';

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
function encodeFile(part: FilePart, path: string, warnings: string[]): ChatWireMessage | undefined {
  const source = part.source;
  if (source.kind === 'file-id') return { type: 'file', file: { file_id: source.fileId } };
  if (source.kind === 'base64') {
    const extension = source.mediaType.split('/')[1]?.split(/[+;]/)[0] ?? 'bin';
    return { type: 'file', file: { filename: source.filename ?? `document.${extension}`, file_data: dataUrl(source.mediaType, source.data) } };
  }
  if (source.mediaType?.startsWith('image/')) return { type: 'image_url', image_url: { url: source.url } };
  warnings.push(`${path}: file given by URL dropped (Chat Completions accepts files only inline or by file id)`);
  return undefined;
}

/** One `{role:'tool'}` message; text parts are joined with newlines, images are dropped. */
function encodeToolResult(part: ToolResultPart, path: string, warnings: string[]): ChatWireMessage {
  let content: string;
  if (typeof part.content === 'string') {
    content = part.content;
  } else {
    if (part.content.some((p) => p.type === 'image')) warnings.push(`${path}: image in a tool result dropped (Chat Completions tool messages carry text only)`);
    content = part.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  }
  if (part.isError) warnings.push(`${path}: tool-result error flag dropped (Chat Completions has no such flag)`);
  return { role: 'tool', tool_call_id: part.toolCallId, content };
}

/** Tool messages first, then one user message with the remaining parts (string when one text part). */
function encodeUserTurn(message: CanonicalMessage, path: string, warnings: string[]): ChatWireMessage[] {
  const toolMessages: ChatWireMessage[] = [];
  const parts: ChatWireMessage[] = [];
  message.content.forEach((part: ContentPart, i) => {
    const partPath = `${path}.content.${i}`;
    if (part.type === 'tool-result') toolMessages.push(encodeToolResult(part, partPath, warnings));
    else if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else if (part.type === 'image') parts.push(encodeImage(part));
    else if (part.type === 'file') {
      const file = encodeFile(part, partPath, warnings);
      if (file) parts.push(file);
    } else warnings.push(`${partPath}: ${part.type} part in a user turn dropped`);
  });
  if (parts.length === 0) return toolMessages;
  const only = parts[0];
  const content = parts.length === 1 && only?.type === 'text' ? only.text : parts;
  return [...toolMessages, { role: 'user', content }];
}

/** Assistant turn: joined text (null when there are tool calls and no text), tool_calls, optional reasoning_content. */
function encodeAssistantTurn(message: CanonicalMessage, path: string, quirks: ProviderQuirks, warnings: string[]): ChatWireMessage {
  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ChatWireMessage[] = [];
  message.content.forEach((part, i) => {
    if (part.type === 'text') text.push(part.text);
    else if (part.type === 'reasoning') reasoning.push(part.text);
    else if (part.type === 'tool-call') toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
    else warnings.push(`${path}.content.${i}: ${part.type} part in an assistant turn dropped (Chat Completions assistant messages carry text and tool calls only)`);
  });
  const wire: ChatWireMessage = { role: 'assistant', content: text.length > 0 ? text.join('') : toolCalls.length > 0 ? null : '' };
  if (toolCalls.length > 0) wire.tool_calls = toolCalls;
  const reasoningText = reasoning.join('');
  if (quirks.replayReasoningContent && reasoningText !== '') wire.reasoning_content = reasoningText;
  return wire;
}

/**
 * Encodes `request.system` and `request.messages`. Returns the wire messages and warnings
 * (`messages.<i>.content.<j>: …`) for parts Chat Completions cannot carry. Never throws.
 */
export function encodeChatMessages(request: CanonicalRequest, quirks: ProviderQuirks): { messages: ChatWireMessage[]; warnings: string[] } {
  const warnings: string[] = [];
  const messages: ChatWireMessage[] = [];
  if (request.system !== undefined && request.system !== '') messages.push({ role: 'system', content: request.system });
  request.messages.forEach((message, i) => {
    const path = `messages.${i}`;
    if (message.role === 'user') messages.push(...encodeUserTurn(message, path, warnings));
    else messages.push(encodeAssistantTurn(message, path, quirks, warnings));
  });
  return { messages, warnings };
}

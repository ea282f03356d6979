/**
 * Canonical conversation → Responses `input` items (https://platform.openai.com/docs/api-reference/responses), stateless style
 * (`store:false`, full history each call):
 * - user turn → its tool results as `function_call_output` items first, then one user `message`
 *   with `input_text` / `input_image` / `input_file` parts;
 * - assistant turn → in order: `message` items with `output_text` parts, `reasoning` items (only when
 *   a signature exists: it travels as `encrypted_content`; unsigned reasoning cannot be replayed and
 *   is dropped silently, as is normal), `function_call` items.
 */
import type { CanonicalMessage, FilePart, ImagePart, ToolResultPart } from '../../canonical/request.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** One Responses input item as sent on the wire. */
export type ResponsesInputItem = Record<string, unknown>;

function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

function encodeImage(part: ImagePart): ResponsesInputItem {
  const url = part.source.kind === 'url' ? part.source.url : dataUrl(part.source.mediaType, part.source.data);
  return { type: 'input_image', image_url: url, detail: 'auto' };
}

function encodeFile(part: FilePart): ResponsesInputItem {
  const source = part.source;
  if (source.kind === 'file-id') return { type: 'input_file', file_id: source.fileId };
  if (source.kind === 'url') return { type: 'input_file', file_url: source.url };
  const extension = source.mediaType.split('/')[1]?.split(/[+;]/)[0] ?? 'bin';
  return {
    type: 'input_file',
    filename: source.filename ?? `document.${extension}`,
    file_data: dataUrl(source.mediaType, source.data),
  };
}

/** `function_call_output`: a string, or a part list when the result holds images. */
function encodeToolResult(part: ToolResultPart, path: string, warnings: TranslationNotes): ResponsesInputItem {
  let output: unknown;
  if (typeof part.content === 'string') output = part.content;
  else if (part.content.some((p) => p.type === 'image'))
    output = part.content.map((p) => (p.type === 'text' ? { type: 'input_text', text: p.text } : encodeImage(p)));
  else output = part.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  if (part.isError) warnings.drop(`${path}: tool-result error flag dropped (Responses has no such flag)`);
  return { type: 'function_call_output', call_id: part.toolCallId, output };
}

function encodeUserTurn(message: CanonicalMessage, path: string, warnings: TranslationNotes): ResponsesInputItem[] {
  const outputs: ResponsesInputItem[] = [];
  const parts: ResponsesInputItem[] = [];
  message.content.forEach((part, i) => {
    const partPath = `${path}.content.${i}`;
    if (part.type === 'tool-result') outputs.push(encodeToolResult(part, partPath, warnings));
    else if (part.type === 'text') parts.push({ type: 'input_text', text: part.text });
    else if (part.type === 'image') parts.push(encodeImage(part));
    else if (part.type === 'file') parts.push(encodeFile(part));
    else warnings.refuse(partPath, `a ${part.type} part cannot be sent in a user turn on the Responses API`);
  });
  return parts.length === 0 ? outputs : [...outputs, { type: 'message', role: 'user', content: parts }];
}

function encodeAssistantTurn(
  message: CanonicalMessage,
  path: string,
  warnings: TranslationNotes,
): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  let texts: ResponsesInputItem[] = [];
  const flushText = (): void => {
    if (texts.length > 0) items.push({ type: 'message', role: 'assistant', content: texts });
    texts = [];
  };
  message.content.forEach((part, i) => {
    if (part.type === 'text') {
      texts.push({ type: 'output_text', text: part.text, annotations: [] });
      return;
    }
    flushText();
    if (part.type === 'reasoning') {
      if (part.signature)
        items.push({
          type: 'reasoning',
          summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
          encrypted_content: part.signature,
        });
    } else if (part.type === 'tool-call') {
      items.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments });
    } else {
      warnings.refuse(
        `${path}.content.${i}`,
        `a ${part.type} part cannot be sent in an assistant turn (Responses assistant items carry text, reasoning and function calls only)`,
      );
    }
  });
  flushText();
  return items;
}

/**
 * Encodes `messages` into input items. Returns the items and warnings
 * (`messages.<i>.content.<j>: …`) for parts Responses cannot carry. Never throws.
 */
export function encodeResponsesInput(messages: ReadonlyArray<CanonicalMessage>): {
  input: ResponsesInputItem[];
  warnings: TranslationNotes;
} {
  const warnings = new TranslationNotes();
  const input: ResponsesInputItem[] = [];
  messages.forEach((message, i) => {
    const path = `messages.${i}`;
    input.push(
      ...(message.role === 'user'
        ? encodeUserTurn(message, path, warnings)
        : encodeAssistantTurn(message, path, warnings)),
    );
  });
  return { input, warnings };
}

/**
 * Content parts of Responses input items (per https://platform.openai.com/docs/api-reference/responses) → canonical parts.
 * Clients are sloppy about `input_text` vs `output_text`, so both are accepted on every role.
 * Part types that cannot be translated are dropped with a warning; malformed parts throw
 * RequestFieldError (caught by the codec).
 */
import type { FilePart, ImagePart, TextPart } from '../../canonical/request.ts';
import { filePartFromFields, imagePartFromUrl } from '../openai-common/decode-openai-media.ts';
import { isJsonObject, parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';
import { filePartSchema, imagePartSchema, refusalPartSchema, textPartSchema } from './responses-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** Parts a user turn may carry. */
export type UserContentPart = TextPart | ImagePart | FilePart;

/** Returns the part's `type`, throwing when the part is not an object with a string type. */
function partType(part: unknown, path: FieldPath): string {
  if (!isJsonObject(part) || typeof part.type !== 'string')
    throw new RequestFieldError(path, 'expected an object with a string `type`');
  return part.type;
}

function textPart(part: unknown, path: FieldPath): TextPart {
  return { type: 'text', text: parseAt(textPartSchema, part, path).text };
}

function imagePart(part: unknown, path: FieldPath): ImagePart | FilePart {
  const image = parseAt(imagePartSchema, part, path);
  if (image.image_url) return imagePartFromUrl(image.image_url);
  if (image.file_id) return { type: 'file', source: { kind: 'file-id', fileId: image.file_id } };
  throw new RequestFieldError(path, 'input_image needs `image_url` or `file_id`');
}

function filePart(part: unknown, path: FieldPath): FilePart {
  const file = filePartFromFields(parseAt(filePartSchema, part, path));
  if (file === undefined) throw new RequestFieldError(path, 'input_file needs `file_id`, `file_data` or `file_url`');
  return file;
}

function dropped(path: FieldPath, type: string, role: string, warnings: TranslationNotes): undefined {
  warnings.refuse(path.join('.'), `content part type '${type}' in ${role} content has no equivalent on other APIs`);
  return undefined;
}

/** Decodes user content: a string, or input_text / input_image / input_file parts. */
export function decodeUserContent(
  content: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): UserContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: UserContentPart[] = [];
  content.forEach((part, i) => {
    const at = [...path, i];
    const type = partType(part, at);
    if (type === 'input_text' || type === 'output_text') parts.push(textPart(part, at));
    else if (type === 'input_image') parts.push(imagePart(part, at));
    else if (type === 'input_file') parts.push(filePart(part, at));
    else dropped(at, type, 'user', warnings);
  });
  return parts;
}

/** Decodes assistant history content: output_text / input_text parts and `refusal` parts (as text). */
export function decodeAssistantContent(
  content: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const parts: TextPart[] = [];
  content.forEach((part, i) => {
    const at = [...path, i];
    const type = partType(part, at);
    if (type === 'output_text' || type === 'input_text') parts.push(textPart(part, at));
    else if (type === 'refusal') parts.push({ type: 'text', text: parseAt(refusalPartSchema, part, at).refusal });
    else dropped(at, type, 'assistant', warnings);
  });
  return parts.filter((p) => p.text !== '');
}

/** Decodes system/developer content into one string (text parts joined with "\n\n"). */
export function decodeInstructionContent(
  content: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): string {
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  content.forEach((part, i) => {
    const at = [...path, i];
    const type = partType(part, at);
    if (type === 'input_text' || type === 'output_text') texts.push(textPart(part, at).text);
    else dropped(at, type, 'system/developer', warnings);
  });
  return texts.join('\n\n');
}

/** Decodes `function_call_output.output`: a string, or input_text / input_image parts (files dropped). */
export function decodeToolOutput(
  output: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): string | Array<TextPart | ImagePart> {
  if (typeof output === 'string') return output;
  const parts: Array<TextPart | ImagePart> = [];
  output.forEach((part, i) => {
    const at = [...path, i];
    const type = partType(part, at);
    if (type === 'input_text' || type === 'output_text') {
      parts.push(textPart(part, at));
      return;
    }
    const decoded = type === 'input_image' ? imagePart(part, at) : undefined;
    if (decoded?.type === 'image') parts.push(decoded);
    else dropped(at, decoded ? 'input_image (by file_id)' : type, 'tool output', warnings);
  });
  return parts;
}

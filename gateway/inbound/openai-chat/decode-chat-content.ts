/**
 * Chat Completions content parts (per https://platform.openai.com/docs/api-reference/chat) → canonical parts.
 * `input_audio` and other untranslatable parts are dropped with a warning; malformed parts throw
 * RequestFieldError (caught by the codec).
 */
import type { FilePart, ImagePart, TextPart } from '../../canonical/request.ts';
import { filePartFromFields, imagePartFromUrl } from '../openai-common/decode-openai-media.ts';
import { isJsonObject, parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';
import { filePartSchema, imageUrlPartSchema, refusalPartSchema, textPartSchema } from './chat-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

function partType(part: unknown, path: FieldPath): string {
  if (!isJsonObject(part) || typeof part.type !== 'string')
    throw new RequestFieldError(path, 'expected an object with a string `type`');
  return part.type;
}

function dropped(path: FieldPath, type: string, role: string, warnings: TranslationNotes): void {
  warnings.refuse(path.join('.'), `content part type '${type}' in ${role} content has no equivalent on other APIs`);
}

function textOf(part: unknown, path: FieldPath): TextPart {
  return { type: 'text', text: parseAt(textPartSchema, part, path).text };
}

function imageOf(part: unknown, path: FieldPath): ImagePart {
  const image = parseAt(imageUrlPartSchema, part, path).image_url;
  return imagePartFromUrl(typeof image === 'string' ? image : image.url);
}

function fileOf(part: unknown, path: FieldPath): FilePart {
  const file = filePartFromFields(parseAt(filePartSchema, part, path).file);
  if (file === undefined) throw new RequestFieldError([...path, 'file'], 'needs `file_id` or `file_data`');
  return file;
}

/** User content: a string, or text / image_url / file parts (input_audio dropped with a warning). */
export function decodeChatUserContent(
  content: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): Array<TextPart | ImagePart | FilePart> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: Array<TextPart | ImagePart | FilePart> = [];
  content.forEach((part, i) => {
    const at = [...path, i];
    const type = partType(part, at);
    if (type === 'text') parts.push(textOf(part, at));
    else if (type === 'image_url') parts.push(imageOf(part, at));
    else if (type === 'file') parts.push(fileOf(part, at));
    else dropped(at, type, 'user', warnings);
  });
  return parts;
}

/** Text-only content (system, developer, tool, assistant): text parts, plus `refusal` parts for the assistant role. */
export function decodeChatTextContent(
  content: string | unknown[],
  path: FieldPath,
  role: string,
  warnings: TranslationNotes,
): string[] {
  if (typeof content === 'string') return [content];
  const texts: string[] = [];
  content.forEach((part, i) => {
    const at = [...path, i];
    const type = partType(part, at);
    if (type === 'text') texts.push(textOf(part, at).text);
    else if (type === 'refusal' && role === 'assistant') texts.push(parseAt(refusalPartSchema, part, at).refusal);
    else dropped(at, type, role, warnings);
  });
  return texts;
}

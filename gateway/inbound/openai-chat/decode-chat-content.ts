/**
 * Chat Completions content parts (per https://platform.openai.com/docs/api-reference/chat) → canonical parts.
 * `input_audio` and other untranslatable parts are dropped with a warning; malformed parts throw
 * RequestFieldError (caught by the codec).
 */
import type { FilePart, ImagePart, TextPart } from '../../canonical/request.ts';
import { filePartFromFields, imagePartFromUrl } from '../openai-common/decode-openai-media.ts';
import {
  decodeContentParts,
  decodeOpenAiUserContent,
  refuseContentPart,
  type UserPartDecoders,
} from '../openai-common/decode-openai-content-parts.ts';
import { parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';
import { filePartSchema, imageUrlPartSchema, refusalPartSchema, textPartSchema } from './chat-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

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

/** The user part types of Chat Completions with a canonical equivalent. */
const USER_PART_DECODERS: UserPartDecoders = { text: textOf, image_url: imageOf, file: fileOf };

/** User content: a string, or text / image_url / file parts (input_audio dropped with a warning). */
export function decodeChatUserContent(
  content: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): Array<TextPart | ImagePart | FilePart> {
  return decodeOpenAiUserContent(content, path, USER_PART_DECODERS, warnings);
}

/** Text-only content (system, developer, tool, assistant): text parts, plus `refusal` parts for the assistant role. */
export function decodeChatTextContent(
  content: string | unknown[],
  path: FieldPath,
  role: string,
  warnings: TranslationNotes,
): string[] {
  if (typeof content === 'string') return [content];
  return decodeContentParts(content, path, (type, part, at) => {
    if (type === 'text') return textOf(part, at).text;
    if (type === 'refusal' && role === 'assistant') return parseAt(refusalPartSchema, part, at).refusal;
    return refuseContentPart(at, type, role, warnings);
  });
}

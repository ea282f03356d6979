/**
 * Content parts of Responses input items (per https://platform.openai.com/docs/api-reference/responses) → canonical parts.
 * Clients are sloppy about `input_text` vs `output_text`, so both are accepted on every role.
 * Part types that cannot be translated are dropped with a warning; malformed parts throw
 * RequestFieldError (caught by the codec).
 */
import type { FilePart, ImagePart, TextPart } from '../../canonical/request.ts';
import { filePartFromFields, imagePartFromUrl } from '../openai-common/decode-openai-media.ts';
import {
  decodeContentParts,
  decodeOpenAiUserContent,
  refuseContentPart,
  type UserContentPart,
  type UserPartDecoders,
} from '../openai-common/decode-openai-content-parts.ts';
import { parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';
import { filePartSchema, imagePartSchema, refusalPartSchema, textPartSchema } from './responses-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

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

/** The user part types of Responses with a canonical equivalent (either text type, as noted above). */
const USER_PART_DECODERS: UserPartDecoders = {
  input_text: textPart,
  output_text: textPart,
  input_image: imagePart,
  input_file: filePart,
};

/** Decodes user content: a string, or input_text / input_image / input_file parts. */
export function decodeUserContent(
  content: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): UserContentPart[] {
  return decodeOpenAiUserContent(content, path, USER_PART_DECODERS, warnings);
}

/** Decodes assistant history content: output_text / input_text parts and `refusal` parts (as text). */
export function decodeAssistantContent(
  content: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const parts = decodeContentParts<TextPart>(content, path, (type, part, at) => {
    if (type === 'output_text' || type === 'input_text') return textPart(part, at);
    if (type === 'refusal') return { type: 'text', text: parseAt(refusalPartSchema, part, at).refusal };
    return refuseContentPart(at, type, 'assistant', warnings);
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
  const texts = decodeContentParts(content, path, (type, part, at) =>
    type === 'input_text' || type === 'output_text'
      ? textPart(part, at).text
      : refuseContentPart(at, type, 'system/developer', warnings),
  );
  return texts.join('\n\n');
}

/** Decodes `function_call_output.output`: a string, or input_text / input_image parts (files dropped). */
export function decodeToolOutput(
  output: string | unknown[],
  path: FieldPath,
  warnings: TranslationNotes,
): string | Array<TextPart | ImagePart> {
  if (typeof output === 'string') return output;
  return decodeContentParts<TextPart | ImagePart>(output, path, (type, part, at) => {
    if (type === 'input_text' || type === 'output_text') return textPart(part, at);
    const decoded = type === 'input_image' ? imagePart(part, at) : undefined;
    if (decoded?.type === 'image') return decoded;
    return refuseContentPart(at, decoded ? 'input_image (by file_id)' : type, 'tool output', warnings);
  });
}

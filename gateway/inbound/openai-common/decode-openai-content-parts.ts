/**
 * The walk over a content-part array that Chat Completions messages
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages) and Responses
 * input items (https://platform.openai.com/docs/api-reference/responses/create#responses_create-input)
 * share: every part is an object with a string `type`, each format decodes the types it knows, and
 * a type with no canonical equivalent is refused by path.
 */
import type { FilePart, ImagePart, TextPart } from '../../canonical/request.ts';
import type { TranslationNotes } from '../../canonical/translation-notes.ts';
import { isJsonObject, RequestFieldError, type FieldPath } from './request-field-error.ts';

/**
 * Decodes `content` part by part, in order: `decodePart(type, part, path)` gets each part's `type`,
 * the part itself and its path (`[...path, index]`), and returns the decoded value or undefined
 * to keep nothing (after noting why). Returns the kept values. Throws RequestFieldError at a part
 * that is not an object with a string `type`, and whatever `decodePart` throws.
 */
export function decodeContentParts<T>(
  content: readonly unknown[],
  path: FieldPath,
  decodePart: (type: string, part: unknown, path: FieldPath) => T | undefined,
): T[] {
  const decoded: T[] = [];
  content.forEach((part, i) => {
    const at = [...path, i];
    if (!isJsonObject(part) || typeof part.type !== 'string')
      throw new RequestFieldError(at, 'expected an object with a string `type`');
    const value = decodePart(part.type, part, at);
    if (value !== undefined) decoded.push(value);
  });
  return decoded;
}

/**
 * Notes the refusal of a content part of `type` (at `path`, in `role` content) that has no
 * equivalent on other APIs. Returns undefined, so a `decodePart` callback can return it.
 */
export function refuseContentPart(path: FieldPath, type: string, role: string, warnings: TranslationNotes): undefined {
  warnings.refuse(path.join('.'), `content part type '${type}' in ${role} content has no equivalent on other APIs`);
  return undefined;
}

/** A part a user turn may carry in the canonical model. */
export type UserContentPart = TextPart | ImagePart | FilePart;

/** Validates one user part found at `path` (throwing RequestFieldError) and decodes it. */
export type UserPartDecoder = (part: unknown, path: FieldPath) => UserContentPart;

/** One format's user part decoders by wire `type`. */
export type UserPartDecoders = Readonly<Record<string, UserPartDecoder>>;

/**
 * User content: a string is one text part; an array is decoded part by part with the decoder
 * `decoders` holds for each part's `type`, and a part of any other type is refused (noted in
 * `warnings`, left out). Throws RequestFieldError for a malformed part.
 */
export function decodeOpenAiUserContent(
  content: string | readonly unknown[],
  path: FieldPath,
  decoders: UserPartDecoders,
  warnings: TranslationNotes,
): UserContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return decodeContentParts(content, path, (type, part, at) => {
    const decode = Object.hasOwn(decoders, type) ? decoders[type] : undefined;
    return decode === undefined ? refuseContentPart(at, type, 'user', warnings) : decode(part, at);
  });
}

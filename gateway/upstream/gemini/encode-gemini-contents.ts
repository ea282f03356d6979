/**
 * Canonical conversation → Gemini `contents` (per https://ai.google.dev/api/generate-content): roles user/model,
 * consecutive same-role turns merged, function results in user turns named after their call.
 */
import type { CanonicalMessage, ContentPart } from '../../canonical/request.ts';
import {
  encodeGeminiFile,
  encodeGeminiFunctionCall,
  encodeGeminiFunctionResponse,
  encodeGeminiImage,
  encodeGeminiReasoning,
  type GeminiRequestPart,
} from './encode-gemini-parts.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** One Gemini request turn. */
export interface GeminiRequestContent {
  readonly role: 'user' | 'model';
  readonly parts: GeminiRequestPart[];
}

/** Tool-call id → function name, over every assistant turn of the request. */
function toolNamesById(messages: ReadonlyArray<CanonicalMessage>): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.content) if (part.type === 'tool-call') names.set(part.id, part.name);
  }
  return names;
}

function encodePart(
  part: ContentPart,
  role: CanonicalMessage['role'],
  path: string,
  names: Map<string, string>,
  warnings: TranslationNotes,
): GeminiRequestPart | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { text: part.text };
    case 'image':
      return encodeGeminiImage(part);
    case 'file':
      return encodeGeminiFile(part, path, warnings);
    case 'reasoning':
      return role === 'assistant' ? encodeGeminiReasoning(part, path, warnings) : undefined;
    case 'tool-call':
      if (role === 'assistant') return encodeGeminiFunctionCall(part, path, warnings);
      warnings.refuse(path, 'a tool call in a user turn cannot be sent to Gemini');
      return undefined;
    case 'tool-result': {
      if (role !== 'user') {
        warnings.refuse(path, 'a tool result in an assistant turn cannot be sent to Gemini');
        return undefined;
      }
      const name = part.toolName ?? names.get(part.toolCallId);
      if (name === undefined)
        warnings.drop(
          `${path}: no tool call with id ${part.toolCallId} names this result; sent with the id as its name`,
        );
      return encodeGeminiFunctionResponse(part, name ?? part.toolCallId, path, warnings);
    }
  }
}

/**
 * The value Gemini documents for function calls it did not generate (a conversation from another
 * model, or one whose signature was minted by another provider and left out): Gemini 3 requires
 * the first function call of each model step to carry a signature and answers 400 otherwise
 * (https://ai.google.dev/gemini-api/docs/thought-signatures, "FAQs": dummy signatures).
 */
export const FOREIGN_CALL_SIGNATURE = 'skip_thought_signature_validator';

/** Gives the first function call of a model turn the documented dummy signature when it has none. */
function signFirstFunctionCall(parts: GeminiRequestPart[]): void {
  const index = parts.findIndex((part) => 'functionCall' in part);
  const first = parts[index];
  if (first === undefined || first.thoughtSignature !== undefined) return;
  parts[index] = { ...first, thoughtSignature: FOREIGN_CALL_SIGNATURE };
}

/**
 * Encodes the canonical messages (user → `user`, assistant → `model`). A tool result's function
 * name is its `toolName`, else the name of the tool call with the same id in this request.
 * Parts that cannot be sent are dropped with a warning naming `messages.N.content.M`; turns left
 * empty are dropped and their neighbours merge when they now share a role.
 */
export function encodeGeminiContents(
  messages: ReadonlyArray<CanonicalMessage>,
  warnings: TranslationNotes,
): GeminiRequestContent[] {
  const names = toolNamesById(messages);
  const out: GeminiRequestContent[] = [];
  messages.forEach((message, m) => {
    const parts: GeminiRequestPart[] = [];
    message.content.forEach((part, p) => {
      const encoded = encodePart(part, message.role, `messages.${m}.content.${p}`, names, warnings);
      if (encoded) parts.push(encoded);
    });
    if (parts.length === 0) return;
    if (message.role === 'assistant') signFirstFunctionCall(parts);
    const role = message.role === 'assistant' ? 'model' : 'user';
    const last = out[out.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  });
  return out;
}

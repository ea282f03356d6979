/**
 * Converts Gemini `contents` (https://ai.google.dev/api/generate-content) into canonical messages.
 * - role `model` → assistant; `user`, `function`, `tool` or absent → user.
 * - `text` → text (empty text without a signature is dropped); `text` + `thought: true` → reasoning.
 * - `thoughtSignature` rides on the part: on a functionCall it becomes the tool call's `signature`,
 *   on a thought its reasoning `signature`; on any other part it is kept as an empty reasoning
 *   part `{text: '', signature}` placed just before that part.
 * - `inlineData` → image (image/* MIME) or file (base64); `fileData` → file by URL.
 * - `functionCall` → tool-call with `id` = the given id or a synthesized stable `call_<content>_<part>`;
 *   `functionResponse` → tool-result whose id is its own `id`, else the oldest unanswered call of
 *   the same name (name + order). A response that answers no earlier call (its id names none, or
 *   no call of its name is left unanswered) is refused, as Gemini refuses a function response
 *   turn that does not follow a function call turn
 *   (https://ai.google.dev/gemini-api/docs/function-calling#how-it-works).
 * - `executableCode` / `codeExecutionResult` are dropped with a warning.
 */
import type { CanonicalMessage, ContentPart } from '../../canonical/request.ts';
import type { GeminiContent, GeminiPart } from './gemini-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** Pairs calls and responses: function name → ids of calls not yet answered, oldest first. */
type PendingCalls = Map<string, string[]>;

interface PartContext {
  readonly where: string;
  readonly syntheticId: string;
  readonly pending: PendingCalls;
  /** Ids of every call made so far. */
  readonly calls: Set<string>;
  /** The first function response that answers no call, as a refusal. */
  orphan?: { readonly message: string; readonly param: string };
  readonly warnings: TranslationNotes;
}

function decodeFunctionCall(
  call: NonNullable<GeminiPart['functionCall']>,
  signature: string | undefined,
  ctx: PartContext,
): ContentPart {
  const id = call.id || ctx.syntheticId;
  ctx.calls.add(id);
  const queue = ctx.pending.get(call.name) ?? [];
  queue.push(id);
  ctx.pending.set(call.name, queue);
  const argumentsText = JSON.stringify(call.args ?? {});
  return signature === undefined
    ? { type: 'tool-call', id, name: call.name, arguments: argumentsText }
    : { type: 'tool-call', id, name: call.name, arguments: argumentsText, signature };
}

function noteOrphan(ctx: PartContext, field: 'id' | 'name', problem: string): void {
  if (ctx.orphan) return;
  const param = `${ctx.where}.functionResponse.${field}`;
  ctx.orphan = {
    param,
    message: `${param}: ${problem}; a function response must answer a function call made earlier in the conversation`,
  };
}

function decodeFunctionResponse(result: NonNullable<GeminiPart['functionResponse']>, ctx: PartContext): ContentPart {
  const queue = ctx.pending.get(result.name) ?? [];
  let id: string;
  if (result.id) {
    id = result.id;
    const at = queue.indexOf(id);
    if (at >= 0) queue.splice(at, 1);
    if (!ctx.calls.has(id)) noteOrphan(ctx, 'id', `no functionCall earlier in the conversation has the id '${id}'`);
  } else {
    const oldest = queue.shift();
    if (oldest === undefined)
      noteOrphan(ctx, 'name', `no functionCall named '${result.name}' earlier in the conversation is left unanswered`);
    id = oldest ?? ctx.syntheticId;
  }
  const content = typeof result.response === 'string' ? result.response : JSON.stringify(result.response ?? {});
  return { type: 'tool-result', toolCallId: id, toolName: result.name, content };
}

/** Parts carrying media. `inlineData` with an image/* type → image; anything else → file. */
function decodeMedia(part: GeminiPart): ContentPart | undefined {
  if (part.inlineData) {
    const { mimeType, data } = part.inlineData;
    return mimeType.startsWith('image/')
      ? { type: 'image', source: { kind: 'base64', mediaType: mimeType, data } }
      : { type: 'file', source: { kind: 'base64', mediaType: mimeType, data } };
  }
  if (part.fileData) {
    const { mimeType, fileUri } = part.fileData;
    return {
      type: 'file',
      source: mimeType ? { kind: 'url', url: fileUri, mediaType: mimeType } : { kind: 'url', url: fileUri },
    };
  }
  return undefined;
}

/** The part's own content, ignoring a thought signature ([] when it has none we can carry). */
function decodePartData(part: GeminiPart, ctx: PartContext): ContentPart[] {
  if (part.functionResponse) return [decodeFunctionResponse(part.functionResponse, ctx)];
  if (typeof part.text === 'string') return part.text === '' ? [] : [{ type: 'text', text: part.text }];
  const media = decodeMedia(part);
  if (media) return [media];
  if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) {
    ctx.warnings.refuse(ctx.where, "executableCode/codeExecutionResult parts belong to Gemini's own code execution");
  } else if (!part.thoughtSignature) {
    ctx.warnings.refuse(ctx.where, 'the part has no data field other APIs can carry');
  }
  return [];
}

/** Converts one part into zero or more canonical parts. */
function decodeGeminiPart(part: GeminiPart, ctx: PartContext): ContentPart[] {
  const signature = part.thoughtSignature || undefined;
  if (part.functionCall) return [decodeFunctionCall(part.functionCall, signature, ctx)];
  if (part.thought === true) {
    const text = part.text ?? '';
    return [signature === undefined ? { type: 'reasoning', text } : { type: 'reasoning', text, signature }];
  }
  const data = decodePartData(part, ctx);
  return signature === undefined ? data : [{ type: 'reasoning', text: '', signature }, ...data];
}

/**
 * Converts `contents` to messages; contents whose parts all drop out are omitted. `orphan` is set
 * (message and param, e.g. `contents.2.parts.0.functionResponse.name`) when a function response
 * answers no earlier call: the caller refuses the request.
 */
export function decodeGeminiContents(
  contents: ReadonlyArray<GeminiContent>,
  warnings: TranslationNotes,
): { messages: CanonicalMessage[]; orphan?: { message: string; param: string } } {
  const pending: PendingCalls = new Map();
  const calls = new Set<string>();
  let orphan: { message: string; param: string } | undefined;
  const messages: CanonicalMessage[] = [];
  contents.forEach((content, c) => {
    const parts: ContentPart[] = [];
    content.parts.forEach((part, p) => {
      const ctx: PartContext = {
        where: `contents.${c}.parts.${p}`,
        syntheticId: `call_${c}_${p}`,
        pending,
        calls,
        warnings,
      };
      parts.push(...decodeGeminiPart(part, ctx));
      orphan ??= ctx.orphan;
    });
    if (parts.length > 0) messages.push({ role: content.role === 'model' ? 'assistant' : 'user', content: parts });
  });
  return orphan ? { messages, orphan } : { messages };
}

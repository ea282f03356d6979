/**
 * Chat Completions `messages` (per https://platform.openai.com/docs/api-reference/chat) → canonical messages plus
 * system texts:
 * - system/developer → system texts (joined by the caller with "\n\n");
 * - assistant → reasoning (`reasoning_content`, first), text (content and `refusal`), tool calls;
 * - tool (and legacy function) messages → tool-result parts; consecutive ones merge into one user turn;
 *   one whose call no earlier assistant message made is refused (OpenAI refuses it too);
 * - legacy assistant `function_call` gets a synthetic id `call_legacy_<message index>` that the
 *   following `function` message with the same name refers to.
 * Malformed messages throw RequestFieldError naming the path (caught by the codec).
 */
import type { CanonicalMessage, ContentPart } from '../../canonical/request.ts';
import { appendToolResult, type TurnUnderConstruction } from '../openai-common/append-tool-result.ts';
import { isJsonObject, parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';
import {
  assistantMessageSchema,
  contentMessageSchema,
  functionMessageSchema,
  roleSchema,
  toolCallSchema,
  toolMessageSchema,
} from './chat-request-schema.ts';
import { decodeChatTextContent, decodeChatUserContent } from './decode-chat-content.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** Decoded messages: conversation turns and system/developer texts, in order. */
export interface DecodedChatMessages {
  readonly messages: CanonicalMessage[];
  readonly systemTexts: string[];
}

interface MessagesState {
  readonly messages: TurnUnderConstruction[];
  readonly systemTexts: string[];
  readonly toolNames: Map<string, string>;
  readonly legacyCalls: Map<string, string[]>;
  readonly warnings: TranslationNotes;
}

function decodeToolCalls(state: MessagesState, calls: ReadonlyArray<unknown>, path: FieldPath): ContentPart[] {
  const parts: ContentPart[] = [];
  calls.forEach((raw, i) => {
    const call = parseAt(toolCallSchema, raw, [...path, i]);
    if (call.type !== undefined && call.type !== null && call.type !== 'function') {
      state.warnings.refuse([...path, i].join('.'), `tool call type '${call.type}' has no equivalent on other APIs`);
      return;
    }
    state.toolNames.set(call.id, call.function.name);
    parts.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  });
  return parts;
}

function decodeAssistant(state: MessagesState, message: unknown, path: FieldPath): void {
  const assistant = parseAt(assistantMessageSchema, message, path);
  const parts: ContentPart[] = [];
  if (assistant.reasoning_content) parts.push({ type: 'reasoning', text: assistant.reasoning_content });
  const texts = assistant.content
    ? decodeChatTextContent(assistant.content, [...path, 'content'], 'assistant', state.warnings)
    : [];
  if (assistant.refusal) texts.push(assistant.refusal);
  for (const text of texts) if (text !== '') parts.push({ type: 'text', text });
  if (assistant.tool_calls) parts.push(...decodeToolCalls(state, assistant.tool_calls, [...path, 'tool_calls']));
  if (assistant.function_call) {
    const id = `call_legacy_${String(path[1])}`;
    const queue = state.legacyCalls.get(assistant.function_call.name) ?? [];
    state.legacyCalls.set(assistant.function_call.name, [...queue, id]);
    parts.push({
      type: 'tool-call',
      id,
      name: assistant.function_call.name,
      arguments: assistant.function_call.arguments,
    });
  }
  if (parts.length > 0) state.messages.push({ role: 'assistant', content: parts });
}

function decodeTool(state: MessagesState, message: unknown, path: FieldPath): void {
  const tool = parseAt(toolMessageSchema, message, path);
  const content =
    typeof tool.content === 'string'
      ? tool.content
      : decodeChatTextContent(tool.content, [...path, 'content'], 'tool', state.warnings).map((text) => ({
          type: 'text' as const,
          text,
        }));
  const toolName = state.toolNames.get(tool.tool_call_id);
  if (toolName === undefined) {
    throw new RequestFieldError(
      [...path, 'tool_call_id'],
      `'${tool.tool_call_id}' is not the id of a tool call made earlier in the conversation; a tool message must answer an earlier assistant message's tool_calls entry`,
    );
  }
  appendToolResult(state.messages, { type: 'tool-result', toolCallId: tool.tool_call_id, toolName, content });
}

function decodeLegacyFunction(state: MessagesState, message: unknown, path: FieldPath): void {
  const result = parseAt(functionMessageSchema, message, path);
  const queue = state.legacyCalls.get(result.name) ?? [];
  const id = queue.shift();
  if (id === undefined)
    throw new RequestFieldError([...path, 'name'], `no preceding assistant function_call named '${result.name}'`);
  appendToolResult(state.messages, {
    type: 'tool-result',
    toolCallId: id,
    toolName: result.name,
    content: result.content ?? '',
  });
}

function decodeMessage(state: MessagesState, message: unknown, index: number): void {
  const path = ['messages', index];
  if (!isJsonObject(message)) throw new RequestFieldError(path, 'expected an object');
  // A system, developer or user message with text content (most of them) needs no schema: both
  // schemas would keep its role and content as they are.
  const plainText =
    (message.role === 'user' || message.role === 'system' || message.role === 'developer') &&
    typeof message.content === 'string';
  const { role } = plainText
    ? (message as { role: 'user' | 'system' | 'developer' })
    : parseAt(roleSchema, message, path);
  switch (role) {
    case 'system':
    case 'developer': {
      const content = plainText ? (message.content as string) : parseAt(contentMessageSchema, message, path).content;
      state.systemTexts.push(decodeChatTextContent(content, [...path, 'content'], role, state.warnings).join('\n\n'));
      return;
    }
    case 'user': {
      const content = plainText ? (message.content as string) : parseAt(contentMessageSchema, message, path).content;
      state.messages.push({
        role: 'user',
        content: decodeChatUserContent(content, [...path, 'content'], state.warnings),
      });
      return;
    }
    case 'assistant':
      return decodeAssistant(state, message, path);
    case 'tool':
      return decodeTool(state, message, path);
    case 'function':
      return decodeLegacyFunction(state, message, path);
  }
}

/** Decodes `messages`; warnings for dropped parts are pushed to `warnings`. Throws RequestFieldError on malformed messages. */
export function decodeChatMessages(messages: ReadonlyArray<unknown>, warnings: TranslationNotes): DecodedChatMessages {
  const state: MessagesState = {
    messages: [],
    systemTexts: [],
    toolNames: new Map(),
    legacyCalls: new Map(),
    warnings,
  };
  messages.forEach((message, index) => decodeMessage(state, message, index));
  return {
    messages: state.messages.filter((m) => m.content.length > 0),
    systemTexts: state.systemTexts.filter((t) => t !== ''),
  };
}

/**
 * Responses `input` (https://platform.openai.com/docs/api-reference/responses/create#responses_create-input)
 * → canonical messages plus system texts.
 * - system/developer messages become system texts (the caller joins them after `instructions`);
 * - assistant messages, `function_call` and `reasoning` items merge into the current assistant turn;
 * - `custom_tool_call` items become tool calls with arguments `{"input": <the raw input>}` and the
 *   canonical tool name of responses-tool-names.ts (`function_call` items with a `namespace` too);
 * - `function_call_output` / `custom_tool_call_output` items become tool-result parts of one user
 *   turn (consecutive outputs merge); one whose `call_id` no earlier call item carries is refused,
 *   as OpenAI refuses it, unless an earlier item may hold calls out of sight (a compaction, an
 *   `item_reference`, an item type of the platform's own);
 * - `additional_tools` items carry tools (read by decode-responses-tools.ts), not a turn;
 * - `item_reference` (needs stored items) and every other item type (built-in tool calls…) are
 *   dropped with a warning: the request still passes through unchanged to an OpenAI Responses
 *   channel, and a translated exchange logs what it dropped.
 * Malformed items throw RequestFieldError naming the path (caught by the codec).
 */
import type { CanonicalMessage, ContentPart, ReasoningPart } from '../../canonical/request.ts';
import { appendToolResult, type TurnUnderConstruction } from '../openai-common/append-tool-result.ts';
import { isJsonObject, parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';
import {
  decodeAssistantContent,
  decodeInstructionContent,
  decodeToolOutput,
  decodeUserContent,
} from './decode-responses-content.ts';
import { reasoningFromEncryptedContent } from './reasoning-encrypted-content.ts';
import {
  additionalToolsItemSchema,
  customToolCallItemSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  messageItemSchema,
  reasoningItemSchema,
} from './responses-request-schema.ts';
import { qualifiedToolName } from './responses-tool-names.ts';
import { decodeCompactionItem, type CompactionItemOpener } from './decode-compaction-item.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** Decoded input: conversation turns and the system/developer texts found in it, in order. */
export interface DecodedResponsesInput {
  readonly messages: CanonicalMessage[];
  readonly systemTexts: string[];
}

interface InputState {
  readonly messages: TurnUnderConstruction[];
  readonly systemTexts: string[];
  readonly toolNames: Map<string, string>;
  /** Set once an item that may hold earlier tool calls out of sight (compaction, item_reference, unknown type) was read. */
  opaqueHistory: boolean;
  readonly warnings: TranslationNotes;
  /** Opens gateway-sealed compaction items (decode-compaction-item.ts). */
  readonly compactionOpener?: CompactionItemOpener;
}

function appendAssistant(state: InputState, parts: ContentPart[]): void {
  if (parts.length === 0) return;
  const last = state.messages.at(-1);
  if (last?.role === 'assistant') last.content.push(...parts);
  else state.messages.push({ role: 'assistant', content: parts });
}

function decodeMessageItem(state: InputState, item: unknown, path: FieldPath): void {
  const message = parseAt(messageItemSchema, item, path);
  const at = [...path, 'content'];
  switch (message.role) {
    case 'system':
    case 'developer':
      state.systemTexts.push(decodeInstructionContent(message.content, at, state.warnings));
      return;
    case 'assistant':
      appendAssistant(state, decodeAssistantContent(message.content, at, state.warnings));
      return;
    case 'user':
      state.messages.push({ role: 'user', content: decodeUserContent(message.content, at, state.warnings) });
      return;
  }
}

function decodeFunctionCall(state: InputState, item: unknown, path: FieldPath): void {
  const call = parseAt(functionCallItemSchema, item, path);
  const name = qualifiedToolName(call.namespace, call.name);
  state.toolNames.set(call.call_id, name);
  appendAssistant(state, [{ type: 'tool-call', id: call.call_id, name, arguments: call.arguments }]);
}

function decodeCustomToolCall(state: InputState, item: unknown, path: FieldPath): void {
  const call = parseAt(customToolCallItemSchema, item, path);
  const name = qualifiedToolName(call.namespace, call.name);
  state.toolNames.set(call.call_id, name);
  appendAssistant(state, [
    { type: 'tool-call', id: call.call_id, name, arguments: JSON.stringify({ input: call.input }) },
  ]);
}

function decodeFunctionCallOutput(state: InputState, item: unknown, path: FieldPath): void {
  const result = parseAt(functionCallOutputItemSchema, item, path);
  const content = decodeToolOutput(result.output, [...path, 'output'], state.warnings);
  const toolName = state.toolNames.get(result.call_id);
  if (toolName === undefined && !state.opaqueHistory) {
    throw new RequestFieldError(
      [...path, 'call_id'],
      `No tool call found for function call output with call_id ${result.call_id}: no function_call or custom_tool_call item with that call_id comes earlier in the input`,
    );
  }
  appendToolResult(
    state.messages,
    toolName === undefined
      ? { type: 'tool-result', toolCallId: result.call_id, content }
      : { type: 'tool-result', toolCallId: result.call_id, toolName, content },
  );
}

/** Reasoning text: the full `content` texts when present, else the summary texts ("\n\n" between). */
function decodeReasoning(state: InputState, item: unknown, path: FieldPath): void {
  const reasoning = parseAt(reasoningItemSchema, item, path);
  const texts = (reasoning.content?.length ? reasoning.content : (reasoning.summary ?? [])).map((p) => p.text);
  const text = texts.join('\n\n');
  const encrypted = reasoning.encrypted_content
    ? reasoningFromEncryptedContent(reasoning.encrypted_content)
    : undefined;
  if (text === '' && encrypted === undefined) return;
  let part: ReasoningPart = { type: 'reasoning', text };
  if (encrypted !== undefined)
    part =
      'redacted' in encrypted
        ? { type: 'reasoning', text: '', redacted: encrypted.redacted }
        : { ...part, signature: encrypted.signature };
  appendAssistant(state, [part]);
}

function decodeItem(state: InputState, item: unknown, index: number): void {
  const path = ['input', index];
  if (!isJsonObject(item)) throw new RequestFieldError(path, 'expected an object');
  const type = item.type ?? ('role' in item ? 'message' : undefined);
  if (typeof type !== 'string') throw new RequestFieldError([...path, 'type'], 'missing required parameter');
  switch (type) {
    case 'message':
      return decodeMessageItem(state, item, path);
    case 'function_call':
      return decodeFunctionCall(state, item, path);
    case 'custom_tool_call':
      return decodeCustomToolCall(state, item, path);
    case 'function_call_output':
    case 'custom_tool_call_output':
      return decodeFunctionCallOutput(state, item, path);
    case 'additional_tools':
      parseAt(additionalToolsItemSchema, item, path);
      return;
    case 'reasoning':
      return decodeReasoning(state, item, path);
    case 'compaction': {
      state.opaqueHistory = true;
      const summary = decodeCompactionItem(item, path, state.compactionOpener, state.warnings);
      if (summary) state.messages.push({ role: 'user', content: [...summary.content] });
      return;
    }
    case 'item_reference':
      state.opaqueHistory = true;
      state.warnings.refuse(`input.${index}`, 'an item_reference points at an item stored by the upstream');
      return;
    default:
      state.opaqueHistory = true;
      state.warnings.refuse(`input.${index}`, `input item type '${type}' has no equivalent on other APIs`);
      return;
  }
}

/**
 * Decodes `input` (a string = one user text message, or an item list). Throws
 * RequestFieldError on malformed or unsupported items and content parts.
 */
export function decodeResponsesInput(
  input: string | unknown[],
  warnings: TranslationNotes,
  compactionOpener?: CompactionItemOpener,
): DecodedResponsesInput {
  if (typeof input === 'string')
    return { messages: [{ role: 'user', content: [{ type: 'text', text: input }] }], systemTexts: [] };
  const state: InputState = {
    messages: [],
    systemTexts: [],
    toolNames: new Map(),
    opaqueHistory: false,
    warnings,
    ...(compactionOpener ? { compactionOpener } : {}),
  };
  input.forEach((item, index) => decodeItem(state, item, index));
  return { messages: state.messages.filter((m) => m.content.length > 0), systemTexts: state.systemTexts };
}

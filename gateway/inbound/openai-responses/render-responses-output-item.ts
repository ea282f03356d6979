/**
 * Responses output items (per https://platform.openai.com/docs/api-reference/responses), rendered from a small record so
 * that the non-streamed body, `output_item.added`/`.done` events and the terminal response of a
 * stream all show the same ids and shapes.
 */
import { generateId } from '../../canonical/ids.ts';
import { encryptedContentFor } from './reasoning-encrypted-content.ts';
import type { ResponsesToolEntry } from './responses-tool-names.ts';

/**
 * One output item in the gateway's terms; `id` is the client-facing item id (`msg_`/`rs_`/`fc_`/`ctc_`).
 * Tool calls carry the client's own `name` and `namespace` (not the canonical name); a
 * `custom_tool_call` keeps the canonical JSON `arguments` (`{"input": …}`) and renders its `input`.
 */
export type ResponsesItemRecord =
  | { readonly kind: 'message'; readonly id: string; text: string }
  | { readonly kind: 'reasoning'; readonly id: string; text: string; signature?: string; readonly redacted?: string }
  | {
      readonly kind: 'function_call' | 'custom_tool_call';
      readonly id: string;
      readonly callId: string;
      readonly name: string;
      readonly namespace?: string;
      arguments: string;
    };

/**
 * The record of a canonical tool call: `custom_tool_call` when `tool` (the offered tool of that
 * canonical name, from responses-tool-names.ts) is a custom tool, else `function_call`; name and
 * namespace are the client's. An unknown name is passed through as a function call.
 */
export function toolCallRecord(
  callId: string,
  canonicalName: string,
  args: string,
  tool: ResponsesToolEntry | undefined,
): ResponsesItemRecord {
  const kind = tool?.kind === 'custom' ? 'custom_tool_call' : 'function_call';
  const record = {
    kind,
    id: generateId(kind === 'custom_tool_call' ? 'ctc_' : 'fc_'),
    callId,
    name: tool?.name ?? canonicalName,
    arguments: args,
  } as const;
  return tool?.namespace === undefined ? record : { ...record, namespace: tool.namespace };
}

/**
 * The raw input of a custom tool call from its canonical arguments: the string `input` member of
 * the JSON object, else (the model did not follow the schema) the arguments text itself.
 */
export function customToolInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { input?: unknown }).input === 'string')
      return (parsed as { input: string }).input;
  } catch {
    // Not JSON (yet, or at all): fall back to the text.
  }
  return args;
}

function namespaceField(record: { readonly namespace?: string }): Record<string, string> {
  return record.namespace === undefined ? {} : { namespace: record.namespace };
}

/** Item status on the wire. */
export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

/**
 * A `function_call` or `custom_tool_call` item with `status` and the arguments streamed so far
 * (`''` when just announced): a function call carries them as `arguments`, a custom tool call as
 * its raw `input` (customToolInput; https://platform.openai.com/docs/guides/function-calling#custom-tools).
 */
function renderToolCallItem(
  record: Extract<ResponsesItemRecord, { kind: 'function_call' | 'custom_tool_call' }>,
  status: ResponsesItemStatus,
  argumentsText: string,
): Record<string, unknown> {
  if (record.kind === 'function_call')
    return {
      id: record.id,
      type: 'function_call',
      status,
      arguments: argumentsText,
      call_id: record.callId,
      name: record.name,
      ...namespaceField(record),
    };
  return {
    id: record.id,
    type: 'custom_tool_call',
    status,
    call_id: record.callId,
    ...namespaceField(record),
    name: record.name,
    input: customToolInput(argumentsText),
  };
}

/** The `output_text` part of a finished message. */
export function outputTextPart(text: string): Record<string, unknown> {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** The item as announced by `response.output_item.added`: empty content/summary/arguments, `in_progress`. */
export function renderAddedItem(record: ResponsesItemRecord): Record<string, unknown> {
  switch (record.kind) {
    case 'message':
      return { id: record.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    case 'reasoning':
      return { id: record.id, type: 'reasoning', summary: [] };
    case 'function_call':
    case 'custom_tool_call':
      return renderToolCallItem(record, 'in_progress', '');
  }
}

/**
 * The finished item. Reasoning → `summary: [{type:'summary_text', text}]` (empty when there is no
 * text) and `encrypted_content` when a signature/redacted block exists; message → one
 * `output_text` part; function_call / custom_tool_call → `call_id` = the canonical tool call id
 * (custom: `input` per customToolInput; https://platform.openai.com/docs/guides/function-calling#custom-tools).
 */
export function renderFinalItem(record: ResponsesItemRecord, status: ResponsesItemStatus): Record<string, unknown> {
  switch (record.kind) {
    case 'message':
      return { id: record.id, type: 'message', status, role: 'assistant', content: [outputTextPart(record.text)] };
    case 'reasoning': {
      const item: Record<string, unknown> = {
        id: record.id,
        type: 'reasoning',
        summary: record.text === '' ? [] : [{ type: 'summary_text', text: record.text }],
      };
      const encrypted = encryptedContentFor(record);
      if (encrypted !== undefined) item.encrypted_content = encrypted;
      return item;
    }
    case 'function_call':
    case 'custom_tool_call':
      return renderToolCallItem(record, status, record.arguments);
  }
}

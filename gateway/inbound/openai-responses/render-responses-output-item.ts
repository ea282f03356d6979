/**
 * Responses output items (per openai-responses.md §3.1 and §5.4), rendered from a small record so
 * that the non-streamed body, `output_item.added`/`.done` events and the terminal response of a
 * stream all show the same ids and shapes.
 */
import { encryptedContentFor } from './reasoning-encrypted-content.ts';

/** One output item in the gateway's terms; `id` is the client-facing item id (`msg_`/`rs_`/`fc_`). */
export type ResponsesItemRecord =
  | { readonly kind: 'message'; readonly id: string; text: string }
  | { readonly kind: 'reasoning'; readonly id: string; text: string; signature?: string; readonly redacted?: string }
  | { readonly kind: 'function_call'; readonly id: string; readonly callId: string; readonly name: string; arguments: string };

/** Item status on the wire. */
export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

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
      return { id: record.id, type: 'function_call', status: 'in_progress', arguments: '', call_id: record.callId, name: record.name };
  }
}

/**
 * The finished item. Reasoning → `summary: [{type:'summary_text', text}]` (empty when there is no
 * text) and `encrypted_content` when a signature/redacted block exists; message → one
 * `output_text` part; function_call → `call_id` = the canonical tool call id.
 */
export function renderFinalItem(record: ResponsesItemRecord, status: ResponsesItemStatus): Record<string, unknown> {
  switch (record.kind) {
    case 'message':
      return { id: record.id, type: 'message', status, role: 'assistant', content: [outputTextPart(record.text)] };
    case 'reasoning': {
      const item: Record<string, unknown> = { id: record.id, type: 'reasoning', summary: record.text === '' ? [] : [{ type: 'summary_text', text: record.text }] };
      const encrypted = encryptedContentFor(record);
      if (encrypted !== undefined) item.encrypted_content = encrypted;
      return item;
    }
    case 'function_call':
      return { id: record.id, type: 'function_call', status, arguments: record.arguments, call_id: record.callId, name: record.name };
  }
}

/**
 * A Responses request's `input` as stored item objects, and stored turns back as input items.
 * The API lists a response's input as item objects with ids (`GET /v1/responses/{id}/input_items`,
 * https://platform.openai.com/docs/api-reference/responses/input-items): a string input is one
 * user message `{"type":"message","role":"user","content":[{"type":"input_text","text":…}]}`,
 * an easy message's string content becomes one `input_text` part (`output_text` for assistant
 * messages), and every item gets an `id` when it has none — `msg_` for messages, `fc_` for
 * function calls and so on — so list cursors (`after`) can name any item.
 */
import { generateId } from '../../canonical/ids.ts';
import { isJsonObject } from '../../inbound/openai-common/request-field-error.ts';

type Item = Record<string, unknown>;

/** Id prefixes of the item types the API names (other types get `item_`). */
const ID_PREFIXES: Readonly<Record<string, string>> = {
  message: 'msg_',
  function_call: 'fc_',
  function_call_output: 'fco_',
  custom_tool_call: 'ctc_',
  custom_tool_call_output: 'ctco_',
  reasoning: 'rs_',
};

/**
 * Item types whose `id` is optional as input (messages, tool calls and their outputs are linked by
 * role and `call_id`): replayed without it, so an id the gateway minted for the listing never
 * reaches an upstream. Reasoning items, item references and other types keep theirs.
 */
const ID_OPTIONAL_TYPES: ReadonlySet<string> = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
]);

function normalizeMessage(item: Item): Item {
  const role = typeof item.role === 'string' ? item.role : 'user';
  const partType = role === 'assistant' ? 'output_text' : 'input_text';
  const content = typeof item.content === 'string' ? [{ type: partType, text: item.content }] : item.content;
  return {
    ...item,
    id: typeof item.id === 'string' && item.id !== '' ? item.id : generateId('msg_'),
    type: 'message',
    role,
    content,
    ...(item.status === undefined ? { status: 'completed' } : {}),
  };
}

function normalizeItem(item: Item): Item {
  const type = typeof item.type === 'string' ? item.type : 'role' in item ? 'message' : undefined;
  if (type === 'message') return normalizeMessage(item);
  if (typeof item.id === 'string' && item.id !== '') return { ...item };
  return { ...item, id: generateId(ID_PREFIXES[type ?? ''] ?? 'item_') };
}

/**
 * `input` (a string, an item list, or anything else) → item objects with ids, in order. Never
 * throws: entries that are not objects are left out (the decoder refuses such input anyway).
 */
export function normalizeInputItems(input: unknown): Item[] {
  if (typeof input === 'string') return [normalizeMessage({ role: 'user', content: input })];
  if (!Array.isArray(input)) return [];
  return input.filter(isJsonObject).map(normalizeItem);
}

/**
 * A stored input item as sent again in a later turn: messages, tool calls and tool outputs lose
 * their `id` (it may be one the gateway minted for the listing, unknown to any upstream, and the
 * API does not need it); other items are sent as stored. The turn's output items are replayed
 * unchanged elsewhere (they are what the client received).
 */
export function replayInputItem(item: Readonly<Item>): Item {
  if (!ID_OPTIONAL_TYPES.has(item.type as string)) return { ...item };
  const { id: _listingId, ...rest } = item;
  return rest;
}

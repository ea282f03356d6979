/**
 * `GET /v1/responses/{id}/input_items` paging
 * (https://platform.openai.com/docs/api-reference/responses/input-items): query `limit` (1–100,
 * default 20), `order` (`asc` | `desc`, default `desc`), `after` (an item id: the page starts
 * after it, in the chosen order), `include` (accepted; stored items are already complete). The
 * answer is a list object `{"object":"list","data","first_id","last_id","has_more"}`.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { isJsonObject } from '../../inbound/openai-common/request-field-error.ts';

/** A validated list query. */
export interface InputItemsQuery {
  /** Items per page, 1–100. */
  readonly limit: number;
  readonly order: 'asc' | 'desc';
  /** Item id to start after, or undefined for the first page. */
  readonly after: string | undefined;
}

/** The list object of one page. `first_id`/`last_id` are null on an empty page. */
export interface InputItemsPage {
  readonly object: 'list';
  readonly data: ReadonlyArray<Record<string, unknown>>;
  readonly first_id: string | null;
  readonly last_id: string | null;
  readonly has_more: boolean;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

function invalidQuery(param: string, message: string): GatewayError {
  return new GatewayError('invalid-request', message, { param, code: 'invalid_value' });
}

/** One query value: a repeated parameter counts as its last value. */
function single(value: unknown): unknown {
  return Array.isArray(value) ? value.at(-1) : value;
}

/** Validates the query string (Fastify's parsed object). Returns a 400 GatewayError naming the bad parameter. */
export function parseInputItemsQuery(query: unknown): InputItemsQuery | GatewayError {
  const q = isJsonObject(query) ? query : {};
  const limitText = single(q.limit);
  let limit = DEFAULT_LIMIT;
  if (limitText !== undefined) {
    if (
      typeof limitText !== 'string' ||
      !/^\d{1,4}$/.test(limitText) ||
      Number(limitText) < 1 ||
      Number(limitText) > MAX_LIMIT
    ) {
      return invalidQuery('limit', `Invalid 'limit': expected an integer between 1 and ${MAX_LIMIT}.`);
    }
    limit = Number(limitText);
  }
  const order = single(q.order) ?? 'desc';
  if (order !== 'asc' && order !== 'desc') return invalidQuery('order', "Invalid 'order': expected 'asc' or 'desc'.");
  const after = single(q.after);
  if (after !== undefined && (typeof after !== 'string' || after === ''))
    return invalidQuery('after', "Invalid 'after': expected an item id.");
  return { limit, order, after };
}

/**
 * One page of `items` (given oldest first). An `after` that names no item is a 400 (the cursor
 * does not belong to this response).
 */
export function pageInputItems(
  items: ReadonlyArray<Record<string, unknown>>,
  query: InputItemsQuery,
): InputItemsPage | GatewayError {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (query.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.after);
    if (at < 0) return invalidQuery('after', `No input item with id '${query.after}' in this response.`);
    start = at + 1;
  }
  const data = ordered.slice(start, start + query.limit);
  const idOf = (item: Record<string, unknown> | undefined): string | null =>
    typeof item?.id === 'string' ? item.id : null;
  return {
    object: 'list',
    data,
    first_id: idOf(data[0]),
    last_id: idOf(data.at(-1)),
    has_more: start + data.length < ordered.length,
  };
}

/**
 * The answer of `POST /v1/responses/compact` when the gateway compacts itself
 * (https://platform.openai.com/docs/api-reference/responses/compact, "Returns": the compacted
 * response object): `{id, object:"response.compaction", created_at, output, usage}` where
 * `output` is "a list of all user messages, followed by a single compaction item". The user
 * messages keep the client's content (string content as one `input_text` part) and are returned as
 * items of the `Message` schema, which requires `id` and `status` (`CompactResource.output` in
 * OpenAI's OpenAPI document, https://github.com/openai/openai-openapi): the client's own
 * item id when it sent one, else a new `msg_…` id, and `status: "completed"`. Assistant turns, tool
 * calls and outputs, reasoning and earlier compaction items are what the summary in the new
 * compaction item replaces.
 */
import { generateId } from '../../canonical/ids.ts';
import type { Usage } from '../../canonical/usage.ts';
import { mapResponsesUsage, type ResponsesUsage } from '../../inbound/openai-responses/map-responses-usage.ts';

/** A compaction item: `{type:"compaction", id:"cmp_…", encrypted_content}`. */
export interface CompactionOutputItem {
  readonly type: 'compaction';
  readonly id: string;
  readonly encrypted_content: string;
}

/** The compacted response object. `created_at` is unix seconds; usage counts are tokens. */
export interface CompactedResponseBody {
  readonly id: string;
  readonly object: 'response.compaction';
  readonly created_at: number;
  readonly output: ReadonlyArray<Readonly<Record<string, unknown>> | CompactionOutputItem>;
  readonly usage: ResponsesUsage;
}

function isUserMessage(item: unknown): item is Record<string, unknown> {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  const record = item as Record<string, unknown>;
  const type = record.type ?? ('role' in record ? 'message' : undefined);
  return type === 'message' && record.role === 'user';
}

/** A kept user message as a `Message` item: `{type, id, status, role, content}`. */
function userMessage(content: unknown, id: unknown): Record<string, unknown> {
  return {
    type: 'message',
    id: typeof id === 'string' && id !== '' ? id : generateId('msg_'),
    status: 'completed',
    role: 'user',
    content: typeof content === 'string' ? [{ type: 'input_text', text: content }] : content,
  };
}

/**
 * The user messages of a Responses `input` (a string counts as one), in order, as `Message` items
 * (`{type:"message", id, status:"completed", role:"user", content}`): an item keeps its own
 * non-empty string `id` (so compacting a compacted window again keeps the ids), others get a new
 * `msg_…` id. Anything but a string or a list yields [].
 */
export function keptUserMessages(input: unknown): Array<Record<string, unknown>> {
  if (typeof input === 'string') return [userMessage(input, undefined)];
  if (!Array.isArray(input)) return [];
  return input.filter(isUserMessage).map((item) => userMessage(item.content, item.id));
}

/** Builds the compacted response: kept user messages, then one compaction item sealing the summary. */
export function buildCompactedResponse(args: {
  readonly input: unknown;
  readonly encryptedContent: string;
  readonly usage: Usage;
  readonly createdAt: number;
}): CompactedResponseBody {
  const compaction: CompactionOutputItem = {
    type: 'compaction',
    id: generateId('cmp_'),
    encrypted_content: args.encryptedContent,
  };
  return {
    id: generateId('resp_'),
    object: 'response.compaction',
    created_at: args.createdAt,
    output: [...keptUserMessages(args.input), compaction],
    usage: mapResponsesUsage(args.usage),
  };
}

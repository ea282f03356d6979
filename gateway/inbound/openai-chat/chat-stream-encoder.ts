/**
 * StreamEvent → Chat Completions SSE (per https://platform.openai.com/docs/api-reference/chat): data-only frames, never
 * an `event:` line; every chunk has the same `id`/`created`/`model`. First chunk
 * `delta:{role:"assistant", content:""}`; text as `delta.content`; reasoning as
 * `delta.reasoning_content` (key omitted in other chunks, as https://api-docs.deepseek.com/guides/thinking_mode streams it); tool calls by `index` (position
 * among tool calls) with `id`, `type`, `function.name` and `arguments:""` on the first fragment;
 * final chunk `delta:{}` + `finish_reason`; when `stream_options.include_usage` is true, one more
 * chunk with `choices:[]` and `usage` (https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options) and `usage:null` on every other chunk; then
 * `data: [DONE]`. A mid-stream error is one `data: {"error":{…}}` frame (as the SDK reads it: https://github.com/openai/openai-node/blob/master/src/core/streaming.ts);
 * the caller closes.
 */
import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { EncodeContext, StreamEncoder } from '../inbound-codec.ts';
import { toOpenAIErrorObject } from '../openai-common/openai-error-object.ts';
import { isJsonObject } from '../openai-common/request-field-error.ts';
import { SSE_COMMENT_PING, SSE_DONE_FRAME, sseFrame, toSseJson } from '../sse-frame.ts';
import { mapChatFinishReason } from './map-chat-finish-reason.ts';
import { mapChatUsage } from './map-chat-usage.ts';

interface ChatStreamState {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly includeUsage: boolean;
  /** Canonical block index → position among tool calls. */
  readonly toolPositions: Map<number, number>;
  started: boolean;
  finished: boolean;
  /** The text of a text or reasoning delta chunk before its delta's member, lazily made: what `chunk` writes up to the delta's `{`. */
  deltaHead: string | undefined;
}

/**
 * A text or reasoning delta chunk, as `chunk` writes `{ [member]: text }`, with only the text
 * serialised: the rest of the frame is the same for every delta of the stream. These are most of
 * a stream's frames.
 */
function textDeltaChunk(state: ChatStreamState, member: 'content' | 'reasoning_content', text: string): string {
  state.deltaHead ??= `data: {"id":${toSseJson(state.id)},"object":"chat.completion.chunk","created":${toSseJson(state.created)},"model":${toSseJson(state.model)},"choices":[{"index":0,"delta":{`;
  const tail = state.includeUsage
    ? '},"logprobs":null,"finish_reason":null}],"usage":null}\n\n'
    : '},"logprobs":null,"finish_reason":null}]}\n\n';
  return `${state.deltaHead}"${member}":${toSseJson(text)}${tail}`;
}

/** One chunk frame with a single choice (`delta`, `finish_reason`). */
function chunk(state: ChatStreamState, delta: Record<string, unknown>, finishReason: string | null = null): string {
  const body: Record<string, unknown> = {
    id: state.id,
    object: 'chat.completion.chunk',
    created: state.created,
    model: state.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  if (state.includeUsage) body.usage = null;
  return sseFrame(undefined, body);
}

function start(state: ChatStreamState): string {
  if (state.started) return '';
  state.started = true;
  return chunk(state, { role: 'assistant', content: '' });
}

function onToolStart(state: ChatStreamState, index: number, id: string, name: string): string {
  const position = state.toolPositions.size;
  state.toolPositions.set(index, position);
  return (
    start(state) +
    chunk(state, { tool_calls: [{ index: position, id, type: 'function', function: { name, arguments: '' } }] })
  );
}

function onToolDelta(state: ChatStreamState, index: number, fragment: string): string {
  const position = state.toolPositions.get(index);
  if (position === undefined || fragment === '') return '';
  return start(state) + chunk(state, { tool_calls: [{ index: position, function: { arguments: fragment } }] });
}

function onMessageEnd(state: ChatStreamState, finish: FinishReason, usage: Usage): string {
  state.finished = true;
  let frames = start(state) + chunk(state, {}, mapChatFinishReason(finish, state.toolPositions.size > 0));
  if (state.includeUsage) {
    frames += sseFrame(undefined, {
      id: state.id,
      object: 'chat.completion.chunk',
      created: state.created,
      model: state.model,
      choices: [],
      usage: mapChatUsage(usage),
    });
  }
  return frames + SSE_DONE_FRAME;
}

function onError(state: ChatStreamState, error: GatewayError): string {
  state.finished = true;
  return sseFrame(undefined, { error: toOpenAIErrorObject(error) });
}

function encodeEvent(state: ChatStreamState, event: StreamEvent): string {
  switch (event.type) {
    case 'message-start':
      return start(state);
    case 'text-delta':
      return event.text === '' ? '' : start(state) + textDeltaChunk(state, 'content', event.text);
    case 'reasoning-delta':
      return event.text === '' ? '' : start(state) + textDeltaChunk(state, 'reasoning_content', event.text);
    case 'tool-input-start':
      return onToolStart(state, event.index, event.toolCallId, event.toolName);
    case 'tool-input-delta':
      return onToolDelta(state, event.index, event.argumentsFragment);
    case 'message-end':
      return onMessageEnd(state, event.finishReason, event.usage);
    case 'error':
      return onError(state, event.error);
    case 'keep-alive':
      return SSE_COMMENT_PING;
    case 'text-start':
    case 'reasoning-start':
    case 'reasoning-signature':
    case 'block-end':
      return start(state);
  }
}

/** True when the raw body asked for the usage chunk (`stream_options.include_usage === true`). */
function wantsUsage(raw: Readonly<Record<string, unknown>>): boolean {
  return isJsonObject(raw.stream_options) && raw.stream_options.include_usage === true;
}

/**
 * Creates the encoder for one Chat Completions stream (`id` = fresh `chatcmpl-…`, `created` =
 * `context.createdAt`, `model` = `context.model`). After `[DONE]` or an error frame every further
 * event yields ''. `keepAlive` returns `: ping\n\n`.
 */
export function createChatStreamEncoder(context: EncodeContext): StreamEncoder {
  const state: ChatStreamState = {
    id: generateId('chatcmpl-'),
    created: context.createdAt,
    model: context.model,
    includeUsage: wantsUsage(context.rawRequest),
    toolPositions: new Map(),
    started: false,
    finished: false,
    deltaHead: undefined,
  };
  return {
    encode: (event) => (state.finished ? '' : encodeEvent(state, event)),
    keepAlive: () => SSE_COMMENT_PING,
  };
}

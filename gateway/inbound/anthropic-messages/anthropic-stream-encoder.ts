/**
 * StreamEvent → Anthropic Messages SSE (https://docs.anthropic.com/en/api/messages, https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * every frame has an `event:` line equal to its JSON `type`; message_start (+ ping), per block
 * content_block_start/delta/stop with our own 0..n indices, message_delta with cumulative usage
 * (numeric `output_tokens` always), message_stop; no `[DONE]`. A mid-stream error is an
 * `event: error` frame and nothing after it.
 */
import { generateId } from '../../canonical/ids.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import { emptyUsage } from '../../canonical/usage.ts';
import type { EncodeContext, StreamEncoder } from '../inbound-codec.ts';
import { sseFrame, toSseJson } from '../sse-frame.ts';
import { anthropicErrorBody } from './encode-anthropic-error.ts';
import { encodeAnthropicUsage } from './encode-anthropic-usage.ts';
import { mapFinishReasonToAnthropic } from './map-finish-reason-to-anthropic.ts';

type BlockKind = 'text' | 'thinking' | 'redacted_thinking' | 'tool_use';

/** State of one Anthropic stream. */
interface AnthropicStreamState {
  readonly context: EncodeContext;
  started: boolean;
  /** message-end or error was encoded: everything after is ignored. */
  finished: boolean;
  /** Next Anthropic content-block index. */
  nextIndex: number;
  /** The open block: canonical index → our index and kind. */
  open: { canonicalIndex: number; index: number; kind: BlockKind } | undefined;
}

/** `event: ping` + `{"type":"ping"}`: skipped by both Anthropic SDKs. */
export const ANTHROPIC_PING_FRAME = sseFrame('ping', { type: 'ping' });

function frame(type: string, payload: Record<string, unknown>): string {
  return sseFrame(type, { type, ...payload });
}

function messageStart(state: AnthropicStreamState, event?: Extract<StreamEvent, { type: 'message-start' }>): string {
  if (state.started) return '';
  state.started = true;
  const usage = encodeAnthropicUsage(event?.usage ?? emptyUsage());
  const message = {
    id: generateId('msg_'),
    type: 'message',
    role: 'assistant',
    model: state.context.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...usage, output_tokens: 1 },
  };
  return frame('message_start', { message }) + ANTHROPIC_PING_FRAME;
}

function closeOpenBlock(state: AnthropicStreamState): string {
  if (state.open === undefined) return '';
  const index = state.open.index;
  state.open = undefined;
  return frame('content_block_stop', { index });
}

function startBlock(
  state: AnthropicStreamState,
  canonicalIndex: number,
  kind: BlockKind,
  contentBlock: Record<string, unknown>,
): string {
  const prefix = messageStart(state) + closeOpenBlock(state);
  const index = state.nextIndex++;
  state.open = { canonicalIndex, index, kind };
  return prefix + frame('content_block_start', { index, content_block: contentBlock });
}

/** A delta for the open block if it is the one the event names and of the expected kind; '' otherwise. */
function delta(
  state: AnthropicStreamState,
  canonicalIndex: number,
  kind: BlockKind,
  payload: Record<string, unknown>,
): string {
  const open = state.open;
  if (open === undefined || open.canonicalIndex !== canonicalIndex || open.kind !== kind) return '';
  return frame('content_block_delta', { index: open.index, delta: payload });
}

/**
 * A text, thinking or tool-input delta for the open block, as `delta` writes it, with only the
 * fragment serialised (`{"type":"content_block_delta","index":N,"delta":{"type":T,F:"…"}}`): these
 * are most of a stream's frames. '' when the open block is not the one the event names or not of
 * `kind`.
 */
function fragmentDelta(
  state: AnthropicStreamState,
  canonicalIndex: number,
  kind: BlockKind,
  deltaType: 'text_delta' | 'thinking_delta' | 'input_json_delta',
  field: 'text' | 'thinking' | 'partial_json',
  fragment: string,
): string {
  const open = state.open;
  if (open === undefined || open.canonicalIndex !== canonicalIndex || open.kind !== kind) return '';
  return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${open.index},"delta":{"type":"${deltaType}","${field}":${toSseJson(fragment)}}}\n\n`;
}

function blockEnd(state: AnthropicStreamState, canonicalIndex: number): string {
  return state.open?.canonicalIndex === canonicalIndex ? closeOpenBlock(state) : '';
}

function messageEnd(state: AnthropicStreamState, event: Extract<StreamEvent, { type: 'message-end' }>): string {
  const prefix = messageStart(state) + closeOpenBlock(state);
  state.finished = true;
  const stopSequence = event.stopSequence ?? null;
  const messageDelta = frame('message_delta', {
    delta: {
      stop_reason: mapFinishReasonToAnthropic(event.finishReason, event.stopSequence),
      stop_sequence: stopSequence,
    },
    usage: encodeAnthropicUsage(event.usage),
  });
  return prefix + messageDelta + frame('message_stop', {});
}

function encodeBlockEvent(state: AnthropicStreamState, event: StreamEvent): string {
  switch (event.type) {
    case 'text-start':
      return startBlock(state, event.index, 'text', { type: 'text', text: '' });
    case 'text-delta':
      return event.text === '' ? '' : fragmentDelta(state, event.index, 'text', 'text_delta', 'text', event.text);
    case 'reasoning-start':
      return event.redacted === undefined
        ? startBlock(state, event.index, 'thinking', { type: 'thinking', thinking: '', signature: '' })
        : startBlock(state, event.index, 'redacted_thinking', { type: 'redacted_thinking', data: event.redacted });
    case 'reasoning-delta':
      return event.text === ''
        ? ''
        : fragmentDelta(state, event.index, 'thinking', 'thinking_delta', 'thinking', event.text);
    case 'reasoning-signature':
      return delta(state, event.index, 'thinking', { type: 'signature_delta', signature: event.signature });
    case 'tool-input-start':
      return startBlock(state, event.index, 'tool_use', {
        type: 'tool_use',
        id: event.toolCallId,
        name: event.toolName,
        input: {},
      });
    case 'tool-input-delta':
      return event.argumentsFragment === ''
        ? ''
        : fragmentDelta(state, event.index, 'tool_use', 'input_json_delta', 'partial_json', event.argumentsFragment);
    case 'block-end':
      return blockEnd(state, event.index);
    default:
      return '';
  }
}

function encodeEvent(state: AnthropicStreamState, event: StreamEvent): string {
  if (state.finished) return '';
  switch (event.type) {
    case 'message-start':
      return messageStart(state, event);
    case 'message-end':
      return messageEnd(state, event);
    case 'keep-alive':
      return ANTHROPIC_PING_FRAME;
    case 'error':
      state.finished = true;
      return sseFrame('error', anthropicErrorBody(event.error));
    default:
      return encodeBlockEvent(state, event);
  }
}

/**
 * Creates the encoder for one response stream. `context.model` is echoed as `message.model`;
 * a fresh `msg_…` id is minted. Events out of grammar (a delta for a block that is not open)
 * yield ''. A block start before message-start emits message_start first.
 */
export function createAnthropicStreamEncoder(context: EncodeContext): StreamEncoder {
  const state: AnthropicStreamState = { context, started: false, finished: false, nextIndex: 0, open: undefined };
  return {
    encode: (event) => encodeEvent(state, event),
    keepAlive: () => ANTHROPIC_PING_FRAME,
  };
}

/**
 * Anthropic Messages SSE → StreamEvents (per https://docs.anthropic.com/en/api/messages). Upstream block
 * indices are renumbered 0.. over the blocks the gateway keeps (server-tool blocks are skipped
 * without leaving gaps); usage from `message_start` is merged with the cumulative usage of
 * `message_delta`; `message_stop` ends the message.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import type { UpstreamDecodeContext, UpstreamSseEvent, UpstreamStreamDecoder } from '../upstream-adapter.ts';
import {
  anthropicStreamEventSchema,
  type AnthropicStreamEvent,
  type AnthropicUsage,
} from './anthropic-wire-schemas.ts';
import { classifyAnthropicErrorObject } from './classify-anthropic-error.ts';
import { anthropicToolInputJson } from './decode-anthropic-response.ts';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.ts';
import { mapAnthropicUsage, mergeAnthropicUsage } from './map-anthropic-usage.ts';

/** A kept upstream block: its canonical index and, for tool_use, whether input arrived as deltas. */
interface BlockSlot {
  readonly index: number;
  readonly kind: 'text' | 'reasoning' | 'tool';
  /** tool_use only: `input` given in content_block_start (compat upstreams may send it whole there). */
  readonly startInput?: unknown;
  sawInputDelta: boolean;
}

/** Everything the decoder remembers between SSE events. */
interface AnthropicStreamState {
  readonly context: UpstreamDecodeContext;
  started: boolean;
  finished: boolean;
  nextIndex: number;
  /** Upstream index → kept slot, or null for a skipped (server-tool / unknown) block. */
  readonly slots: Map<number, BlockSlot | null>;
  open: BlockSlot | undefined;
  usage: AnthropicUsage | undefined;
  stopReason: string | undefined;
  stopSequence: string | undefined;
}

function malformed(message: string): GatewayError {
  return new GatewayError('upstream-malformed', message);
}

function ensureStarted(state: AnthropicStreamState, out: StreamEvent[]): void {
  if (state.started) return;
  state.started = true;
  out.push({ type: 'message-start', messageId: generateId('msg_'), model: state.context.upstreamModel });
}

function closeOpen(state: AnthropicStreamState, out: StreamEvent[]): void {
  const slot = state.open;
  if (!slot) return;
  if (slot.kind === 'tool' && !slot.sawInputDelta) {
    out.push({
      type: 'tool-input-delta',
      index: slot.index,
      argumentsFragment: anthropicToolInputJson(slot.startInput),
    });
  }
  out.push({ type: 'block-end', index: slot.index });
  state.open = undefined;
}

function fail(state: AnthropicStreamState, error: GatewayError): StreamEvent[] {
  const out: StreamEvent[] = [];
  closeOpen(state, out);
  out.push({ type: 'error', error });
  state.finished = true;
  return out;
}

function onMessageStart(state: AnthropicStreamState, event: AnthropicStreamEvent): StreamEvent[] {
  if (state.started) return [];
  state.started = true;
  const message = event.message;
  if (message?.usage) state.usage = mergeAnthropicUsage(undefined, message.usage);
  const start: StreamEvent = {
    type: 'message-start',
    messageId: message?.id ?? generateId('msg_'),
    model: message?.model ?? state.context.upstreamModel,
    ...(message?.usage ? { usage: mapAnthropicUsage(message.usage) } : {}),
  };
  return [start];
}

function openSlot(
  state: AnthropicStreamState,
  upstreamIndex: number,
  kind: BlockSlot['kind'],
  startInput?: unknown,
): BlockSlot {
  const slot: BlockSlot = { index: state.nextIndex++, kind, startInput, sawInputDelta: false };
  state.slots.set(upstreamIndex, slot);
  state.open = slot;
  return slot;
}

function onBlockStart(state: AnthropicStreamState, event: AnthropicStreamEvent): StreamEvent[] {
  const block = event.content_block;
  if (event.index === null || event.index === undefined || !block)
    return fail(state, malformed('content_block_start without index or content_block'));
  const out: StreamEvent[] = [];
  ensureStarted(state, out);
  closeOpen(state, out);
  switch (block.type) {
    case 'text': {
      const { index } = openSlot(state, event.index, 'text');
      out.push({ type: 'text-start', index });
      if (block.text) out.push({ type: 'text-delta', index, text: block.text });
      return out;
    }
    case 'thinking': {
      const { index } = openSlot(state, event.index, 'reasoning');
      out.push({ type: 'reasoning-start', index });
      if (block.thinking) out.push({ type: 'reasoning-delta', index, text: block.thinking });
      if (block.signature) out.push({ type: 'reasoning-signature', index, signature: block.signature });
      return out;
    }
    case 'redacted_thinking': {
      const { index } = openSlot(state, event.index, 'reasoning');
      out.push({ type: 'reasoning-start', index, redacted: block.data ?? '' });
      return out;
    }
    case 'tool_use': {
      const { index } = openSlot(state, event.index, 'tool', block.input);
      out.push({
        type: 'tool-input-start',
        index,
        toolCallId: block.id ?? generateId('toolu_'),
        toolName: block.name ?? '',
      });
      return out;
    }
    default:
      state.slots.set(event.index, null);
      return out;
  }
}

function onBlockDelta(state: AnthropicStreamState, event: AnthropicStreamEvent): StreamEvent[] {
  const slot = event.index === null || event.index === undefined ? undefined : state.slots.get(event.index);
  const delta = event.delta;
  if (!slot || slot !== state.open || !delta) return [];
  const index = slot.index;
  switch (delta.type) {
    case 'text_delta':
      return slot.kind === 'text' && delta.text ? [{ type: 'text-delta', index, text: delta.text }] : [];
    case 'thinking_delta':
      return slot.kind === 'reasoning' && delta.thinking
        ? [{ type: 'reasoning-delta', index, text: delta.thinking }]
        : [];
    case 'signature_delta':
      return slot.kind === 'reasoning' && delta.signature
        ? [{ type: 'reasoning-signature', index, signature: delta.signature }]
        : [];
    case 'input_json_delta':
      if (slot.kind !== 'tool' || !delta.partial_json) return [];
      slot.sawInputDelta = true;
      return [{ type: 'tool-input-delta', index, argumentsFragment: delta.partial_json }];
    default:
      return []; // citations_delta and future delta types carry nothing the canonical model keeps
  }
}

function onBlockStop(state: AnthropicStreamState, event: AnthropicStreamEvent): StreamEvent[] {
  const slot = event.index === null || event.index === undefined ? undefined : state.slots.get(event.index);
  if (!slot || slot !== state.open) return [];
  const out: StreamEvent[] = [];
  closeOpen(state, out);
  return out;
}

function onMessageDelta(state: AnthropicStreamState, event: AnthropicStreamEvent): StreamEvent[] {
  if (event.delta?.stop_reason) state.stopReason = event.delta.stop_reason;
  if (event.delta?.stop_sequence) state.stopSequence = event.delta.stop_sequence;
  if (event.usage) state.usage = mergeAnthropicUsage(state.usage, event.usage);
  return [];
}

function onMessageStop(state: AnthropicStreamState): StreamEvent[] {
  const out: StreamEvent[] = [];
  ensureStarted(state, out);
  closeOpen(state, out);
  const finishReason = mapAnthropicStopReason(state.stopReason);
  const usage = mapAnthropicUsage(state.usage);
  out.push(
    state.stopSequence === undefined
      ? { type: 'message-end', finishReason, usage }
      : { type: 'message-end', finishReason, usage, stopSequence: state.stopSequence },
  );
  state.finished = true;
  return out;
}

function parseEvent(sse: UpstreamSseEvent): AnthropicStreamEvent | GatewayError {
  let json: unknown;
  try {
    json = JSON.parse(sse.data);
  } catch {
    return malformed(`Upstream sent an SSE event that is not JSON: ${sse.data.slice(0, 200)}`);
  }
  const parsed = anthropicStreamEventSchema.safeParse(json);
  return parsed.success
    ? parsed.data
    : malformed(`Upstream sent an unreadable Anthropic stream event: ${parsed.error.message}`);
}

function dispatch(state: AnthropicStreamState, sse: UpstreamSseEvent): StreamEvent[] {
  if (sse.event === 'ping') return [];
  const event = parseEvent(sse);
  if (event instanceof GatewayError) return fail(state, event);
  switch (event.type ?? sse.event) {
    case 'message_start':
      return onMessageStart(state, event);
    case 'content_block_start':
      return onBlockStart(state, event);
    case 'content_block_delta':
      return onBlockDelta(state, event);
    case 'content_block_stop':
      return onBlockStop(state, event);
    case 'message_delta':
      return onMessageDelta(state, event);
    case 'message_stop':
      return onMessageStop(state);
    case 'error':
      return fail(state, classifyAnthropicErrorObject(event.error));
    default:
      return []; // ping and event types added after this adapter was written
  }
}

/**
 * Creates the decoder for one Anthropic stream. `push` never throws: unreadable data or an SSE
 * `error` event yields one `error` event (classified per https://docs.anthropic.com/en/api/errors) and ends the stream; events after
 * the end are ignored. Events that arrive before `message_start` get a synthesised message-start
 * (id minted, model = upstream model). `end()` without `message_stop` closes the open block and
 * yields an `upstream-malformed` error ("stream ended before completion").
 */
export function createAnthropicStreamDecoder(context: UpstreamDecodeContext): UpstreamStreamDecoder {
  const state: AnthropicStreamState = {
    context,
    started: false,
    finished: false,
    nextIndex: 0,
    slots: new Map(),
    open: undefined,
    usage: undefined,
    stopReason: undefined,
    stopSequence: undefined,
  };
  return {
    push: (sse) => (state.finished ? [] : dispatch(state, sse)),
    end: () =>
      state.finished ? [] : fail(state, malformed('Upstream stream ended before completion (no message_stop)')),
  };
}

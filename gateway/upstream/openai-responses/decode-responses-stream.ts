/**
 * Responses SSE events → StreamEvents (https://platform.openai.com/docs/api-reference/responses). One decoder per upstream
 * response. Output items are keyed by `output_index`:
 * - `response.created` → message-start;
 * - `message` item: a text block opens at `content_part.added` (output_text/refusal) and takes
 *   `output_text.delta` / `refusal.delta`;
 * - `reasoning` item: a reasoning block opens at its first `reasoning_summary_text.delta` /
 *   `reasoning_text.delta` (or at `output_item.done` when it carries `encrypted_content`, emitted as
 *   reasoning-signature), so items with nothing to show make no empty block;
 * - `function_call` item: tool-input-start at `output_item.added` (`call_id`, `name`), then
 *   `function_call_arguments.delta`; arguments that only arrive on `output_item.done` are emitted
 *   as one delta;
 * - `output_item.done` → block-end; `response.completed` / `response.incomplete` → message-end with
 *   the final usage; `response.failed` / `error` → error. Unknown events and `[DONE]` are ignored.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import { asRecord } from '../shared/read-json-field.ts';
import { StreamBlockCursor } from '../shared/stream-block-cursor.ts';
import type { UpstreamDecodeContext, UpstreamSseEvent, UpstreamStreamDecoder } from '../upstream-adapter.ts';
import { classifyResponsesFailure } from './classify-responses-failure.ts';
import { mapResponsesFinishReason } from './map-responses-finish-reason.ts';
import { normalizeResponsesUsage } from './normalize-responses-usage.ts';
import {
  EMPTY_OUTPUT_ITEM,
  EMPTY_RESPONSE,
  responsesStreamEventSchema,
  type ResponsesOutputItem,
  type ResponsesResponse,
  type ResponsesStreamEvent,
} from './openai-responses-wire-schemas.ts';
import { readReasoningItem, REASONING_PART_SEPARATOR } from './read-reasoning-item.ts';

/** A Responses stream decoder; `warnings` lists what was dropped while decoding. */
export interface ResponsesStreamDecoder extends UpstreamStreamDecoder {
  readonly warnings: string[];
}

/** One output item seen on the stream. */
interface ItemState {
  readonly kind: string;
  readonly key: string;
  /** A block was opened for this item (tool calls: tool-input-start was emitted). */
  opened: boolean;
  /** Some text/arguments of this item were emitted as deltas. */
  emitted: boolean;
  /** The reasoning part (`s:<summary_index>` / `c:<content_index>`) of the last reasoning delta. */
  lastPart: string | undefined;
}

/** Mutable decoder state. */
interface ResponsesStreamState {
  started: boolean;
  finished: boolean;
  hasToolCalls: boolean;
  refused: boolean;
  readonly items: Map<number, ItemState>;
}

/** A stream event as parsed (responsesStreamEventSchema). */
type Data = ResponsesStreamEvent;

class ResponsesStreamDecoderImpl implements ResponsesStreamDecoder {
  readonly warnings: string[] = [];
  private readonly cursor = new StreamBlockCursor();
  private readonly state: ResponsesStreamState = {
    started: false,
    finished: false,
    hasToolCalls: false,
    refused: false,
    items: new Map(),
  };

  constructor(private readonly context: UpstreamDecodeContext) {}

  push(sse: UpstreamSseEvent): StreamEvent[] {
    const out: StreamEvent[] = [];
    const text = sse.data.trim();
    if (this.state.finished || text === '' || text === '[DONE]') return out;
    let raw: Record<string, unknown> | undefined;
    try {
      raw = asRecord(JSON.parse(text));
    } catch {
      raw = undefined;
    }
    if (!raw) {
      this.fail(
        new GatewayError('upstream-malformed', `Upstream sent malformed stream data: ${text.slice(0, 200)}`),
        out,
      );
      return out;
    }
    const data = responsesStreamEventSchema.parse(raw);
    this.dispatch(data.type ?? sse.event ?? '', data, raw, out);
    return out;
  }

  end(): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (!this.state.finished)
      this.fail(new GatewayError('upstream-malformed', 'Upstream stream ended before completion'), out);
    return out;
  }

  /** Handles one event; `raw` is the event as sent (an `error` event is classified from it). */
  private dispatch(type: string, data: Data, raw: Record<string, unknown>, out: StreamEvent[]): void {
    switch (type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
        return this.start(data.response ?? undefined, out);
      case 'response.output_item.added':
        return this.onItemAdded(data, out);
      case 'response.content_part.added':
        return this.onPartAdded(data, out);
      case 'response.output_text.delta':
        return this.onTextDelta(data, out);
      case 'response.refusal.delta':
        this.state.refused = true;
        return this.onTextDelta(data, out);
      case 'response.reasoning_summary_text.delta':
        return this.onReasoningDelta(data, `s:${data.summary_index ?? 0}`, out);
      case 'response.reasoning_text.delta':
        return this.onReasoningDelta(data, `c:${data.content_index ?? 0}`, out);
      case 'response.function_call_arguments.delta':
        return this.onArgumentsDelta(data, out);
      case 'response.output_item.done':
        return this.onItemDone(data, out);
      case 'response.completed':
      case 'response.incomplete':
        return this.onTerminal(
          type === 'response.completed' ? 'completed' : 'incomplete',
          data.response ?? EMPTY_RESPONSE,
          out,
        );
      case 'response.failed':
        return this.fail(classifyResponsesFailure(asRecord(data.response?.error) ?? {}), out);
      case 'error':
        return this.fail(classifyResponsesFailure(raw), out);
      default:
        return; // unknown or uninteresting event (annotations, *.done text snapshots, keepalive)
    }
  }

  /** message-start once, from the lifecycle snapshot (or lazily, if an item event comes first). */
  private start(response: ResponsesResponse | undefined, out: StreamEvent[]): void {
    if (this.state.started) return;
    this.state.started = true;
    out.push({
      type: 'message-start',
      messageId: response?.id ?? '',
      model: response?.model ?? this.context.upstreamModel,
    });
  }

  /** The state of the item at `output_index`, registering it (as `kind`) when unseen. */
  private item(data: Data, kind: string): ItemState {
    const outputIndex = data.output_index ?? 0;
    let item = this.state.items.get(outputIndex);
    if (!item) {
      item = { kind, key: `item:${outputIndex}`, opened: false, emitted: false, lastPart: undefined };
      this.state.items.set(outputIndex, item);
    }
    return item;
  }

  private onItemAdded(data: Data, out: StreamEvent[]): void {
    this.start(undefined, out);
    const raw = data.item ?? EMPTY_OUTPUT_ITEM;
    const item = this.item(data, raw.type ?? 'unknown');
    if (item.kind === 'function_call') this.openToolCall(item, raw, out);
  }

  private openToolCall(item: ItemState, raw: ResponsesOutputItem, out: StreamEvent[]): void {
    this.state.hasToolCalls = true;
    item.opened = true;
    const callId = raw.call_id || raw.id || generateId('call_');
    const index = this.cursor.openTool(item.key, callId, raw.name ?? '', out);
    const args = raw.arguments ?? '';
    if (args !== '') {
      item.emitted = true;
      out.push({ type: 'tool-input-delta', index, argumentsFragment: args });
    }
  }

  private onPartAdded(data: Data, out: StreamEvent[]): void {
    const type = data.part?.type;
    if (type === 'output_text' || type === 'refusal') this.cursor.ensure('text', this.item(data, 'message').key, out);
  }

  private onTextDelta(data: Data, out: StreamEvent[]): void {
    this.start(undefined, out);
    const item = this.item(data, 'message');
    const index = this.cursor.ensure('text', item.key, out);
    const text = data.delta ?? '';
    if (text === '') return;
    item.emitted = true;
    out.push({ type: 'text-delta', index, text });
  }

  private onReasoningDelta(data: Data, part: string, out: StreamEvent[]): void {
    this.start(undefined, out);
    const item = this.item(data, 'reasoning');
    const index = this.cursor.ensure('reasoning', item.key, out);
    const text = data.delta ?? '';
    if (text === '') return;
    if (item.emitted && item.lastPart !== part)
      out.push({ type: 'reasoning-delta', index, text: REASONING_PART_SEPARATOR });
    item.lastPart = part;
    item.emitted = true;
    out.push({ type: 'reasoning-delta', index, text });
  }

  private onArgumentsDelta(data: Data, out: StreamEvent[]): void {
    const item = this.item(data, 'function_call');
    const index = this.cursor.indexOf(item.key);
    const fragment = data.delta ?? '';
    if (index === undefined) {
      this.warnings.push(`${item.key}: function-call arguments arrived while its block was not open; dropped`);
      return;
    }
    if (fragment === '') return;
    item.emitted = true;
    out.push({ type: 'tool-input-delta', index, argumentsFragment: fragment });
  }

  /** Completes an item: emits what only the final item carries, then block-end. */
  private onItemDone(data: Data, out: StreamEvent[]): void {
    this.start(undefined, out);
    const raw = data.item ?? EMPTY_OUTPUT_ITEM;
    const item = this.item(data, raw.type ?? 'unknown');
    if (item.kind === 'reasoning') this.finishReasoning(item, raw, out);
    else if (item.kind === 'function_call') this.finishToolCall(item, raw, out);
    else if (item.kind === 'message') this.finishMessage(item, raw, out);
    if (this.cursor.indexOf(item.key) !== undefined) this.cursor.close(out);
  }

  private finishReasoning(item: ItemState, raw: ResponsesOutputItem, out: StreamEvent[]): void {
    const { text, signature } = readReasoningItem(raw);
    if (!item.emitted && text !== '') {
      item.emitted = true;
      out.push({ type: 'reasoning-delta', index: this.cursor.ensure('reasoning', item.key, out), text });
    }
    if (signature)
      out.push({ type: 'reasoning-signature', index: this.cursor.ensure('reasoning', item.key, out), signature });
  }

  private finishToolCall(item: ItemState, raw: ResponsesOutputItem, out: StreamEvent[]): void {
    if (!item.opened) this.openToolCall(item, raw, out);
    const index = this.cursor.indexOf(item.key);
    const args = raw.arguments ?? '';
    if (index === undefined || item.emitted || args === '') return;
    item.emitted = true;
    out.push({ type: 'tool-input-delta', index, argumentsFragment: args });
  }

  private finishMessage(item: ItemState, raw: ResponsesOutputItem, out: StreamEvent[]): void {
    if (item.emitted) return;
    let text = '';
    for (const part of raw.content ?? []) {
      if (part?.type === 'refusal') this.state.refused = true;
      text += part?.text ?? part?.refusal ?? '';
    }
    if (text === '') return;
    item.emitted = true;
    out.push({ type: 'text-delta', index: this.cursor.ensure('text', item.key, out), text });
  }

  private onTerminal(fallbackStatus: string, response: ResponsesResponse, out: StreamEvent[]): void {
    this.start(response, out);
    this.cursor.close(out);
    this.state.finished = true;
    const status = response.status ?? fallbackStatus;
    const reason = response.incomplete_details?.reason ?? undefined;
    out.push({
      type: 'message-end',
      finishReason: mapResponsesFinishReason(status, reason, {
        hasToolCalls: this.state.hasToolCalls,
        refused: this.state.refused,
      }),
      usage: normalizeResponsesUsage(response.usage),
    });
  }

  private fail(error: GatewayError, out: StreamEvent[]): void {
    this.cursor.close(out);
    this.state.finished = true;
    out.push({ type: 'error', error });
  }
}

/** Creates the decoder for one upstream Responses stream. Never throws; bad data yields an `error` event. */
export function createResponsesStreamDecoder(context: UpstreamDecodeContext): ResponsesStreamDecoder {
  return new ResponsesStreamDecoderImpl(context);
}

/**
 * Chat Completions SSE chunks → StreamEvents (https://platform.openai.com/docs/api-reference/chat; provider stream
 * quirks of gateway/providers/PROVIDER-DOCS.md). One decoder per upstream response.
 *
 * - message-start on the first chunk (`id`, `model`).
 * - `reasoning_content` / `reasoning` / `reasoning_details` deltas → a reasoning block; `content` →
 *   a text block (split on `<think>` tags when `quirks.thinkTagsInContent`, MiniMax).
 * - `tool_calls` fragments by `index` → tool-input blocks; a fragment for a call whose block was
 *   already closed is dropped and recorded in `warnings`.
 * - usage from `chunk.usage` or `choices[0].usage` (Moonshot), last one wins (cumulative).
 * - The message ends at `[DONE]` (finish `other`, or tool-calls, if no `finish_reason` came), or at
 *   end() when a `finish_reason` was seen (the usage chunk `choices:[]` follows the finish chunk, so
 *   the decoder waits for it); end() without either → upstream-malformed error.
 * - A chunk carrying `error` (or a non-zero MiniMax `base_resp`) → error event (status from a
 *   numeric `error.code`, else 500); malformed JSON → upstream-malformed error event.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import { emptyUsage, type Usage } from '../../canonical/usage.ts';
import type { UpstreamDecodeContext, UpstreamSseEvent, UpstreamStreamDecoder } from '../upstream-adapter.ts';
import { embeddedOpenAiError } from '../shared/classify-openai-error.ts';
import { mapChatFinishReason } from './map-chat-finish-reason.ts';
import { normalizeChatUsage } from './normalize-chat-usage.ts';
import { readChatReasoning } from './read-chat-reasoning.ts';
import { asRecord } from '../shared/read-json-field.ts';
import { EMPTY_CHAT_MESSAGE, readChatChunk, type ChatToolCall } from './openai-chat-wire-schemas.ts';
import { StreamBlockCursor } from '../shared/stream-block-cursor.ts';
import { ThinkTagSplitter } from './split-think-tags.ts';

/** A Chat Completions stream decoder; `warnings` lists what was dropped while decoding. */
export interface ChatStreamDecoder extends UpstreamStreamDecoder {
  readonly warnings: string[];
}

/** One upstream tool call: its block key and call id. */
interface ToolSlot {
  readonly key: string;
  readonly id: string;
}

/** Mutable decoder state. */
interface ChatStreamState {
  started: boolean;
  /** message-end or error was emitted; later input is ignored. */
  finished: boolean;
  sawFinish: boolean;
  finishRaw: string | undefined;
  hadToolCalls: boolean;
  usage: Usage | undefined;
  /** Upstream `tool_calls[].index` → the call it currently designates; made at the first call (most streams have none). */
  tools: Map<number, ToolSlot> | undefined;
  toolCount: number;
  readonly splitter: ThinkTagSplitter | undefined;
}

class ChatStreamDecoderImpl implements ChatStreamDecoder {
  readonly warnings: string[] = [];
  private readonly cursor = new StreamBlockCursor();
  private readonly state: ChatStreamState;

  constructor(private readonly context: UpstreamDecodeContext) {
    this.state = {
      started: false,
      finished: false,
      sawFinish: false,
      finishRaw: undefined,
      hadToolCalls: false,
      usage: undefined,
      tools: undefined,
      toolCount: 0,
      splitter: context.provider.quirks.thinkTagsInContent ? new ThinkTagSplitter() : undefined,
    };
  }

  push(sse: UpstreamSseEvent): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.state.finished) return out;
    const data = sse.data.trim();
    if (data === '') return out;
    if (data === '[DONE]') {
      if (this.state.started) this.complete(out);
      else this.fail(new GatewayError('upstream-malformed', 'Upstream stream ended before any chunk'), out);
      return out;
    }
    let chunk: Record<string, unknown> | undefined;
    try {
      chunk = asRecord(JSON.parse(data));
    } catch {
      chunk = undefined;
    }
    if (!chunk)
      this.fail(
        new GatewayError('upstream-malformed', `Upstream sent malformed stream data: ${data.slice(0, 200)}`),
        out,
      );
    else this.onChunk(chunk, out);
    return out;
  }

  end(): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.state.finished) return out;
    if (this.state.sawFinish) this.complete(out);
    else this.fail(new GatewayError('upstream-malformed', 'Upstream stream ended before completion'), out);
    return out;
  }

  private onChunk(chunk: Record<string, unknown>, out: StreamEvent[]): void {
    const embedded = embeddedOpenAiError(chunk);
    if (embedded) {
      this.fail(embedded, out);
      return;
    }
    const parsed = readChatChunk(chunk);
    if (!this.state.started) {
      this.state.started = true;
      out.push({
        type: 'message-start',
        messageId: parsed.id ?? '',
        model: parsed.model ?? this.context.upstreamModel,
      });
    }
    const choice = parsed.choices?.[0];
    const usage = asRecord(parsed.usage) ?? asRecord(choice?.usage);
    if (usage) this.state.usage = normalizeChatUsage(usage);
    if (!choice) return;
    const delta = choice.delta ?? EMPTY_CHAT_MESSAGE;
    const reasoning = readChatReasoning(delta);
    if (reasoning !== '') this.onReasoning(reasoning, out);
    if (typeof delta.content === 'string' && delta.content !== '') this.onContent(delta.content, out);
    (delta.tool_calls ?? []).forEach((fragment, position) => this.onToolFragment(fragment, position, out));
    const finish = choice.finish_reason;
    if (finish) {
      this.state.sawFinish = true;
      this.state.finishRaw = finish;
    }
  }

  private onReasoning(text: string, out: StreamEvent[]): void {
    const index = this.cursor.ensure('reasoning', 'reasoning', out);
    out.push({ type: 'reasoning-delta', index, text });
  }

  private onText(text: string, out: StreamEvent[]): void {
    const index = this.cursor.ensure('text', 'text', out);
    out.push({ type: 'text-delta', index, text });
  }

  private onContent(content: string, out: StreamEvent[]): void {
    const splitter = this.state.splitter;
    if (!splitter) return this.onText(content, out);
    for (const segment of splitter.push(content)) {
      if (segment.kind === 'reasoning') this.onReasoning(segment.text, out);
      else this.onText(segment.text, out);
    }
  }

  /** Routes one `tool_calls[]` fragment: a new index (or a new id at a known index) opens a block. */
  private onToolFragment(fragment: ChatToolCall, position: number, out: StreamEvent[]): void {
    if (!fragment) return;
    const upstreamIndex = fragment.index ?? position;
    const fn = fragment.function;
    const id = fragment.id;
    const raw = fn?.arguments;
    const args = typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : JSON.stringify(raw);
    let slot = this.state.tools?.get(upstreamIndex);
    if (!slot || (id && id !== slot.id)) {
      slot = { key: `tool:${this.state.toolCount++}`, id: id || generateId('call_') };
      (this.state.tools ??= new Map()).set(upstreamIndex, slot);
      this.state.hadToolCalls = true;
      const name = fn?.name ?? undefined;
      if (name === undefined) this.warnings.push(`tool call ${slot.id}: first fragment carried no function name`);
      this.cursor.openTool(slot.key, slot.id, name ?? '', out);
    }
    const index = this.cursor.indexOf(slot.key);
    if (index === undefined) {
      this.warnings.push(`tool call ${slot.id}: arguments fragment arrived after its block was closed; dropped`);
      return;
    }
    if (args !== '') out.push({ type: 'tool-input-delta', index, argumentsFragment: args });
  }

  /** Emits text held back by the think-tag splitter. */
  private flushSplitter(out: StreamEvent[]): void {
    for (const segment of this.state.splitter?.flush() ?? []) {
      if (segment.kind === 'reasoning') this.onReasoning(segment.text, out);
      else this.onText(segment.text, out);
    }
  }

  private complete(out: StreamEvent[]): void {
    this.flushSplitter(out);
    this.cursor.close(out);
    this.state.finished = true;
    out.push({
      type: 'message-end',
      finishReason: mapChatFinishReason(this.state.finishRaw, this.state.hadToolCalls),
      usage: this.state.usage ?? emptyUsage('estimated'),
    });
  }

  private fail(error: GatewayError, out: StreamEvent[]): void {
    this.flushSplitter(out);
    this.cursor.close(out);
    this.state.finished = true;
    out.push({ type: 'error', error });
  }
}

/** Creates the decoder for one upstream Chat Completions stream. Never throws; bad data yields an `error` event. */
export function createChatStreamDecoder(context: UpstreamDecodeContext): ChatStreamDecoder {
  return new ChatStreamDecoderImpl(context);
}

/**
 * ConverseStream events → StreamEvents
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html).
 * The relay decodes the binary event stream (gateway/exchange/read-aws-event-stream.ts) and hands
 * each message over as `{event: <:event-type>, data: <payload JSON>}`; an exception message
 * arrives as `{event: <:exception-type>, data: {"message": …}}`.
 *
 * The order Bedrock sends: `messageStart`, then per block an optional `contentBlockStart` (only
 * tool uses announce themselves), `contentBlockDelta`s, `contentBlockStop`; then `messageStop`
 * with the stop reason, then `metadata` with the usage. Message-end is emitted at `metadata`; an
 * upstream that closes after `messageStop` without `metadata` ends with the usage estimated.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { Usage } from '../../canonical/usage.ts';
import { emptyUsage } from '../../canonical/usage.ts';
import { bedrockErrorName, classifyBedrockErrorNamed } from '../shared/classify-bedrock-error.ts';
import type { UpstreamDecodeContext, UpstreamSseEvent, UpstreamStreamDecoder } from '../upstream-adapter.ts';
import type { z } from 'zod';
import {
  bedrockExceptionPayloadSchema,
  converseBlockDeltaSchema,
  converseBlockStartSchema,
  converseBlockStopSchema,
  converseMessageStartSchema,
  converseMessageStopSchema,
  converseMetadataSchema,
} from './converse-wire-schemas.ts';
import { mapConverseStopReason } from './map-converse-stop-reason.ts';
import { mapConverseUsage } from './map-converse-usage.ts';

/** A kept upstream block: its canonical index and kind. */
interface BlockSlot {
  readonly index: number;
  readonly kind: 'text' | 'reasoning' | 'tool';
  sawInput: boolean;
}

/** Everything the decoder remembers between events. */
interface ConverseStreamState {
  readonly context: UpstreamDecodeContext;
  started: boolean;
  finished: boolean;
  nextIndex: number;
  /** Upstream `contentBlockIndex` → kept slot. */
  readonly slots: Map<number, BlockSlot>;
  open: BlockSlot | undefined;
  stopReason: FinishReason | undefined;
}

function malformed(message: string): GatewayError {
  return new GatewayError('upstream-malformed', message);
}

function ensureStarted(state: ConverseStreamState, out: StreamEvent[]): void {
  if (state.started) return;
  state.started = true;
  out.push({ type: 'message-start', messageId: generateId('msg_'), model: state.context.upstreamModel });
}

function closeOpen(state: ConverseStreamState, out: StreamEvent[]): void {
  const slot = state.open;
  if (!slot) return;
  if (slot.kind === 'tool' && !slot.sawInput)
    out.push({ type: 'tool-input-delta', index: slot.index, argumentsFragment: '{}' });
  out.push({ type: 'block-end', index: slot.index });
  state.open = undefined;
}

function fail(state: ConverseStreamState, error: GatewayError): StreamEvent[] {
  const out: StreamEvent[] = [];
  closeOpen(state, out);
  out.push({ type: 'error', error });
  state.finished = true;
  return out;
}

function finish(state: ConverseStreamState, usage: Usage): StreamEvent[] {
  const out: StreamEvent[] = [];
  ensureStarted(state, out);
  closeOpen(state, out);
  out.push({ type: 'message-end', finishReason: state.stopReason ?? mapConverseStopReason(undefined), usage });
  state.finished = true;
  return out;
}

/** Opens the slot of upstream block `upstreamIndex` as `kind`, closing the open one. */
function openSlot(
  state: ConverseStreamState,
  upstreamIndex: number,
  kind: BlockSlot['kind'],
  out: StreamEvent[],
): BlockSlot {
  ensureStarted(state, out);
  closeOpen(state, out);
  const slot: BlockSlot = { index: state.nextIndex++, kind, sawInput: false };
  state.slots.set(upstreamIndex, slot);
  state.open = slot;
  return slot;
}

function onBlockStart(state: ConverseStreamState, event: z.infer<typeof converseBlockStartSchema>): StreamEvent[] {
  const toolUse = event.start?.toolUse;
  if (!toolUse) return []; // image and tool-result starts carry nothing the canonical model keeps
  const out: StreamEvent[] = [];
  const { index } = openSlot(state, event.contentBlockIndex, 'tool', out);
  out.push({
    type: 'tool-input-start',
    index,
    toolCallId: toolUse.toolUseId ?? generateId('tooluse_'),
    toolName: toolUse.name ?? '',
  });
  return out;
}

/** The slot for a delta of `kind` at `upstreamIndex`: the open one when it matches, else a new block. */
function slotFor(
  state: ConverseStreamState,
  upstreamIndex: number,
  kind: 'text' | 'reasoning',
  out: StreamEvent[],
  redacted?: string,
): BlockSlot {
  const known = state.slots.get(upstreamIndex);
  if (known && known === state.open && known.kind === kind && redacted === undefined) return known;
  const slot = openSlot(state, upstreamIndex, kind, out);
  out.push(
    kind === 'text'
      ? { type: 'text-start', index: slot.index }
      : redacted === undefined
        ? { type: 'reasoning-start', index: slot.index }
        : { type: 'reasoning-start', index: slot.index, redacted },
  );
  return slot;
}

function onBlockDelta(state: ConverseStreamState, event: z.infer<typeof converseBlockDeltaSchema>): StreamEvent[] {
  const out: StreamEvent[] = [];
  const { delta, contentBlockIndex: at } = event;
  if (typeof delta.text === 'string') {
    const slot = slotFor(state, at, 'text', out);
    if (delta.text !== '') out.push({ type: 'text-delta', index: slot.index, text: delta.text });
    return out;
  }
  if (delta.toolUse) {
    const slot = state.slots.get(at);
    if (!slot || slot !== state.open || slot.kind !== 'tool') return [];
    const fragment = delta.toolUse.input ?? '';
    if (fragment === '') return [];
    slot.sawInput = true;
    return [{ type: 'tool-input-delta', index: slot.index, argumentsFragment: fragment }];
  }
  const reasoning = delta.reasoningContent;
  if (reasoning) {
    if (reasoning.redactedContent) {
      slotFor(state, at, 'reasoning', out, reasoning.redactedContent);
      return out;
    }
    const slot = slotFor(state, at, 'reasoning', out);
    if (reasoning.text) out.push({ type: 'reasoning-delta', index: slot.index, text: reasoning.text });
    if (reasoning.signature)
      out.push({ type: 'reasoning-signature', index: slot.index, signature: reasoning.signature });
    return out;
  }
  return out; // citation and image deltas carry nothing the canonical model keeps
}

function onBlockStop(state: ConverseStreamState, event: z.infer<typeof converseBlockStopSchema>): StreamEvent[] {
  const slot = state.slots.get(event.contentBlockIndex);
  if (!slot || slot !== state.open) return [];
  const out: StreamEvent[] = [];
  closeOpen(state, out);
  return out;
}

function parse<S extends z.ZodType>(schema: S, sse: UpstreamSseEvent): z.output<S> | GatewayError {
  let json: unknown;
  try {
    json = JSON.parse(sse.data);
  } catch {
    return malformed(
      `Amazon Bedrock sent a ${sse.event ?? 'stream'} event that is not JSON: ${sse.data.slice(0, 200)}`,
    );
  }
  const parsed = schema.safeParse(json);
  return parsed.success
    ? parsed.data
    : malformed(`Amazon Bedrock sent an unreadable ${sse.event ?? 'stream'} event: ${parsed.error.message}`);
}

/** Runs `handle` on the event parsed with `schema`, or fails the stream when it does not parse. */
function withParsed<S extends z.ZodType>(
  state: ConverseStreamState,
  schema: S,
  sse: UpstreamSseEvent,
  handle: (event: z.output<S>) => StreamEvent[],
): StreamEvent[] {
  const event = parse(schema, sse);
  return event instanceof GatewayError ? fail(state, event) : handle(event);
}

/** An exception message: classified by its name (`throttlingException` → upstream-rate-limited, …). */
function onException(state: ConverseStreamState, sse: UpstreamSseEvent): StreamEvent[] {
  const payload = parse(bedrockExceptionPayloadSchema, sse);
  const message = payload instanceof GatewayError ? sse.data.slice(0, 500) : (payload.message ?? '');
  return fail(state, classifyBedrockErrorNamed(bedrockErrorName(sse.event), message, undefined));
}

function dispatch(state: ConverseStreamState, sse: UpstreamSseEvent): StreamEvent[] {
  switch (sse.event) {
    case 'messageStart':
      return withParsed(state, converseMessageStartSchema, sse, () => {
        const out: StreamEvent[] = [];
        ensureStarted(state, out);
        return out;
      });
    case 'contentBlockStart':
      return withParsed(state, converseBlockStartSchema, sse, (event) => onBlockStart(state, event));
    case 'contentBlockDelta':
      return withParsed(state, converseBlockDeltaSchema, sse, (event) => onBlockDelta(state, event));
    case 'contentBlockStop':
      return withParsed(state, converseBlockStopSchema, sse, (event) => onBlockStop(state, event));
    case 'messageStop':
      return withParsed(state, converseMessageStopSchema, sse, (event) => {
        state.stopReason = mapConverseStopReason(event.stopReason);
        const out: StreamEvent[] = [];
        closeOpen(state, out);
        return out;
      });
    case 'metadata':
      return withParsed(state, converseMetadataSchema, sse, (event) => finish(state, mapConverseUsage(event.usage)));
    default:
      if (sse.event !== undefined && /exception$/i.test(sse.event)) return onException(state, sse);
      return []; // event types added after this adapter was written
  }
}

/**
 * Creates the decoder for one ConverseStream answer. `push` never throws: unreadable data or an
 * exception message yields one `error` event (classified per classify-bedrock-error.ts) and ends
 * the stream; events after the end are ignored. `end()` after `messageStop` without `metadata`
 * ends the message with the usage estimated; before `messageStop` it closes the open block and
 * yields an `upstream-malformed` error ("stream ended before completion").
 */
export function createConverseStreamDecoder(context: UpstreamDecodeContext): UpstreamStreamDecoder {
  const state: ConverseStreamState = {
    context,
    started: false,
    finished: false,
    nextIndex: 0,
    slots: new Map(),
    open: undefined,
    stopReason: undefined,
  };
  return {
    push: (sse) => (state.finished ? [] : dispatch(state, sse)),
    end: () => {
      if (state.finished) return [];
      if (state.stopReason !== undefined) return finish(state, emptyUsage('estimated'));
      return fail(state, malformed('Amazon Bedrock stream ended before completion (no messageStop)'));
    },
  };
}

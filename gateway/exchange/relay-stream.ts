/**
 * Streamed relay. Upstream SSE → adapter stream decoder → StreamEvents → the client's stream
 * encoder (translated path), or upstream bytes copied unchanged while a tap decodes them
 * (pass-through). Nothing is written to the client until the first content event arrives, so an
 * upstream that fails before producing content still allows failover; after that, failures end
 * the stream with the format's own error event. A client that goes away aborts the upstream call
 * and the delivered part is billed as `partial`.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { StreamEvent } from '../canonical/stream-event.ts';
import { StreamAccumulator } from '../canonical/stream-accumulator.ts';
import type { EncodeContext, StreamEncoder } from '../inbound/inbound-codec.ts';
import type { UpstreamAdapter, UpstreamDecodeContext } from '../upstream/upstream-adapter.ts';
import { classifyTransportError, type UpstreamAnswer } from '../upstream/upstream-transport.ts';
import type { AttemptResult } from './attempt-result.ts';
import { startEventStream, writeWithBackpressure } from './client-response.ts';
import type { ExchangeDeps, ExchangeInput } from './exchange-types.ts';
import { finalizeUsage } from './finalize-usage.ts';
import { readSseEvents } from './read-sse-events.ts';

const CONTENT_EVENTS: ReadonlySet<StreamEvent['type']> = new Set(['text-delta', 'reasoning-delta', 'reasoning-start', 'tool-input-start', 'message-end']);

/** Everything one streamed relay works with. */
export interface StreamRelayArgs {
  readonly deps: ExchangeDeps;
  readonly input: ExchangeInput;
  readonly answer: UpstreamAnswer;
  readonly adapter: UpstreamAdapter;
  readonly decodeContext: UpstreamDecodeContext;
  readonly encodeContext: EncodeContext;
  readonly passThrough: boolean;
  readonly reply: FastifyReply;
  readonly signal: AbortSignal;
}

interface RelayState {
  raw: ServerResponse | undefined;
  readonly pending: Array<string | Buffer>;
  readonly accumulator: StreamAccumulator;
  readonly encoder: StreamEncoder;
  ttfbMs: number;
  lastWriteAt: number;
  /** False while the bytes written so far end inside an SSE event (pass-through chunks need not align). */
  atEventBoundary: boolean;
  endError: GatewayError | undefined;
}

/** Relays a 2xx streamed upstream answer; see the module comment for the failover rule. */
export async function relayStream(args: StreamRelayArgs): Promise<AttemptResult> {
  const decoder = args.adapter.createStreamDecoder(args.decodeContext);
  const state: RelayState = {
    raw: undefined,
    pending: [],
    accumulator: new StreamAccumulator(),
    encoder: args.input.codec.createStreamEncoder(args.encodeContext),
    ttfbMs: 0,
    lastWriteAt: Date.now(),
    atEventBoundary: true,
    endError: undefined,
  };
  const keepAlive = setInterval(() => void writeKeepAlive(args, state), Math.max(50, Math.floor(args.deps.keepAliveMs / 2)));
  try {
    // With an answer hook, pass-through goes event by event through it instead of as raw chunks.
    const passThroughHook = args.passThrough ? args.input.answerHook : undefined;
    const tap = args.passThrough && !passThroughHook ? (chunk: Buffer) => emit(state, chunk) : undefined;
    for await (const sse of readSseEvents(args.answer.body, tap)) {
      if (passThroughHook) await emit(state, await passThroughHook.passThroughEvent(sse));
      const failure = await handleEvents(args, state, decoder.push(sse));
      if (failure) return abandon(args, failure);
    }
    const failure = await handleEvents(args, state, decoder.end(), true);
    if (failure) return abandon(args, failure);
  } catch (error) {
    if (args.signal.aborted) return finish(args, state, 'cancelled');
    const failure = classifyTransportError(error);
    if (!state.raw) return abandon(args, failure);
    await handleEvents(args, state, [{ type: 'error', error: failure }], true);
  } finally {
    clearInterval(keepAlive);
  }
  if (!state.raw) return abandon(args, state.endError ?? classifyTransportError(new Error('upstream stream ended without content')));
  return finish(args, state, state.endError ? 'failed' : 'completed');
}

/**
 * Feeds decoded events through accumulator and encoder; returns an error to fail over on.
 * `gatewayMade` marks events the gateway synthesised (transport failures, truncated streams):
 * their errors get frames even on the pass-through path.
 */
async function handleEvents(args: StreamRelayArgs, state: RelayState, events: StreamEvent[], gatewayMade = false): Promise<GatewayError | undefined> {
  for (let event of events) {
    if (state.accumulator.finished) break;
    if (!state.raw) {
      if (event.type === 'error') return event.error;
      if (CONTENT_EVENTS.has(event.type)) await start(args, state);
    }
    if (event.type === 'message-end') {
      event = { ...event, usage: finalizeUsage(event.usage, args.input.request, state.accumulator.result().content) };
    }
    if (event.type === 'error') state.endError = event.error;
    state.accumulator.push(event);
    // Pass-through copies upstream bytes; only errors the gateway itself detected need frames.
    if (!args.passThrough || (gatewayMade && event.type === 'error')) {
      const frame = state.encoder.encode(event);
      if (event.type === 'message-end' && !args.passThrough && args.input.answerHook && state.encoder.finalBody) await args.input.answerHook.streamFinished(state.encoder.finalBody());
      if (frame !== '') await emit(state, frame);
    }
  }
  return undefined;
}

async function start(args: StreamRelayArgs, state: RelayState): Promise<void> {
  state.raw = startEventStream(args.reply, args.input.requestId);
  state.ttfbMs = Date.now() - args.input.startedAt;
  const pending = state.pending.splice(0);
  for (const chunk of pending) await writeWithBackpressure(state.raw, chunk);
}

/** True when `chunk` ends an SSE event (a blank line in any of SSE's line-ending styles). */
function endsEvent(chunk: string | Buffer): boolean {
  const tail = typeof chunk === 'string' ? chunk.slice(-4) : chunk.toString('latin1', Math.max(0, chunk.length - 4));
  return tail.endsWith('\n\n') || tail.endsWith('\r\r') || tail.endsWith('\r\n\r\n');
}

async function emit(state: RelayState, chunk: string | Buffer): Promise<void> {
  if (chunk.length > 0) state.atEventBoundary = endsEvent(chunk);
  if (!state.raw) {
    state.pending.push(chunk);
    return;
  }
  state.lastWriteAt = Date.now();
  await writeWithBackpressure(state.raw, chunk);
}

async function writeKeepAlive(args: StreamRelayArgs, state: RelayState): Promise<void> {
  if (!state.raw || state.raw.writableEnded || !state.atEventBoundary || Date.now() - state.lastWriteAt < args.deps.keepAliveMs) return;
  await emit(state, state.encoder.keepAlive());
}

function abandon(args: StreamRelayArgs, error: GatewayError): AttemptResult {
  args.answer.body.destroy();
  return { kind: 'failed', error };
}

function finish(args: StreamRelayArgs, state: RelayState, status: 'completed' | 'failed' | 'cancelled'): AttemptResult {
  if (state.raw && !state.raw.writableEnded) state.raw.end();
  if (status === 'cancelled') args.answer.body.destroy();
  const content = state.accumulator.result().content;
  const usage = finalizeUsage(state.accumulator.currentUsage(), args.input.request, content, status !== 'completed');
  return { kind: 'served', status, httpStatus: 200, usage, ttfbMs: state.ttfbMs, ...(state.endError ? { error: state.endError } : {}) };
}

/**
 * Streamed relay. Upstream SSE → adapter stream decoder → StreamEvents → the client's stream
 * encoder (translated path), or upstream bytes copied unchanged while they are read (pass-through).
 * SSE is read from runs of whole events (sse-frame-cutter.ts, sse-event-reader.ts), with no async
 * iterator per event, and the frames of one upstream chunk leave in one write. On pass-through the
 * relay decodes the events before the start and those that carry the outcome (usage, stop reason,
 * errors, new blocks, the end); once the stream has started, events that only continue an open
 * block (the adapter's PassThroughTap) are kept unparsed, and parsed only when no usage was
 * reported or the stream was cut short and its output must be estimated. AWS event-stream framing
 * (Bedrock) is never passed through: its bodies are reshaped (pass-through-policy.ts), so its
 * streams are always decoded and re-encoded.
 * Nothing is written to the client until the first content event arrives, so an upstream that
 * fails before producing content still allows failover; after that, failures end
 * the stream with the format's own error event. A client that goes away aborts the upstream call
 * and the delivered part is billed as `partial`.
 *
 * The client only ever receives whole SSE events: pass-through bytes are forwarded up to the last
 * complete event of each chunk (sse-frame-cutter.ts), so an upstream cut inside an event is
 * followed by the gateway's error event after a complete frame, never after half of one. Bytes that
 * are not UTF-8 reach the client as U+FFFD on both paths. The attempt's deadline
 * (attempt-deadline.ts) sees every body byte for the minimum-rate check.
 *
 * Keep-alive frames: a started stream silent for `keepAliveMs` gets the format's keep-alive frame.
 * Every live relay with the same keep-alive period is checked by one shared interval (half the
 * period, at least 50 ms) rather than an interval of its own, so a frame leaves at most 1.5 ×
 * `keepAliveMs` after the last write, and a live stream costs a Set entry instead of a timer.
 */
import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { OutputBlock } from '../canonical/response.ts';
import type { StreamEvent } from '../canonical/stream-event.ts';
import { StreamAccumulator } from '../canonical/stream-accumulator.ts';
import type { StreamEncoder } from '../inbound/inbound-codec.ts';
import { upstreamRequestIdOf } from '../upstream/upstream-request-id.ts';
import { classifyTransportError } from '../upstream/upstream-transport.ts';
import type { UpstreamStreamDecoder } from '../upstream/upstream-adapter.ts';
import type { AttemptResult } from './attempt-result.ts';
import { startEventStream, writeWithBackpressure } from './client-response.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';
import type { ExchangeDeps } from './exchange-types.ts';
import { finalizeUsage } from './finalize-usage.ts';
import { readAwsEventStream } from './read-aws-event-stream.ts';
import { readSseEvents } from './read-sse-events.ts';
import type { RelayArgs } from './relay-json.ts';
import { SseFrameCutter } from './sse-frame-cutter.ts';
import { SseEventReader } from './sse-event-reader.ts';
import { StreamChunkReader } from './stream-chunk-reader.ts';

const CONTENT_EVENTS: ReadonlySet<StreamEvent['type']> = new Set([
  'text-delta',
  'reasoning-delta',
  'reasoning-start',
  'tool-input-start',
  'message-end',
]);

/** Everything one streamed relay works with. */
export interface StreamRelayArgs extends RelayArgs {
  readonly deps: ExchangeDeps;
  /** The client's disconnect (aborted when it went away). */
  readonly signal: ClientGoneSignal;
}

interface RelayState {
  /** ms of silence before a keep-alive frame (the node's `keepAliveMs`). */
  readonly keepAliveMs: number;
  raw: ServerResponse | undefined;
  readonly pending: Array<string | Buffer>;
  /** Frames encoded since the last write, written together once the upstream chunk that made them is handled. */
  held: string;
  readonly accumulator: StreamAccumulator;
  /** The client format's encoder, made on first use: a pass-through stream needs it only for the gateway's own frames. */
  readonly encoder: () => StreamEncoder;
  ttfbMs: number;
  lastWriteAt: number;
  endError: GatewayError | undefined;
  /**
   * Pass-through of bytes: the reader that kept the events after the start that only continued an
   * open block (the adapter's PassThroughTap) unparsed; their output is read only for an estimate.
   */
  continuations: SseEventReader | undefined;
}

/** The client's stream encoder for `args`, made by the first call and returned by every later one. */
function encoderOnFirstUse(args: StreamRelayArgs): () => StreamEncoder {
  let encoder: StreamEncoder | undefined;
  return () => (encoder ??= args.input.codec.createStreamEncoder(args.encodeContext));
}

/** Relays a 2xx streamed upstream answer; see the module comment for the failover rule. */
export async function relayStream(args: StreamRelayArgs): Promise<AttemptResult> {
  // The attempt's deadline is disposed here rather than by a `finally` on this promise, which would
  // cost a promise, a reaction and two closures for as long as the stream lasts.
  try {
    const decoder = args.adapter.createStreamDecoder(args.decodeContext);
    const state: RelayState = {
      keepAliveMs: args.deps.keepAliveMs,
      raw: undefined,
      pending: [],
      held: '',
      accumulator: new StreamAccumulator(),
      encoder: encoderOnFirstUse(args),
      ttfbMs: 0,
      lastWriteAt: Date.now(),
      endError: undefined,
      continuations: undefined,
    };
    const stopKeepAlive = watchKeepAlive(state);
    try {
      // With an answer hook, pass-through goes event by event through it instead of as raw chunks.
      const passThroughHook = args.passThrough ? args.input.answerHook : undefined;
      if (!passThroughHook && args.adapter.streamFraming !== 'aws-eventstream') {
        // An SSE stream without an answer hook: each upstream chunk is cut after its last complete
        // event (SseFrameCutter) and the events of that run are read from its bytes (SseEventReader),
        // with no async iterator per chunk (StreamChunkReader) or per event. The frames the events
        // make leave in one write; on pass-through the run's bytes follow as they came. The loop is
        // here, not in a function of its own: a live stream waits in it, and each async function a
        // stream waits in keeps a generator and its registers.
        const cutter = new SseFrameCutter();
        // Pass-through: once the stream has started, continuations stay unparsed (the adapter's PassThroughTap).
        const reader = new SseEventReader(args.passThrough ? args.adapter.passThroughTap : undefined);
        state.continuations = reader;
        const chunks = new StreamChunkReader(args.answer.body);
        try {
          for (;;) {
            const step = takeChunk(args, chunks, cutter, reader);
            if (step === 'wait') await chunks.readable();
            else if (step === 'end') break;
            else if (step === 'loaded') {
              const failure = await handleRun(args, state, decoder, reader);
              if (failure) return abandon(args, failure);
            }
          }
        } finally {
          chunks.release();
        }
        const last = cutter.finish();
        if (last !== undefined) reader.load(last);
        const failure = last === undefined ? undefined : await handleRun(args, state, decoder, reader);
        if (failure) return abandon(args, failure);
      } else {
        // The frames of all the events of one upstream chunk leave in one write.
        const afterChunk = (chunk: Buffer): Promise<void> | undefined => {
          args.deadline.countBytes(chunk.length);
          return flush(state);
        };
        // The adapter says how its stream is framed: SSE, or AWS event-stream messages (Amazon Bedrock).
        const readEvents = args.adapter.streamFraming === 'aws-eventstream' ? readAwsEventStream : readSseEvents;
        for await (const sse of readEvents(args.answer.body, afterChunk)) {
          if (passThroughHook) await emit(state, await passThroughHook.passThroughEvent(sse));
          const failure = await handleEvents(args, state, decoder.push(sse));
          if (failure) return abandon(args, failure);
        }
      }
      const failure = await handleEvents(args, state, decoder.end(), true);
      if (failure) return abandon(args, failure);
      await flush(state);
    } catch (error) {
      if (args.signal.aborted) return finish(args, state, 'cancelled');
      const failure = args.deadline.expired ?? classifyTransportError(error);
      if (!state.raw) return abandon(args, failure);
      await handleEvents(args, state, [{ type: 'error', error: failure }], true);
      await flush(state);
    } finally {
      stopKeepAlive();
    }
    if (!state.raw)
      return abandon(
        args,
        state.endError ?? classifyTransportError(new Error('upstream stream ended without content')),
      );
    return finish(args, state, state.endError ? 'failed' : 'completed');
  } finally {
    args.deadline.dispose();
  }
}

/** What `takeChunk` did: loaded a run of complete events into the reader, held a partial event, found no chunk yet, or the body ended. */
type ChunkStep = 'loaded' | 'held' | 'wait' | 'end';

/**
 * Takes the next upstream chunk, if one is there, and loads the complete events it finishes into
 * `reader` (the rest stays in `cutter`). Synchronous, so that no chunk is ever in a register of
 * relayStream: the generator of a suspended async function keeps its registers, and a live stream
 * waiting in that loop would keep the last chunk it relayed (measured: one Buffer of about 500
 * bytes per live stream).
 */
function takeChunk(
  args: StreamRelayArgs,
  chunks: StreamChunkReader,
  cutter: SseFrameCutter,
  reader: SseEventReader,
): ChunkStep {
  const chunk = chunks.next();
  if (chunk === undefined) return 'wait';
  if (chunk === null) return 'end';
  args.deadline.countBytes(chunk.length);
  const complete = cutter.push(chunk);
  if (complete === undefined) return 'held';
  reader.load(complete);
  return 'loaded';
}

/**
 * Decodes and handles the events of the run loaded into `reader` (whole SSE events) that it hands
 * out, writes their frames, then, on pass-through, the run itself. Returns an error to fail over on.
 */
async function handleRun(
  args: StreamRelayArgs,
  state: RelayState,
  decoder: UpstreamStreamDecoder,
  reader: SseEventReader,
): Promise<GatewayError | undefined> {
  const complete = reader.run;
  for (let sse = reader.next(state.raw !== undefined); sse; sse = reader.next(state.raw !== undefined)) {
    let failure = handleEvents(args, state, decoder.push(sse));
    // Only a stream-finished hook makes handling wait: the usual event costs no promise.
    if (failure instanceof Promise) failure = await failure;
    if (failure) return failure;
  }
  await flush(state);
  if (args.passThrough) await emit(state, complete);
  return undefined;
}

/**
 * Feeds decoded events through accumulator and encoder; returns an error to fail over on. The
 * frames are held (`hold`): the caller writes them with `flush` once the events of its upstream
 * chunk are handled. `gatewayMade` marks events the gateway synthesised (transport failures,
 * truncated streams): their errors get frames even on the pass-through path.
 */
function handleEvents(
  args: StreamRelayArgs,
  state: RelayState,
  events: StreamEvent[],
  gatewayMade = false,
): GatewayError | undefined | Promise<GatewayError | undefined> {
  for (let i = 0; i < events.length; i++) {
    let event = events[i] as StreamEvent;
    if (state.accumulator.finished) break;
    if (!state.raw) {
      if (event.type === 'error') return event.error;
      if (CONTENT_EVENTS.has(event.type)) start(args, state);
    }
    if (event.type === 'message-end') {
      event = {
        ...event,
        usage: finalizeUsage(event.usage, args.input.request, () => outputSoFar(state)),
      };
    }
    if (event.type === 'error') state.endError = event.error;
    state.accumulator.push(event);
    // Pass-through copies upstream bytes; only errors the gateway itself detected need frames.
    if (!args.passThrough || (gatewayMade && event.type === 'error')) {
      const encoder = state.encoder();
      const frame = encoder.encode(event);
      if (frame !== '') hold(state, frame);
      // The hook has the whole answer before the client reads its end: the held frames leave after it.
      if (event.type === 'message-end' && !args.passThrough && args.input.answerHook && encoder.finalBody) {
        const rest = events.slice(i + 1);
        return args.input.answerHook
          .streamFinished(encoder.finalBody())
          .then(() => handleEvents(args, state, rest, gatewayMade));
      }
    }
  }
  return undefined;
}

/**
 * Starts the client's stream: the headers, then what was held before the start. Those few frames
 * are written without waiting for the socket; the next write waits if its buffer filled.
 */
function start(args: StreamRelayArgs, state: RelayState): void {
  const raw = startEventStream(args.reply, args.input.requestId);
  state.raw = raw;
  state.ttfbMs = Date.now() - args.input.startedAt;
  for (const chunk of state.pending.splice(0)) if (!raw.destroyed) raw.write(chunk);
}

/** Keeps encoded frames for the next `flush` (or until the stream starts). */
function hold(state: RelayState, frames: string): void {
  if (!state.raw) state.pending.push(frames);
  else state.held += frames;
}

/** Writes the held frames, if any, in one write. */
function flush(state: RelayState): Promise<void> | undefined {
  if (state.held === '') return undefined;
  const frames = state.held;
  state.held = '';
  return emit(state, frames);
}

/** Writes whole SSE events (or holds them until the stream starts). */
async function emit(state: RelayState, chunk: string | Buffer): Promise<void> {
  if (!state.raw) {
    state.pending.push(chunk);
    return;
  }
  state.lastWriteAt = Date.now();
  await writeWithBackpressure(state.raw, chunk);
}

async function writeKeepAlive(state: RelayState): Promise<void> {
  if (!state.raw || state.raw.writableEnded || Date.now() - state.lastWriteAt < state.keepAliveMs) return;
  await emit(state, state.encoder().keepAlive());
}

/** The live relays checked by one interval, by check period (ms). */
const keepAliveTickers = new Map<number, { readonly timer: NodeJS.Timeout; readonly relays: Set<RelayState> }>();

/**
 * Adds `state` to the shared keep-alive check of its period (started with its first relay,
 * stopped with its last); returns the function that removes it (idempotent).
 */
function watchKeepAlive(state: RelayState): () => void {
  const period = Math.max(50, Math.floor(state.keepAliveMs / 2));
  let ticker = keepAliveTickers.get(period);
  if (!ticker) {
    const relays = new Set<RelayState>();
    const timer = setInterval(() => {
      for (const relay of relays) void writeKeepAlive(relay);
    }, period);
    // The streams' own sockets keep the process alive; this check alone must not.
    timer.unref();
    ticker = { timer, relays };
    keepAliveTickers.set(period, ticker);
  }
  const { relays, timer } = ticker;
  relays.add(state);
  return () => {
    if (!relays.delete(state) || relays.size > 0) return;
    clearInterval(timer);
    keepAliveTickers.delete(period);
  };
}

/** The output relayed so far, for an estimate of output tokens: the decoded blocks and the pass-through's unparsed continuations. */
function outputSoFar(state: RelayState): OutputBlock[] {
  const decoded = state.accumulator.result().content;
  const continued = state.continuations?.continuations() ?? [];
  return continued.length === 0 ? [...decoded] : [...decoded, ...continued];
}

function abandon(args: StreamRelayArgs, error: GatewayError): AttemptResult {
  args.answer.body.destroy();
  return { kind: 'failed', error };
}

function finish(args: StreamRelayArgs, state: RelayState, status: 'completed' | 'failed' | 'cancelled'): AttemptResult {
  if (state.raw && !state.raw.writableEnded) state.raw.end();
  if (status === 'cancelled') args.answer.body.destroy();
  const usage = finalizeUsage(
    state.accumulator.currentUsage(),
    args.input.request,
    () => outputSoFar(state),
    status !== 'completed',
  );
  return {
    kind: 'served',
    status,
    httpStatus: 200,
    usage,
    ttfbMs: state.ttfbMs,
    upstreamRequestId: upstreamRequestIdOf(args.answer.headers),
    ...(state.endError ? { error: state.endError } : {}),
  };
}

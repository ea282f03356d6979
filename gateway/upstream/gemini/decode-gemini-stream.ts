/**
 * Gemini `streamGenerateContent?alt=sse` → StreamEvents (per https://ai.google.dev/api/generate-content).
 * Every SSE event is a partial GenerateContentResponse holding only new parts; there is no
 * terminator event, the upstream closes after the chunk carrying `finishReason`.
 *
 * When message-end is emitted: at the chunk carrying `finishReason` if that chunk also carries
 * `usageMetadata` (the normal case — Gemini puts final counts on the last chunk); otherwise at the
 * next chunk that carries usage, or at `end()` with the last usage seen. Exactly one message-end.
 */
import { finishReason as makeFinishReason, type FinishReason } from '../../canonical/finish-reason.ts';
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import { emptyUsage, type Usage } from '../../canonical/usage.ts';
import type { UpstreamDecodeContext, UpstreamSseEvent, UpstreamStreamDecoder } from '../upstream-adapter.ts';
import { classifyGeminiErrorObject } from './classify-gemini-error.ts';
import { GeminiPartFolder } from './fold-gemini-parts.ts';
import { geminiResponseSchema, type GeminiResponse } from './gemini-wire-schemas.ts';
import { mapGeminiBlockReason, mapGeminiFinishReason } from './map-gemini-finish-reason.ts';
import { mapGeminiUsage } from './map-gemini-usage.ts';

/** Everything the decoder remembers between chunks. */
interface GeminiStreamState {
  readonly context: UpstreamDecodeContext;
  readonly folder: GeminiPartFolder;
  started: boolean;
  finished: boolean;
  /** Set once a chunk carried finishReason (or a prompt block reason). */
  pendingFinish: FinishReason | undefined;
  /** Last usageMetadata seen (running totals; last wins). */
  usage: Usage | undefined;
}

function fail(state: GeminiStreamState, error: GatewayError): StreamEvent[] {
  const out: StreamEvent[] = [];
  if (state.started) state.folder.close(out);
  out.push({ type: 'error', error });
  state.finished = true;
  return out;
}

function finish(state: GeminiStreamState, out: StreamEvent[]): void {
  state.folder.close(out);
  out.push({
    type: 'message-end',
    finishReason: state.pendingFinish ?? makeFinishReason('other'),
    usage: state.usage ?? emptyUsage('estimated'),
  });
  state.finished = true;
}

function parseChunk(sse: UpstreamSseEvent): GeminiResponse | GatewayError {
  let json: unknown;
  try {
    json = JSON.parse(sse.data);
  } catch {
    return new GatewayError(
      'upstream-malformed',
      `Upstream sent an SSE event that is not JSON: ${sse.data.slice(0, 200)}`,
    );
  }
  const parsed = geminiResponseSchema.safeParse(Array.isArray(json) ? json[0] : json);
  return parsed.success
    ? parsed.data
    : new GatewayError('upstream-malformed', `Upstream sent an unreadable Gemini chunk: ${parsed.error.message}`);
}

function onChunk(state: GeminiStreamState, chunk: GeminiResponse): StreamEvent[] {
  if (chunk.error) return fail(state, classifyGeminiErrorObject(chunk.error));
  const out: StreamEvent[] = [];
  if (!state.started) {
    state.started = true;
    const messageId = chunk.responseId ?? generateId('resp_');
    const model = chunk.modelVersion ?? state.context.upstreamModel;
    out.push(
      chunk.usageMetadata
        ? { type: 'message-start', messageId, model, usage: mapGeminiUsage(chunk.usageMetadata) }
        : { type: 'message-start', messageId, model },
    );
  }
  const candidate = chunk.candidates?.[0];
  state.folder.fold(candidate?.content?.parts ?? [], out);
  if (chunk.usageMetadata) state.usage = mapGeminiUsage(chunk.usageMetadata);
  if (candidate?.finishReason) {
    state.folder.close(out);
    state.pendingFinish = mapGeminiFinishReason(candidate.finishReason, state.folder.producedToolCall);
  } else if (!candidate && chunk.promptFeedback?.blockReason) {
    state.pendingFinish = mapGeminiBlockReason(chunk.promptFeedback.blockReason);
  }
  if (state.pendingFinish && chunk.usageMetadata) finish(state, out);
  return out;
}

/**
 * Creates the decoder for one Gemini stream. `push` never throws: unreadable data or an
 * `{"error":…}` chunk yields one classified `error` event and ends the stream. The first chunk
 * yields message-start (id = responseId or minted, model = modelVersion ?? upstream model, usage
 * = that chunk's running usageMetadata when present — Gemini reports the prompt count up front).
 * `end()` emits the pending message-end (finishReason seen, usage last seen or
 * `emptyUsage('estimated')`), or — with no finishReason — closes the open block and yields an
 * `upstream-malformed` error ("stream ended before completion").
 */
export function createGeminiStreamDecoder(context: UpstreamDecodeContext): UpstreamStreamDecoder {
  const state: GeminiStreamState = {
    context,
    folder: new GeminiPartFolder(),
    started: false,
    finished: false,
    pendingFinish: undefined,
    usage: undefined,
  };
  return {
    push(sse) {
      if (state.finished) return [];
      const chunk = parseChunk(sse);
      return chunk instanceof GatewayError ? fail(state, chunk) : onChunk(state, chunk);
    },
    end() {
      if (state.finished) return [];
      if (!state.pendingFinish)
        return fail(
          state,
          new GatewayError('upstream-malformed', 'Upstream stream ended before completion (no finishReason)'),
        );
      const out: StreamEvent[] = [];
      finish(state, out);
      return out;
    },
  };
}

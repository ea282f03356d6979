/**
 * StreamEvent → Gemini `streamGenerateContent?alt=sse` (https://ai.google.dev/api/generate-content,
 * https://html.spec.whatwg.org/multipage/server-sent-events.html): `data: <json>\n\n` frames only — no `event:` lines, comments or
 * `[DONE]`; U+2028/U+2029/U+0085 escaped by `sseFrame`. Every chunk is a complete
 * GenerateContentResponse with `role: "model"`, `index: 0` and the same `responseId` /
 * `modelVersion`. Tool-argument deltas are buffered and emitted as ONE functionCall part at the
 * block's end. The last chunk carries `finishReason` and the full `usageMetadata`.
 */
import type { StreamEvent } from '../../canonical/stream-event.ts';
import type { EncodeContext, StreamEncoder } from '../inbound-codec.ts';
import { sseFrame, toSseJson } from '../sse-frame.ts';
import { buildGeminiResponse } from './build-gemini-response.ts';
import { geminiErrorBody } from './encode-gemini-error.ts';
import { encodeGeminiFunctionCall, encodeGeminiThought, type GeminiOutputPart } from './encode-gemini-part.ts';
import { encodeGeminiUsage } from './encode-gemini-usage.ts';
import { newGeminiResponseId } from './encode-gemini-response.ts';
import { mapFinishReasonToGemini } from './map-finish-reason-to-gemini.ts';

/** A tool call whose arguments are still arriving. */
interface PendingToolCall {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  readonly signature: string | undefined;
  argumentsText: string;
}

/** State of one Gemini stream. */
interface GeminiStreamState {
  readonly modelVersion: string;
  readonly responseId: string;
  /** message-end or error was encoded: everything after is ignored. */
  finished: boolean;
  /** Canonical index of the open reasoning block whose deltas are forwarded (redacted ones are not). */
  reasoningIndex: number | undefined;
  toolCall: PendingToolCall | undefined;
}

/** Keep-alive: a bare blank line, ignored by every Gemini SDK (comments break JS 1.x and Python). */
export const GEMINI_KEEP_ALIVE = '\n';

function chunk(state: GeminiStreamState, parts: GeminiOutputPart[]): string {
  return sseFrame(
    undefined,
    buildGeminiResponse(parts, { modelVersion: state.modelVersion, responseId: state.responseId }),
  );
}

function takeToolCall(state: GeminiStreamState): GeminiOutputPart[] {
  const call = state.toolCall;
  if (call === undefined) return [];
  state.toolCall = undefined;
  return [encodeGeminiFunctionCall(call.id, call.name, call.argumentsText, call.signature)];
}

function blockEnd(state: GeminiStreamState, index: number): string {
  if (state.reasoningIndex === index) state.reasoningIndex = undefined;
  if (state.toolCall?.index !== index) return '';
  return chunk(state, takeToolCall(state));
}

function messageEnd(state: GeminiStreamState, event: Extract<StreamEvent, { type: 'message-end' }>): string {
  state.finished = true;
  const body = buildGeminiResponse(takeToolCall(state), {
    modelVersion: state.modelVersion,
    responseId: state.responseId,
    finishReason: mapFinishReasonToGemini(event.finishReason),
    usageMetadata: encodeGeminiUsage(event.usage),
  });
  return sseFrame(undefined, body);
}

/** Late error: a `data:` frame, then the same object as bare JSON (how Google reports late errors). */
function streamError(state: GeminiStreamState, event: Extract<StreamEvent, { type: 'error' }>): string {
  state.finished = true;
  const body = geminiErrorBody(event.error);
  return sseFrame(undefined, body) + toSseJson(body) + '\n';
}

function encodeContentEvent(state: GeminiStreamState, event: StreamEvent): string {
  switch (event.type) {
    case 'text-delta':
      return event.text === '' ? '' : chunk(state, [{ text: event.text }]);
    case 'reasoning-start':
      state.reasoningIndex = event.redacted === undefined ? event.index : undefined;
      return '';
    case 'reasoning-delta':
      return state.reasoningIndex !== event.index || event.text === ''
        ? ''
        : chunk(state, [encodeGeminiThought(event.text, undefined)]);
    case 'reasoning-signature':
      return state.reasoningIndex !== event.index ? '' : chunk(state, [encodeGeminiThought('', event.signature)]);
    case 'tool-input-start': {
      const pending = takeToolCall(state);
      state.toolCall = {
        index: event.index,
        id: event.toolCallId,
        name: event.toolName,
        signature: event.signature,
        argumentsText: '',
      };
      return pending.length > 0 ? chunk(state, pending) : '';
    }
    case 'tool-input-delta':
      if (state.toolCall?.index === event.index) state.toolCall.argumentsText += event.argumentsFragment;
      return '';
    case 'block-end':
      return blockEnd(state, event.index);
    default:
      return '';
  }
}

function encodeEvent(state: GeminiStreamState, event: StreamEvent): string {
  if (state.finished) return '';
  switch (event.type) {
    case 'message-end':
      return messageEnd(state, event);
    case 'error':
      return streamError(state, event);
    case 'keep-alive':
      return GEMINI_KEEP_ALIVE;
    default:
      return encodeContentEvent(state, event);
  }
}

/**
 * Creates the encoder for one response stream; `context.model` is `modelVersion`, a fresh
 * `responseId` is minted. message-start and text-start produce no frame (Gemini has no such events).
 */
export function createGeminiStreamEncoder(context: EncodeContext): StreamEncoder {
  const state: GeminiStreamState = {
    modelVersion: context.model,
    responseId: newGeminiResponseId(),
    finished: false,
    reasoningIndex: undefined,
    toolCall: undefined,
  };
  return {
    encode: (event) => encodeEvent(state, event),
    keepAlive: () => GEMINI_KEEP_ALIVE,
  };
}

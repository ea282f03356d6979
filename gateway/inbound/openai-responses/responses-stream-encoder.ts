/**
 * StreamEvent → Responses SSE (per https://platform.openai.com/docs/api-reference/responses): `event:` == `type` on every event,
 * `sequence_number` from 0, `response.created` → `response.in_progress` → items (strictly
 * appended `output_index`) → exactly one of `response.completed | incomplete | failed` →
 * `data: [DONE]` (https://www.openresponses.org/specification). Item event sequences follow
 * https://platform.openai.com/docs/api-reference/responses-streaming; the terminal response lists the same item ids
 * as the streamed items (the SDK's accumulator checks them:
 * https://github.com/openai/openai-node/blob/master/src/lib/responses/ResponseStream.ts). A mid-stream `error`
 * becomes a hybrid flat+nested `error` event (flat fields per the streaming reference, nested `error` as the SDKs
 * read it), then `response.failed` (if `response.created` was sent),
 * then `[DONE]`.
 *
 * Tool calls get the client's names back (responses-tool-names.ts); a call to a custom tool is a
 * `custom_tool_call` item whose input is sent whole at its end as
 * `response.custom_tool_call_input.delta` + `.done` (schemas ResponseCustomToolCallInputDeltaEvent
 * / ResponseCustomToolCallInputDoneEvent of the OpenAI OpenAPI document).
 *
 * The `output_item.done` of an ended block is deferred until the next block starts or the stream
 * ends, so that a message cut by `max_output_tokens` can be marked `incomplete`.
 */
import type { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import type { EncodeContext, StreamEncoder } from '../inbound-codec.ts';
import { toOpenAIErrorObject } from '../openai-common/openai-error-object.ts';
import { SSE_COMMENT_PING, SSE_DONE_FRAME, sseFrame } from '../sse-frame.ts';
import {
  buildResponseObject,
  echoRequestFields,
  nowUnixSeconds,
  type EchoedRequestFields,
  type ResponseSnapshot,
} from './build-response-object.ts';
import { mapResponsesStatus } from './map-responses-status.ts';
import { mapResponsesUsage } from './map-responses-usage.ts';
import {
  customToolInput,
  renderAddedItem,
  renderFinalItem,
  toolCallRecord,
  type ResponsesItemRecord,
  type ResponsesItemStatus,
} from './render-responses-output-item.ts';
import { responsesToolsByCanonicalName, type ResponsesToolEntry } from './responses-tool-names.ts';

/** One output item of the stream; `phase`: open (streaming) → ended (part-level done sent) → done (`output_item.done` sent). */
interface StreamItem {
  readonly record: ResponsesItemRecord;
  readonly outputIndex: number;
  readonly blockIndex: number;
  summaryOpen: boolean;
  phase: 'open' | 'ended' | 'done';
  finalStatus: ResponsesItemStatus;
}

interface ResponsesStreamState {
  readonly context: EncodeContext;
  readonly echo: EchoedRequestFields;
  /** The client's offered tools by canonical name (renames tool calls, marks custom ones). */
  readonly tools: ReadonlyMap<string, ResponsesToolEntry>;
  readonly responseId: string;
  readonly items: StreamItem[];
  sequence: number;
  started: boolean;
  finished: boolean;
  /** The `response` of the terminal `response.completed` / `response.incomplete` event, once sent. */
  finalResponse: Record<string, unknown> | undefined;
}

function emit(state: ResponsesStreamState, type: string, payload: Record<string, unknown>): string {
  return sseFrame(type, { type, sequence_number: state.sequence++, ...payload });
}

function snapshot(state: ResponsesStreamState, overrides: Partial<ResponseSnapshot> = {}): Record<string, unknown> {
  const base: ResponseSnapshot = {
    id: state.responseId,
    status: 'in_progress',
    output: [],
    usage: null,
    error: null,
    incompleteDetails: null,
    completedAt: null,
  };
  return buildResponseObject({ ...base, ...overrides }, state.echo, state.context);
}

function start(state: ResponsesStreamState): string {
  if (state.started) return '';
  state.started = true;
  const response = snapshot(state);
  return emit(state, 'response.created', { response }) + emit(state, 'response.in_progress', { response });
}

function openBlock(state: ResponsesStreamState, blockIndex: number): StreamItem | undefined {
  const last = state.items.at(-1);
  return last?.phase === 'open' && last.blockIndex === blockIndex ? last : undefined;
}

/** Sends the deferred `output_item.done` of an ended item. */
function flushEnded(state: ResponsesStreamState): string {
  const last = state.items.at(-1);
  if (last?.phase !== 'ended') return '';
  last.phase = 'done';
  return emit(state, 'response.output_item.done', {
    output_index: last.outputIndex,
    item: renderFinalItem(last.record, last.finalStatus),
  });
}

function openItem(state: ResponsesStreamState, record: ResponsesItemRecord, blockIndex: number): string {
  let frames = start(state) + closeOpen(state) + flushEnded(state);
  const item: StreamItem = {
    record,
    outputIndex: state.items.length,
    blockIndex,
    summaryOpen: false,
    phase: 'open',
    finalStatus: 'completed',
  };
  state.items.push(item);
  frames += emit(state, 'response.output_item.added', {
    output_index: item.outputIndex,
    item: renderAddedItem(record),
  });
  if (record.kind === 'message') {
    const part = { type: 'output_text', text: '', annotations: [] };
    frames += emit(state, 'response.content_part.added', {
      item_id: record.id,
      output_index: item.outputIndex,
      content_index: 0,
      part,
    });
  }
  return frames;
}

function onTextDelta(state: ResponsesStreamState, index: number, delta: string): string {
  const item = openBlock(state, index);
  if (item?.record.kind !== 'message' || delta === '') return '';
  item.record.text += delta;
  return emit(state, 'response.output_text.delta', {
    item_id: item.record.id,
    output_index: item.outputIndex,
    content_index: 0,
    delta,
    logprobs: [],
  });
}

function onReasoningDelta(state: ResponsesStreamState, index: number, delta: string): string {
  const item = openBlock(state, index);
  if (item?.record.kind !== 'reasoning' || delta === '') return '';
  const ids = { item_id: item.record.id, output_index: item.outputIndex, summary_index: 0 };
  let frames = '';
  if (!item.summaryOpen) {
    item.summaryOpen = true;
    frames += emit(state, 'response.reasoning_summary_part.added', {
      ...ids,
      part: { type: 'summary_text', text: '' },
    });
  }
  item.record.text += delta;
  return frames + emit(state, 'response.reasoning_summary_text.delta', { ...ids, delta });
}

function onSignature(state: ResponsesStreamState, index: number, signature: string): string {
  const item = openBlock(state, index);
  if (item?.record.kind === 'reasoning') item.record.signature = (item.record.signature ?? '') + signature;
  return '';
}

/** Function arguments stream as they come; a custom tool's JSON arguments are buffered (its raw `input` is sent at the end). */
function onToolDelta(state: ResponsesStreamState, index: number, delta: string): string {
  const item = openBlock(state, index);
  if ((item?.record.kind !== 'function_call' && item?.record.kind !== 'custom_tool_call') || delta === '') return '';
  item.record.arguments += delta;
  if (item.record.kind === 'custom_tool_call') return '';
  return emit(state, 'response.function_call_arguments.delta', {
    item_id: item.record.id,
    output_index: item.outputIndex,
    delta,
  });
}

/** Part-level closing events of an item (everything but `output_item.done`). */
function endFrames(state: ResponsesStreamState, item: StreamItem): string {
  const { record } = item;
  const at = { item_id: record.id, output_index: item.outputIndex };
  switch (record.kind) {
    case 'message':
      return (
        emit(state, 'response.output_text.done', { ...at, content_index: 0, text: record.text, logprobs: [] }) +
        emit(state, 'response.content_part.done', {
          ...at,
          content_index: 0,
          part: { type: 'output_text', text: record.text, annotations: [] },
        })
      );
    case 'reasoning': {
      if (!item.summaryOpen) return '';
      const summary = { ...at, summary_index: 0 };
      return (
        emit(state, 'response.reasoning_summary_text.done', { ...summary, text: record.text }) +
        emit(state, 'response.reasoning_summary_part.done', {
          ...summary,
          part: { type: 'summary_text', text: record.text },
        })
      );
    }
    case 'function_call':
      return emit(state, 'response.function_call_arguments.done', {
        ...at,
        name: record.name,
        arguments: record.arguments,
      });
    case 'custom_tool_call': {
      const input = customToolInput(record.arguments);
      const delta = input === '' ? '' : emit(state, 'response.custom_tool_call_input.delta', { ...at, delta: input });
      return delta + emit(state, 'response.custom_tool_call_input.done', { ...at, input });
    }
  }
}

/** Ends the open item, if any (block-end, or defensively before another block or the end). */
function closeOpen(state: ResponsesStreamState, blockIndex?: number): string {
  const item = state.items.at(-1);
  if (item?.phase !== 'open' || (blockIndex !== undefined && item.blockIndex !== blockIndex)) return '';
  item.phase = 'ended';
  return endFrames(state, item);
}

function finalOutput(state: ResponsesStreamState): unknown[] {
  return state.items.map((item) =>
    renderFinalItem(item.record, item.phase === 'open' ? 'incomplete' : item.finalStatus),
  );
}

function onMessageEnd(state: ResponsesStreamState, finish: FinishReason, usage: Usage): string {
  let frames = start(state) + closeOpen(state);
  const terminal = mapResponsesStatus(finish);
  const last = state.items.at(-1);
  if (terminal.status === 'incomplete' && last?.record.kind === 'message') last.finalStatus = 'incomplete';
  frames += flushEnded(state);
  state.finished = true;
  const response = snapshot(state, {
    status: terminal.status,
    output: finalOutput(state),
    usage: mapResponsesUsage(usage),
    error: terminal.error,
    incompleteDetails: terminal.incompleteDetails,
    completedAt: terminal.status === 'completed' ? nowUnixSeconds() : null,
  });
  state.finalResponse = response;
  return frames + emit(state, `response.${terminal.status}`, { response }) + SSE_DONE_FRAME;
}

/** The hybrid error event (see the module doc) + `response.failed` when a response was announced + `[DONE]`. */
function onError(state: ResponsesStreamState, error: GatewayError): string {
  state.finished = true;
  const object = toOpenAIErrorObject(error);
  const code = object.code ?? object.type;
  let frames = emit(state, 'error', {
    code,
    message: object.message,
    param: object.param,
    error: { type: object.type, code, message: object.message, param: object.param },
  });
  if (state.started) {
    const response = snapshot(state, {
      status: 'failed',
      output: finalOutput(state),
      error: { code, message: object.message },
    });
    frames += emit(state, 'response.failed', { response });
  }
  return frames + SSE_DONE_FRAME;
}

function encodeEvent(state: ResponsesStreamState, event: StreamEvent): string {
  switch (event.type) {
    case 'message-start':
      return start(state);
    case 'text-start':
      return openItem(state, { kind: 'message', id: generateId('msg_'), text: '' }, event.index);
    case 'reasoning-start': {
      const id = generateId('rs_');
      return openItem(
        state,
        event.redacted === undefined
          ? { kind: 'reasoning', id, text: '' }
          : { kind: 'reasoning', id, text: '', redacted: event.redacted },
        event.index,
      );
    }
    case 'tool-input-start':
      return openItem(
        state,
        toolCallRecord(event.toolCallId, event.toolName, '', state.tools.get(event.toolName)),
        event.index,
      );
    case 'text-delta':
      return onTextDelta(state, event.index, event.text);
    case 'reasoning-delta':
      return onReasoningDelta(state, event.index, event.text);
    case 'reasoning-signature':
      return onSignature(state, event.index, event.signature);
    case 'tool-input-delta':
      return onToolDelta(state, event.index, event.argumentsFragment);
    case 'block-end':
      return closeOpen(state, event.index);
    case 'message-end':
      return onMessageEnd(state, event.finishReason, event.usage);
    case 'keep-alive':
      return SSE_COMMENT_PING;
    case 'error':
      return onError(state, event.error);
  }
}

/**
 * Creates the encoder for one Responses stream. `encode` returns complete SSE frames ('' when an
 * event yields none, e.g. a signature); after the terminal frames every further event yields ''.
 * `keepAlive` returns `: ping\n\n`; `finalBody` the terminal Response object (completed or
 * incomplete; undefined before, and after a failure).
 */
export function createResponsesStreamEncoder(context: EncodeContext): StreamEncoder {
  const state: ResponsesStreamState = {
    context,
    echo: echoRequestFields(context.rawRequest),
    tools: responsesToolsByCanonicalName(context.rawRequest),
    responseId: generateId('resp_'),
    items: [],
    sequence: 0,
    started: false,
    finished: false,
    finalResponse: undefined,
  };
  return {
    encode: (event) => (state.finished ? '' : encodeEvent(state, event)),
    keepAlive: () => SSE_COMMENT_PING,
    finalBody: () => state.finalResponse,
  };
}

/**
 * Renders a scripted model answer (final text, or one tool call) in any of the four wire
 * formats, as one JSON body or as the protocol's SSE event sequence, and in Amazon Bedrock's
 * Converse, as one JSON body or as ConverseStream's AWS event-stream messages. Event names and
 * shapes follow the public streaming references:
 * - Anthropic: https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * - OpenAI Chat: https://platform.openai.com/docs/api-reference/chat-streaming
 * - OpenAI Responses: https://platform.openai.com/docs/api-reference/responses-streaming
 * - Gemini: https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 * - Bedrock Converse: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 *   (Response Syntax), ConverseStream: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 */
import { randomUUID } from 'node:crypto';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { UpstreamProtocol } from '../../../../gateway/canonical/formats.ts';

/** What the scripted model says: final text, or a call of one offered tool. */
export type ScriptedReply =
  | { readonly kind: 'text'; readonly text: string }
  /** `input` is the JSON arguments text for `function` tools, the free-form input for `custom` tools. */
  | {
      readonly kind: 'tool-call';
      readonly toolName: string;
      readonly toolKind: 'function' | 'custom';
      readonly input: string;
    };

/**
 * Signed reasoning sent before the answer: an Anthropic thinking block, a Responses reasoning
 * item (`encrypted_content` = signature), a Gemini `thoughtSignature` on the first part, a
 * Converse `reasoningContent` block (`reasoningText {text, signature}`).
 */
export interface ScriptedReasoning {
  readonly text: string;
  readonly signature: string;
}

/**
 * An encoded answer: a content type and the body — text (whole JSON, or SSE frames), or the
 * bytes of AWS event-stream messages (ConverseStream).
 */
export interface EncodedReply {
  readonly contentType: string;
  readonly body: string | Uint8Array;
}

const USAGE = { input: 21, output: 7 };

function sse(events: ReadonlyArray<{ event?: string; data: unknown }>): string {
  return events
    .map(
      ({ event, data }) =>
        `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
    )
    .join('');
}

/** Splits `text` in two pieces so every stream carries more than one delta. */
function halves(text: string): [string, string] {
  const cut = Math.ceil(text.length / 2);
  return [text.slice(0, cut), text.slice(cut)];
}

function anthropicReply(
  reply: ScriptedReply,
  model: string,
  stream: boolean,
  reasoning?: ScriptedReasoning,
): EncodedReply {
  const id = `msg_${randomUUID().replace(/-/g, '')}`;
  const thinking = reasoning ? [{ type: 'thinking', thinking: reasoning.text, signature: reasoning.signature }] : [];
  const at = thinking.length;
  const usage = {
    input_tokens: USAGE.input,
    output_tokens: USAGE.output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const block =
    reply.kind === 'text'
      ? { type: 'text', text: reply.text }
      : {
          type: 'tool_use',
          id: `toolu_${randomUUID().replace(/-/g, '')}`,
          name: reply.toolName,
          input: JSON.parse(reply.input) as unknown,
        };
  const stopReason = reply.kind === 'text' ? 'end_turn' : 'tool_use';
  if (!stream)
    return {
      contentType: 'application/json',
      body: JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [...thinking, block],
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      }),
    };
  const thinkingEvents = reasoning
    ? [
        {
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'thinking', thinking: '', signature: '' },
          },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: reasoning.text } },
        },
        {
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'signature_delta', signature: reasoning.signature },
          },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      ]
    : [];
  const [first, second] = halves(reply.kind === 'text' ? reply.text : reply.input);
  const startBlock = reply.kind === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
  const deltaOf = (piece: string) =>
    reply.kind === 'text' ? { type: 'text_delta', text: piece } : { type: 'input_json_delta', partial_json: piece };
  return {
    contentType: 'text/event-stream',
    body: sse([
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 1 },
          },
        },
      },
      { event: 'ping', data: { type: 'ping' } },
      ...thinkingEvents,
      { event: 'content_block_start', data: { type: 'content_block_start', index: at, content_block: startBlock } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: at, delta: deltaOf(first) } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: at, delta: deltaOf(second) } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: at } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: USAGE.output },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]),
  };
}

function chatReply(reply: ScriptedReply, model: string, stream: boolean, includeUsage: boolean): EncodedReply {
  const id = `chatcmpl-${randomUUID().replace(/-/g, '')}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = {
    prompt_tokens: USAGE.input,
    completion_tokens: USAGE.output,
    total_tokens: USAGE.input + USAGE.output,
  };
  const callId = `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const finish = reply.kind === 'text' ? 'stop' : 'tool_calls';
  if (!stream) {
    const message =
      reply.kind === 'text'
        ? { role: 'assistant', content: reply.text, refusal: null }
        : {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: callId, type: 'function', function: { name: reply.toolName, arguments: reply.input } }],
          };
    return {
      contentType: 'application/json',
      body: JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage,
      }),
    };
  }
  const chunk = (delta: unknown, finishReason: string | null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const [first, second] = halves(reply.kind === 'text' ? reply.text : reply.input);
  const deltas =
    reply.kind === 'text'
      ? [
          chunk({ role: 'assistant', content: '' }, null),
          chunk({ content: first }, null),
          chunk({ content: second }, null),
        ]
      : [
          chunk(
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { index: 0, id: callId, type: 'function', function: { name: reply.toolName, arguments: '' } },
              ],
            },
            null,
          ),
          chunk({ tool_calls: [{ index: 0, function: { arguments: first } }] }, null),
          chunk({ tool_calls: [{ index: 0, function: { arguments: second } }] }, null),
        ];
  const frames = [
    ...deltas,
    chunk({}, finish),
    ...(includeUsage ? [{ id, object: 'chat.completion.chunk', created, model, choices: [], usage }] : []),
  ];
  return { contentType: 'text/event-stream', body: sse([...frames.map((data) => ({ data })), { data: '[DONE]' }]) };
}

function responsesReply(
  reply: ScriptedReply,
  model: string,
  stream: boolean,
  reasoning?: ScriptedReasoning,
): EncodedReply {
  const id = `resp_${randomUUID().replace(/-/g, '')}`;
  const created = Math.floor(Date.now() / 1000);
  const itemId = `${reply.kind === 'text' ? 'msg' : reply.toolKind === 'custom' ? 'ctc' : 'fc'}_${randomUUID().replace(/-/g, '')}`;
  const callId = `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const item =
    reply.kind === 'text'
      ? {
          id: itemId,
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }],
        }
      : reply.toolKind === 'custom'
        ? {
            id: itemId,
            type: 'custom_tool_call',
            status: 'completed',
            call_id: callId,
            name: reply.toolName,
            input: reply.input,
          }
        : {
            id: itemId,
            type: 'function_call',
            status: 'completed',
            call_id: callId,
            name: reply.toolName,
            arguments: reply.input,
          };
  const usage = {
    input_tokens: USAGE.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: USAGE.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: USAGE.input + USAGE.output,
  };
  const reasoningItem = reasoning
    ? {
        id: `rs_${randomUUID().replace(/-/g, '')}`,
        type: 'reasoning',
        summary: [],
        encrypted_content: reasoning.signature,
      }
    : undefined;
  const outputOf = (last: unknown) => (reasoningItem ? [reasoningItem, last] : [last]);
  const at = reasoningItem ? 1 : 0;
  const response = (status: string, output: unknown[]) => ({
    id,
    object: 'response',
    created_at: created,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: status === 'completed' ? usage : null,
  });
  if (!stream) return { contentType: 'application/json', body: JSON.stringify(response('completed', outputOf(item))) };
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) => ({
    event: type,
    data: { type, sequence_number: sequence++, ...fields },
  });
  const [first, second] = halves(reply.kind === 'text' ? reply.text : reply.input);
  const inProgressItem =
    reply.kind === 'text'
      ? { ...item, status: 'in_progress', content: [] }
      : { ...item, status: 'in_progress', ...(reply.toolKind === 'custom' ? { input: '' } : { arguments: '' }) };
  const middle =
    reply.kind === 'text'
      ? [
          event('response.content_part.added', {
            item_id: itemId,
            output_index: at,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          }),
          event('response.output_text.delta', {
            item_id: itemId,
            output_index: at,
            content_index: 0,
            delta: first,
            logprobs: [],
          }),
          event('response.output_text.delta', {
            item_id: itemId,
            output_index: at,
            content_index: 0,
            delta: second,
            logprobs: [],
          }),
          event('response.output_text.done', {
            item_id: itemId,
            output_index: at,
            content_index: 0,
            text: reply.text,
            logprobs: [],
          }),
          event('response.content_part.done', {
            item_id: itemId,
            output_index: at,
            content_index: 0,
            part: { type: 'output_text', text: reply.text, annotations: [] },
          }),
        ]
      : reply.toolKind === 'custom'
        ? [
            event('response.custom_tool_call_input.delta', { item_id: itemId, output_index: at, delta: first }),
            event('response.custom_tool_call_input.delta', { item_id: itemId, output_index: at, delta: second }),
            event('response.custom_tool_call_input.done', { item_id: itemId, output_index: at, input: reply.input }),
          ]
        : [
            event('response.function_call_arguments.delta', { item_id: itemId, output_index: at, delta: first }),
            event('response.function_call_arguments.delta', { item_id: itemId, output_index: at, delta: second }),
            event('response.function_call_arguments.done', {
              item_id: itemId,
              output_index: at,
              arguments: reply.input,
            }),
          ];
  return {
    contentType: 'text/event-stream',
    body: sse([
      event('response.created', { response: response('in_progress', []) }),
      event('response.in_progress', { response: response('in_progress', []) }),
      ...(reasoningItem
        ? [
            event('response.output_item.added', {
              output_index: 0,
              item: { ...reasoningItem, encrypted_content: null },
            }),
            event('response.output_item.done', { output_index: 0, item: reasoningItem }),
          ]
        : []),
      event('response.output_item.added', { output_index: at, item: inProgressItem }),
      ...middle,
      event('response.output_item.done', { output_index: at, item }),
      event('response.completed', { response: response('completed', outputOf(item)) }),
    ]),
  };
}

function geminiReply(
  reply: ScriptedReply,
  model: string,
  stream: boolean,
  reasoning?: ScriptedReasoning,
): EncodedReply {
  const signed = reasoning ? { thoughtSignature: reasoning.signature } : {};
  const usageMetadata = {
    promptTokenCount: USAGE.input,
    candidatesTokenCount: USAGE.output,
    totalTokenCount: USAGE.input + USAGE.output,
  };
  const responseId = randomUUID().replace(/-/g, '').slice(0, 22);
  const candidate = (parts: unknown[], finished: boolean) => ({
    content: { role: 'model', parts },
    ...(finished ? { finishReason: 'STOP' } : {}),
    index: 0,
  });
  const chunk = (parts: unknown[], finished: boolean) => ({
    candidates: [candidate(parts, finished)],
    ...(finished ? { usageMetadata } : {}),
    modelVersion: model,
    responseId,
  });
  if (reply.kind === 'tool-call') {
    const parts = [{ functionCall: { name: reply.toolName, args: JSON.parse(reply.input) as unknown }, ...signed }];
    return stream
      ? { contentType: 'text/event-stream', body: sse([{ data: chunk(parts, true) }]) }
      : { contentType: 'application/json', body: JSON.stringify(chunk(parts, true)) };
  }
  if (!stream)
    return { contentType: 'application/json', body: JSON.stringify(chunk([{ text: reply.text, ...signed }], true)) };
  const [first, second] = halves(reply.text);
  // Streamed, Gemini 3 sends the signature with the last chunk of a text answer.
  return {
    contentType: 'text/event-stream',
    body: sse([{ data: chunk([{ text: first }], false) }, { data: chunk([{ text: second, ...signed }], true) }]),
  };
}

/** The AWS SDK's event-stream codec (prelude, headers, payload, CRCs), as Bedrock frames ConverseStream. */
const eventStreamCodec = new EventStreamCodec(toUtf8, fromUtf8);

/** Padding of varying length, as Bedrock adds a `p` field to each stream event to hide the payload size. */
function padding(n: number): string {
  return 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.slice(0, 3 + ((n * 11) % 40));
}

/** One ConverseStream event as an `:message-type: event` message with its `:event-type`. */
function converseEventMessage(eventType: string, payload: Record<string, unknown>, n: number): Uint8Array {
  return eventStreamCodec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify({ ...payload, p: padding(n) })),
  });
}

/**
 * A Converse answer: `{output: {message: {role, content}}, stopReason, usage, metrics}`, the
 * content a `reasoningContent` block (when reasoning is given) then a `text` or `toolUse` block.
 * Streamed: messageStart; the reasoning as `reasoningContent` text and signature deltas;
 * contentBlockStart (tool use only, with its id and name); two deltas of `text` or of
 * `toolUse.input` JSON text; contentBlockStop; messageStop with the stop reason; metadata with
 * usage and metrics.
 */
function converseReply(reply: ScriptedReply, stream: boolean, reasoning?: ScriptedReasoning): EncodedReply {
  const stopReason = reply.kind === 'text' ? 'end_turn' : 'tool_use';
  const usage = { inputTokens: USAGE.input, outputTokens: USAGE.output, totalTokens: USAGE.input + USAGE.output };
  const toolUseId = `tooluse_${randomUUID().replace(/-/g, '').slice(0, 22)}`;
  const reasoningBlocks = reasoning
    ? [{ reasoningContent: { reasoningText: { text: reasoning.text, signature: reasoning.signature } } }]
    : [];
  if (!stream) {
    const block =
      reply.kind === 'text'
        ? { text: reply.text }
        : { toolUse: { toolUseId, name: reply.toolName, input: JSON.parse(reply.input) as unknown } };
    return {
      contentType: 'application/json',
      body: JSON.stringify({
        output: { message: { role: 'assistant', content: [...reasoningBlocks, block] } },
        stopReason,
        usage,
        metrics: { latencyMs: 412 },
      }),
    };
  }
  const at = reasoning ? 1 : 0;
  const [first, second] = halves(reply.kind === 'text' ? reply.text : reply.input);
  const deltaOf = (piece: string) => (reply.kind === 'text' ? { text: piece } : { toolUse: { input: piece } });
  const events: Array<[string, Record<string, unknown>]> = [
    ['messageStart', { role: 'assistant' }],
    ...(reasoning
      ? ([
          ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: reasoning.text } } }],
          [
            'contentBlockDelta',
            { contentBlockIndex: 0, delta: { reasoningContent: { signature: reasoning.signature } } },
          ],
          ['contentBlockStop', { contentBlockIndex: 0 }],
        ] as Array<[string, Record<string, unknown>]>)
      : []),
    ...(reply.kind === 'tool-call'
      ? ([
          ['contentBlockStart', { contentBlockIndex: at, start: { toolUse: { toolUseId, name: reply.toolName } } }],
        ] as Array<[string, Record<string, unknown>]>)
      : []),
    ['contentBlockDelta', { contentBlockIndex: at, delta: deltaOf(first) }],
    ['contentBlockDelta', { contentBlockIndex: at, delta: deltaOf(second) }],
    ['contentBlockStop', { contentBlockIndex: at }],
    ['messageStop', { stopReason }],
    ['metadata', { usage, metrics: { latencyMs: 412 } }],
  ];
  return {
    contentType: 'application/vnd.amazon.eventstream',
    body: Buffer.concat(events.map(([type, payload], n) => converseEventMessage(type, payload, n))),
  };
}

/**
 * Encodes `reply` as `format` would answer it: a single JSON body when `stream` is false, SSE
 * frames (ConverseStream: AWS event-stream bytes) otherwise. `model` is echoed in the answer (not
 * by Converse, which names no model); `includeUsage` (Chat only, from
 * `stream_options.include_usage`) adds the final usage chunk; `reasoning` (not for Chat) goes
 * before the answer as that protocol carries signed reasoning.
 */
export function encodeWireReply(
  format: UpstreamProtocol,
  reply: ScriptedReply,
  options: { model: string; stream: boolean; includeUsage?: boolean; reasoning?: ScriptedReasoning },
): EncodedReply {
  switch (format) {
    case 'anthropic-messages':
      return anthropicReply(reply, options.model, options.stream, options.reasoning);
    case 'openai-chat':
      return chatReply(reply, options.model, options.stream, options.includeUsage === true);
    case 'openai-responses':
      return responsesReply(reply, options.model, options.stream, options.reasoning);
    case 'gemini':
      return geminiReply(reply, options.model, options.stream, options.reasoning);
    case 'bedrock-converse':
      return converseReply(reply, options.stream, options.reasoning);
  }
}

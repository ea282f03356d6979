/**
 * A loopback upstream that misbehaves on purpose, speaking any of the four upstream protocols
 * (chosen by the request path: `/chat/completions`, `/responses`, `/v1/messages`,
 * `:streamGenerateContent`). The behaviour is the first path segment of the channel's base URL:
 *
 * - `cut`: two complete events with text, then half of the next event, then the socket is destroyed;
 * - `cut-clean`: the same, but the answer then ends cleanly (a well-formed HTTP end inside an event);
 * - `drip`: the opening events, then one byte of the next event every 200 ms, forever;
 * - `bad-utf8`: a complete, valid stream whose text delta carries bytes that are not UTF-8
 *   (`C3 28`, `FF`);
 * - `slow`: a complete, valid stream with one event every 100 ms for about 20 s;
 * - `stall`: response headers, then nothing at all (streamed or not).
 *
 * Every request records whether the connection was closed by the peer (the gateway) before the
 * server ended the answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the upstream does; the first path segment of a channel's base URL. */
export type HostileBehaviour = 'cut' | 'cut-clean' | 'drip' | 'bad-utf8' | 'slow' | 'stall';
export type HostileProtocol = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';

/** One request the upstream received. */
export interface HostileRequestRecord {
  readonly behaviour: HostileBehaviour;
  readonly protocol: HostileProtocol;
  /** True once the gateway closed the connection while the answer was still being written. */
  closedByPeer: boolean;
  /** True once the upstream finished or destroyed the answer itself. */
  endedByServer: boolean;
}

/** A running hostile upstream. */
export interface HostileUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly requests: HostileRequestRecord[];
  /** Base URL of a channel of `protocol` that behaves as `behaviour` (in each protocol's SDK convention). */
  baseUrl(behaviour: HostileBehaviour, protocol: HostileProtocol): string;
  close(): Promise<void>;
}

/** Marker replaced by invalid UTF-8 bytes on the wire. */
const BAD_BYTES_MARKER = '@@BAD@@';
const BAD_BYTES = Buffer.from([0xc3, 0x28, 0xff]);

function protocolOf(url: string): HostileProtocol {
  if (url.includes('/chat/completions')) return 'openai-chat';
  if (url.includes('/responses')) return 'openai-responses';
  if (url.includes('/v1/messages')) return 'anthropic-messages';
  return 'gemini';
}

function dataFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function namedFrame(payload: { readonly type: string } & Record<string, unknown>): string {
  return `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** The opening frames of a stream (up to and including its first content frame). */
function openingFrames(protocol: HostileProtocol): string[] {
  switch (protocol) {
    case 'openai-chat':
      return [dataFrame(chatChunk({ role: 'assistant', content: '' })), dataFrame(chatChunk({ content: 'Hello' }))];
    case 'anthropic-messages':
      return [
        namedFrame({
          type: 'message_start',
          message: {
            id: 'msg_h',
            type: 'message',
            role: 'assistant',
            model: 'm',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 3, output_tokens: 1 },
          },
        }),
        namedFrame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        namedFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } }),
      ];
    case 'gemini':
      return [dataFrame(geminiChunk('Hello'))];
    case 'openai-responses':
      return [
        namedFrame({ type: 'response.created', sequence_number: 0, response: responseObject('in_progress', []) }),
        namedFrame({
          type: 'response.output_item.added',
          sequence_number: 1,
          output_index: 0,
          item: { id: 'msg_h', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
        }),
        namedFrame({
          type: 'response.content_part.added',
          sequence_number: 2,
          item_id: 'msg_h',
          output_index: 0,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
        namedFrame({
          type: 'response.output_text.delta',
          sequence_number: 3,
          item_id: 'msg_h',
          output_index: 0,
          content_index: 0,
          delta: 'Hello',
        }),
      ];
  }
}

/** One more content frame carrying `text`; `n` keeps Responses sequence numbers increasing. */
function contentFrame(protocol: HostileProtocol, text: string, n: number): string {
  switch (protocol) {
    case 'openai-chat':
      return dataFrame(chatChunk({ content: text }));
    case 'anthropic-messages':
      return namedFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    case 'gemini':
      return dataFrame(geminiChunk(text));
    case 'openai-responses':
      return namedFrame({
        type: 'response.output_text.delta',
        sequence_number: 4 + n,
        item_id: 'msg_h',
        output_index: 0,
        content_index: 0,
        delta: text,
      });
  }
}

/** The closing frames after `n` content frames whose texts joined are `text`. */
function closingFrames(protocol: HostileProtocol, text: string, n: number): string[] {
  switch (protocol) {
    case 'openai-chat':
      return [
        dataFrame(chatChunk({}, 'stop')),
        dataFrame({
          id: 'c1',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        }),
        'data: [DONE]\n\n',
      ];
    case 'anthropic-messages':
      return [
        namedFrame({ type: 'content_block_stop', index: 0 }),
        namedFrame({
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 2 },
        }),
        namedFrame({ type: 'message_stop' }),
      ];
    case 'gemini':
      return [
        dataFrame({
          candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
          modelVersion: 'm',
          responseId: 'r1',
        }),
      ];
    case 'openai-responses': {
      const seq = 4 + n;
      const part = { type: 'output_text', text, annotations: [] };
      const item = { id: 'msg_h', type: 'message', status: 'completed', role: 'assistant', content: [part] };
      return [
        namedFrame({
          type: 'response.output_text.done',
          sequence_number: seq,
          item_id: 'msg_h',
          output_index: 0,
          content_index: 0,
          text,
        }),
        namedFrame({
          type: 'response.content_part.done',
          sequence_number: seq + 1,
          item_id: 'msg_h',
          output_index: 0,
          content_index: 0,
          part,
        }),
        namedFrame({ type: 'response.output_item.done', sequence_number: seq + 2, output_index: 0, item }),
        namedFrame({
          type: 'response.completed',
          sequence_number: seq + 3,
          response: responseObject('completed', [item]),
        }),
      ];
    }
  }
}

function chatChunk(delta: Record<string, unknown>, finish: string | null = null): unknown {
  return {
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function geminiChunk(text: string): unknown {
  return {
    candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }],
    usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 },
    modelVersion: 'm',
    responseId: 'r1',
  };
}

function responseObject(status: string, output: unknown[]): unknown {
  return {
    id: 'resp_h',
    object: 'response',
    created_at: 1,
    status,
    model: 'm',
    output,
    usage:
      status === 'completed'
        ? {
            input_tokens: 3,
            output_tokens: 2,
            total_tokens: 5,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          }
        : null,
  };
}

function wire(frame: string): Buffer {
  const at = frame.indexOf(BAD_BYTES_MARKER);
  if (at < 0) return Buffer.from(frame);
  return Buffer.concat([
    Buffer.from(frame.slice(0, at)),
    BAD_BYTES,
    Buffer.from(frame.slice(at + BAD_BYTES_MARKER.length)),
  ]);
}

function serve(
  behaviour: HostileBehaviour,
  protocol: HostileProtocol,
  response: ServerResponse,
  record: HostileRequestRecord,
): void {
  if (behaviour === 'stall') {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.flushHeaders();
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const opening = openingFrames(protocol);
  for (const frame of opening) response.write(frame);
  const timers: NodeJS.Timeout[] = [];
  response.on('close', () => timers.forEach(clearInterval));
  switch (behaviour) {
    case 'cut': {
      const next = contentFrame(protocol, ' world, this event is cut in two', 0);
      response.write(next.slice(0, Math.floor(next.length / 2)), () => {
        record.endedByServer = true;
        response.socket?.destroy();
      });
      return;
    }
    case 'cut-clean': {
      const next = contentFrame(protocol, ' world, this event is cut in two', 0);
      record.endedByServer = true;
      response.end(next.slice(0, Math.floor(next.length / 2)));
      return;
    }
    case 'bad-utf8': {
      const text = `bad ${BAD_BYTES_MARKER} bytes`;
      response.write(wire(contentFrame(protocol, text, 0)));
      record.endedByServer = true;
      response.end(closingFrames(protocol, `Hello${text}`, 1).join(''));
      return;
    }
    case 'drip': {
      const bytes = Buffer.from(contentFrame(protocol, ' drip', 0).repeat(1000));
      let at = 0;
      timers.push(setInterval(() => response.write(bytes.subarray(at, ++at)), 200));
      return;
    }
    case 'slow': {
      let n = 0;
      timers.push(
        setInterval(() => {
          if (n === 200) {
            record.endedByServer = true;
            response.end(closingFrames(protocol, 'Hello' + ' slow'.repeat(n), n).join(''));
            return;
          }
          response.write(contentFrame(protocol, ' slow', n++));
        }, 100),
      );
      return;
    }
  }
}

/** Starts the upstream on 127.0.0.1 with an ephemeral port. */
export async function startHostileUpstream(): Promise<HostileUpstream> {
  const requests: HostileRequestRecord[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      const behaviour = (request.url ?? '/').split('/')[1] as HostileBehaviour;
      const record: HostileRequestRecord = {
        behaviour,
        protocol: protocolOf(request.url ?? ''),
        closedByPeer: false,
        endedByServer: false,
      };
      requests.push(record);
      response.on('close', () => {
        if (!record.endedByServer && !response.writableEnded) record.closedByPeer = true;
      });
      serve(behaviour, record.protocol, response, record);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    requests,
    baseUrl: (behaviour, protocol) =>
      `${origin}/${behaviour}${protocol === 'openai-chat' || protocol === 'openai-responses' ? '/v1' : ''}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { BAD_BYTES_MARKER };

/**
 * Test clients of the Responses WebSocket mode: the official SDK's `ResponsesWS` (openai-node,
 * `openai/resources/responses/ws`) wrapped to collect one turn's events, and a raw `ws` client for
 * what the SDK cannot send (malformed messages, abrupt disconnects).
 */
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import WebSocket from 'ws';
import { waitFor } from '../../support/start-gateway.ts';

/** Any server message, as JSON. */
export type ServerEvent = Record<string, any>;

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Index of the message that ends the turn starting at `start`: a terminal event, or an `error` before any `response.created`. */
function turnEnd(events: ReadonlyArray<ServerEvent>, start: number): number {
  let created = false;
  for (let i = start; i < events.length; i++) {
    const type = events[i]!.type;
    if (type === 'response.created') created = true;
    if (TERMINAL.has(type) || (type === 'error' && !created)) return i;
  }
  return -1;
}

/** Collects the messages of a socket and cuts them into turns. */
abstract class TurnCollector {
  readonly events: ServerEvent[] = [];
  private consumed = 0;

  /** Waits for the next turn's messages (from the last consumed one to its end). */
  async nextTurn(timeoutMs = 5000): Promise<ServerEvent[]> {
    await waitFor(() => turnEnd(this.events, this.consumed) >= 0, timeoutMs);
    const end = turnEnd(this.events, this.consumed);
    const turn = this.events.slice(this.consumed, end + 1);
    this.consumed = end + 1;
    return turn;
  }
}

/** The official SDK client. */
export class SdkConnection extends TurnCollector {
  readonly ws: ResponsesWS;
  readonly errors: Error[] = [];
  closeCode: number | undefined;

  constructor(origin: string, apiKey: string) {
    super();
    this.ws = new ResponsesWS(new OpenAI({ apiKey, baseURL: `${origin}/v1`, maxRetries: 0 }));
    this.ws.on('event', (event) => void this.events.push(event as ServerEvent));
    this.ws.on('error', (error) => void this.errors.push(error));
    this.ws.on('close', (code) => {
      this.closeCode = code;
    });
  }

  /** Sends one `response.create` (the SDK queues it until the socket is open) and waits for its turn. */
  async turn(body: Record<string, unknown>): Promise<ServerEvent[]> {
    this.ws.send({ type: 'response.create', ...body });
    return this.nextTurn();
  }

  close(): void {
    if (this.closeCode === undefined) this.ws.close();
  }
}

/** A raw `ws` client, open. */
/** A WebSocket message's bytes as UTF-8 text, whichever of ws's buffer shapes it came in. */
function textOf(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString('utf8');
}

export class RawConnection extends TurnCollector {
  private constructor(readonly socket: WebSocket) {
    super();
    socket.on('message', (data) => void this.events.push(JSON.parse(textOf(data)) as ServerEvent));
  }

  /** Opens a socket with `Authorization: Bearer <credentials>`, or with the given headers. */
  static async open(origin: string, credentials: string | Record<string, string>): Promise<RawConnection> {
    const headers = typeof credentials === 'string' ? { authorization: `Bearer ${credentials}` } : credentials;
    const socket = new WebSocket(`${origin.replace(/^http/, 'ws')}/v1/responses`, { headers });
    const connection = new RawConnection(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return connection;
  }
}

/** The HTTP answer to an upgrade that was refused: status and JSON body. */
export async function refusedUpgrade(
  origin: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const socket = new WebSocket(`${origin.replace(/^http/, 'ws')}/v1/responses`, { headers });
  return new Promise((resolve, reject) => {
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('error', () => undefined);
    socket.once('unexpected-response', (request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
    });
  });
}

/** The text of a completed response's message output. */
export function outputText(response: ServerEvent): string {
  return (response.output as ServerEvent[])
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content as ServerEvent[])
    .map((part) => part.text ?? '')
    .join('');
}

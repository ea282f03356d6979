/**
 * A loopback HTTP proxy put between an agent and the gateway. It records every request the
 * agent sends (method, path, JSON body) with the status the gateway answered, including side
 * requests the gateway does not serve, and forwards one request at a time: each client request
 * is therefore paired exactly with the upstream requests it caused (the upstream's exchange
 * indices from `upstreamStart` to `upstreamEnd`).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One client request and how it ended. */
export interface ClientExchange {
  readonly method: string;
  /** Path with query string. */
  readonly url: string;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  readonly body: unknown;
  /** HTTP status answered to the agent; 0 when the gateway could not be reached. */
  status: number;
  /** Answer body when the status is not 2xx (for diagnoses), truncated to 2,000 characters. */
  errorBody?: string;
  /** Upstream exchange indices [start, end) caused by this request. */
  readonly upstreamStart: number;
  upstreamEnd: number;
}

/** A running recording proxy. */
export interface RecordingProxy {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly exchanges: ClientExchange[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Starts a proxy on 127.0.0.1 (ephemeral port) forwarding to `targetOrigin`. `upstreamCount`
 * reads how many requests the upstream has received so far (used for pairing).
 */
export async function startRecordingProxy(targetOrigin: string, upstreamCount: () => number): Promise<RecordingProxy> {
  const target = new URL(targetOrigin);
  const exchanges: ClientExchange[] = [];
  let queue: Promise<void> = Promise.resolve();

  const forward = (
    incoming: IncomingMessage,
    raw: Buffer,
    respond: (answer: IncomingMessage | Error) => Promise<void>,
  ) =>
    new Promise<void>((resolve) => {
      const headers = { ...incoming.headers, host: target.host, 'content-length': String(raw.length) };
      delete headers['transfer-encoding'];
      const outgoing = httpRequest(
        { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
        (answer) => void respond(answer).then(resolve),
      );
      outgoing.on('error', (error) => void respond(error).then(resolve));
      outgoing.end(raw);
    });

  const server: Server = createServer((incoming, outgoingResponse) => {
    void readBody(incoming).then((raw) => {
      const turn = queue.then(() => {
        const exchange: ClientExchange = {
          method: incoming.method ?? 'GET',
          url: incoming.url ?? '/',
          body: parseBody(raw),
          status: 0,
          upstreamStart: upstreamCount(),
          upstreamEnd: upstreamCount(),
        };
        exchanges.push(exchange);
        return forward(incoming, raw, async (answer) => {
          if (answer instanceof Error) {
            exchange.errorBody = String(answer);
            outgoingResponse.writeHead(502).end();
          } else {
            exchange.status = answer.statusCode ?? 0;
            outgoingResponse.writeHead(exchange.status, answer.headers);
            const ok = exchange.status >= 200 && exchange.status < 300;
            let errorText = '';
            for await (const chunk of answer) {
              if (!ok && errorText.length < 2000) errorText += (chunk as Buffer).toString('utf8');
              outgoingResponse.write(chunk);
            }
            outgoingResponse.end();
            if (!ok) exchange.errorBody = errorText.slice(0, 2000);
          }
          exchange.upstreamEnd = upstreamCount();
        });
      });
      queue = turn.catch(() => undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

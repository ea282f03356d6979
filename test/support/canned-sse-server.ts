/**
 * A loopback HTTP server that answers every request with the SSE text it was given, for running
 * stream encoders' output through the official SDKs' own stream helpers. Records request bodies.
 * A request the real API would refuse (unknown top-level field, orphan tool result:
 * gateway/mock/strict-request-rules.ts) is answered with that API's 400 instead.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseLikeProviderAt } from '../../gateway/mock/strict-request-rules.ts';

/** A running canned-SSE server. */
export interface CannedSseServer {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** JSON bodies of the requests received, in order (undefined for an empty body). */
  readonly bodies: unknown[];
  /** Replaces the SSE text served from now on. */
  setSse(text: string): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/** Starts the server on 127.0.0.1 (ephemeral port), serving `sse` until `setSse` changes it. */
export async function startCannedSseServer(sse = ''): Promise<CannedSseServer> {
  let body = sse;
  const bodies: unknown[] = [];
  const server: Server = createServer((request, response) => {
    void readBody(request).then((received) => {
      bodies.push(received);
      const refusal = refuseLikeProviderAt(request.url ?? '/', received);
      if (refusal)
        return void response.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    bodies,
    setSse: (text) => {
      body = text;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A webhook receiver for tests: node:http on a free loopback port, verifying every request's
 * Standard Webhooks signature with the reference library (standardwebhooks' Webhook.verify) under
 * the secret it is given, recording what came, answering each request with the next status of
 * `answers` (then 204).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got. */
export interface ReceivedWebhook {
  readonly id: string;
  readonly timestamp: string;
  readonly body: string;
  /** Whether the signature verified under the receiver's secret (and the timestamp is recent). */
  readonly verified: boolean;
  /** The status it was answered with. */
  readonly status: number;
  /** Whether the answer went out on a connection still open (false: the sender was gone, e.g. killed). */
  readonly acknowledged: boolean;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT/hook` */
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** Requests whose body arrived, answered yet or not. */
  arrivals: number;
  /** Statuses to answer the next requests with, in order (consumed); empty: 204. */
  readonly answers: number[];
  /** Delay before answering, ms (default 0). */
  delayMs: number;
  /** The secret signatures are checked against (may be set after start). */
  secret: string | undefined;
  close(): Promise<void>;
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/** Starts a receiver on 127.0.0.1, port chosen by the system. */
export async function startWebhookReceiver(secret?: string): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    arrivals: 0,
    answers: [],
    delayMs: 0,
    secret,
    close: async () => undefined,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': header(request.headers, 'webhook-id'),
        'webhook-timestamp': header(request.headers, 'webhook-timestamp'),
        'webhook-signature': header(request.headers, 'webhook-signature'),
      };
      let verified = false;
      try {
        if (receiver.secret) new Webhook(receiver.secret).verify(body, headers);
        verified = receiver.secret !== undefined;
      } catch {
        verified = false;
      }
      const status = receiver.answers.shift() ?? 204;
      receiver.arrivals += 1;
      setTimeout(() => {
        const acknowledged = !request.socket.destroyed && !response.destroyed;
        receiver.received.push({
          id: headers['webhook-id'],
          timestamp: headers['webhook-timestamp'],
          body,
          verified,
          status,
          acknowledged,
        });
        if (acknowledged) response.writeHead(status).end();
      }, receiver.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

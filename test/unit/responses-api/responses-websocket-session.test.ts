/**
 * The session's connection-duration limit with a fake socket: once the limit passes on an idle
 * connection, the documented `websocket_connection_limit_reached` error is sent and the socket is
 * closed with 1000 (https://developers.openai.com/api/docs/guides/websocket-mode, "Connection limits").
 */
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { ResponsesWebSocketSession } from '../../../gateway/responses-api/websocket/responses-websocket-session.ts';

class FakeSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: Array<Record<string, unknown>> = [];
  closedWith: number | undefined;
  send(text: string): void {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close(code: number): void {
    this.closedWith = code;
    this.readyState = 3;
    this.emit('close');
  }
}

describe('ResponsesWebSocketSession connection limit', () => {
  it('sends websocket_connection_limit_reached and closes an idle connection when the limit passes', async () => {
    const socket = new FakeSocket();
    const dispatcher = new Agent();
    new ResponsesWebSocketSession(socket as unknown as WebSocket, {
      dispatcher,
      origin: 'http://127.0.0.1:9',
      apiKey: 'sk-unused',
      limits: { maxConnectionMs: 20, maxRetainedBytes: 1000 },
      log: console as unknown as FastifyBaseLogger,
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(socket.sent).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({ type: 'invalid_request_error', code: 'websocket_connection_limit_reached' }),
      }),
    ]);
    expect(socket.closedWith).toBe(1000);
    await dispatcher.close();
  });
});

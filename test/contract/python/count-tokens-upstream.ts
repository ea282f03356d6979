/**
 * A fake upstream for token counting only: answers Anthropic's `POST /v1/messages/count_tokens`
 * (https://docs.anthropic.com/en/api/messages-count-tokens) with `{input_tokens}` and Gemini's
 * `POST /v1beta/models/{model}:countTokens` (https://ai.google.dev/api/tokens) with `{totalTokens}`,
 * always the same number, and records the bodies it received. The replaying fixture upstream has
 * no count endpoints, so without this the gateway's fallback estimate would hide whether it asks
 * the upstream at all. A request the real API would refuse (unknown top-level field, orphan tool
 * result: gateway/mock/strict-request-rules.ts) is answered with that API's 400.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseLikeProviderAt } from '../../../gateway/mock/strict-request-rules.ts';

/** A running count-only upstream. */
export interface CountTokensUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Path and body of every count request, in order. */
  readonly requests: Array<{ path: string; body: string }>;
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 (ephemeral port); every count it answers is `tokens`. */
export async function startCountTokensUpstream(tokens: number): Promise<CountTokensUpstream> {
  const requests: CountTokensUpstream['requests'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ path, body });
      const refusal = body === '' ? undefined : refuseLikeProviderAt(path, JSON.parse(body) as unknown);
      if (refusal)
        return void response.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
      const answer =
        path === '/v1/messages/count_tokens'
          ? { input_tokens: tokens }
          : /\/models\/.+:countTokens$/.test(path)
            ? { totalTokens: tokens }
            : undefined;
      if (!answer)
        return void response
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"count-only fake upstream"}}');
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

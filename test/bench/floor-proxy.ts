/**
 * The cost floor of any Node gateway: a Fastify + undici pass-through proxy with no features.
 * Every request (any method, any path) goes to `upstreamOrigin` + `pathPrefix` + its path with its
 * headers (minus hop-by-hop ones and host) and raw body; the answer's status, headers (minus
 * hop-by-hop ones) and body stream back unchanged. Upstream calls share one keep-alive Agent.
 */
import Fastify from 'fastify';
import { Agent, request } from 'undici';

/** Headers a proxy must not forward (https://www.rfc-editor.org/rfc/rfc9110#section-7.6.1), plus host and content-length (recomputed). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
  'host',
  'content-length',
]);

/** `headers` without hop-by-hop entries; array values are kept as arrays. */
function forwardable(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) kept[name] = value;
  return kept;
}

/**
 * Starts the proxy on 127.0.0.1, port 0. `pathPrefix` (e.g. `/b/latency=0,chunk=0`) is put
 * before every forwarded path. Resolves with the port and a closer (server, then Agent).
 */
export async function startFloorProxy(
  upstreamOrigin: string,
  pathPrefix: string,
): Promise<{ port: number; close: () => Promise<void> }> {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.all('/*', async (clientRequest, reply) => {
    const body = clientRequest.body as Buffer | undefined;
    const upstream = await request(`${upstreamOrigin}${pathPrefix}${clientRequest.url}`, {
      method: clientRequest.method as 'POST',
      headers: forwardable(clientRequest.headers),
      ...(body && body.length > 0 ? { body } : {}),
      dispatcher: agent,
    });
    reply.raw.once('close', () => upstream.body.destroy());
    return reply.code(upstream.statusCode).headers(forwardable(upstream.headers)).send(upstream.body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    port: (app.server.address() as { port: number }).port,
    close: async () => {
      await app.close();
      await agent.close();
    },
  };
}

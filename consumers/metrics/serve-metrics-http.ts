/**
 * The consumers process's scrape endpoint: `GET /metrics` on its own HTTP listener
 * (TOLLGATE_METRICS_HOST, default HOST — the interface the gateway listens on, 0.0.0.0 in the
 * image — else 127.0.0.1; TOLLGATE_METRICS_PORT, default 9464, `0` = a free port, `off` = no listener), in the Prometheus text format
 * (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format). Any other path
 * answers 404, any other method 405. No authentication: bind it to a private interface.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the listener binds. */
export interface MetricsListen {
  readonly host: string;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
}

/** Default port of the consumers' metrics listener (the Prometheus exporters' range, https://github.com/prometheus/prometheus/wiki/Default-port-allocations). */
export const DEFAULT_METRICS_PORT = 9464;

/**
 * The listener from TOLLGATE_METRICS_HOST / TOLLGATE_METRICS_PORT, or undefined for `off`.
 * @throws Error naming the variable when the port is not `off` or an integer in [0, 65535]
 */
export function metricsListenFromEnv(env: NodeJS.ProcessEnv): MetricsListen | undefined {
  const rawPort = env.TOLLGATE_METRICS_PORT?.trim() || String(DEFAULT_METRICS_PORT);
  if (rawPort === 'off') return undefined;
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65_535)
    throw new Error(`TOLLGATE_METRICS_PORT must be off or a port number (0-65535), got ${JSON.stringify(rawPort)}`);
  return { host: env.TOLLGATE_METRICS_HOST?.trim() || env.HOST?.trim() || '127.0.0.1', port };
}

/** A listening metrics endpoint. */
export interface MetricsServer {
  /** `http://host:port` */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * Listens on `listen` and answers `GET /metrics` with `render()` (500 with the reason when it rejects).
 * @throws the listen Error (port in use, address not available)
 */
export async function serveMetricsHttp(
  listen: MetricsListen,
  render: () => Promise<string>,
  contentType: string,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return void response
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' })
        .end('method not allowed\n');
    render().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' })
          .end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) =>
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return {
    address: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

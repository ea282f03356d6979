/**
 * `GET <path>` (default `/metrics`, TOLLGATE_METRICS_PATH): the Prometheus text exposition format
 * (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format). It asks for no
 * API key: keep it off the public network, move it, or turn it off (`off`).
 */
import type { FastifyInstance } from 'fastify';
import type { GatewayMetrics } from './gateway-metrics.ts';

/** Registers the scrape route on `app` at `path` (answered by the app's error handler should a collector throw). */
export function registerMetricsRoute(app: FastifyInstance, metrics: GatewayMetrics, path: string): void {
  app.get(path, async (_request, reply) => {
    const text = await metrics.render();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}

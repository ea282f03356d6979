/**
 * TCP ports free on 127.0.0.1 at the moment of asking, for programs that take their port as a
 * setting instead of binding port 0 themselves (redis-server, clickhouse-server, Kafka, peer
 * gateways, containers).
 */
import { createServer } from 'node:net';

/**
 * `count` distinct ports free on 127.0.0.1: a server listens on port 0 per port and reads what the
 * kernel gave it; every probe stays open until all are known, so the kernel cannot hand the same
 * port out twice. Another process could take a port before the caller binds it; the caller's
 * start-up then fails and says so.
 * @throws the listen error, or Error when no port came back
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const probes = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      probes.map(
        (probe) =>
          new Promise<number>((resolve, reject) => {
            probe.once('error', reject);
            probe.listen(0, '127.0.0.1', () => {
              const address = probe.address();
              const port = typeof address === 'object' && address !== null ? address.port : 0;
              if (port > 0) resolve(port);
              else reject(new Error('no port from listen(0)'));
            });
          }),
      ),
    );
  } finally {
    await Promise.all(
      probes.map((probe) => new Promise((resolve) => (probe.listening ? probe.close(resolve) : resolve(undefined)))),
    );
  }
}

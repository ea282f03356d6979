/**
 * A TCP port free on 127.0.0.1 at the moment of asking, for programs that take their port as a
 * setting instead of binding port 0 themselves (redis-server, peer gateways, containers).
 */
import { createServer } from 'node:net';

/**
 * A server listens on port 0, reads the port the kernel gave it and closes. Another process could
 * take the port before the caller binds it; the caller's start-up then fails and says so.
 * @throws the listen error, or Error when no port came back
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no port from listen(0)'))));
    });
  });
}

/**
 * Ports free on 127.0.0.1 for the tests (infra/free-loopback-ports.ts): for programs that take their
 * port as a setting instead of binding port 0 themselves (redis-server, peer gateways, containers).
 */
import { freeLoopbackPorts } from '../../infra/free-loopback-ports.ts';

/** One port free on 127.0.0.1 at the moment of asking. @throws the listen error, or Error when no port came back */
export async function freePort(): Promise<number> {
  const [port] = await freeLoopbackPorts(1);
  return port as number;
}

/** `count` distinct ports free on 127.0.0.1 (freeLoopbackPorts). */
export const freePorts = freeLoopbackPorts;

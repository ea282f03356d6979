/**
 * The control plane of a gateway that has no shared config topic (tests, embedders): a projection
 * seeded from the config file's keys, channels and prices, with `append` applying events directly.
 * A gateway node uses the real one instead: a projection fed by the config topic (infra/control-plane/config-follower.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import type { GatewayConfig } from '../config/config-schema.ts';
import { eventsForConfigFile } from './config-file-events.ts';
import { ControlPlaneProjection } from './control-plane-projection.ts';
import type { ControlPlaneView } from './control-plane-view.ts';

/** What the app needs from a control plane. */
export interface ControlPlane {
  readonly view: ControlPlaneView;
  /** Appends events; resolves once they are applied to `view` (read-your-writes). */
  append(events: ReadonlyArray<ControlEvent>): Promise<void>;
  /** Master key (channel credentials, AES-256-GCM) and HMAC secret (key digests). */
  readonly secrets: { readonly masterKey: Buffer; readonly hmacSecret: Buffer };
}

/** Builds an in-memory control plane holding the config file's entities. Secrets are random unless given. */
export function createLocalControlPlane(
  config: GatewayConfig,
  secrets: ControlPlane['secrets'] = { masterKey: randomBytes(32), hmacSecret: randomBytes(32) },
): ControlPlane {
  const projection = new ControlPlaneProjection(secrets.masterKey);
  projection.applyBatch(eventsForConfigFile(config, projection, secrets, Date.now()));
  return {
    view: projection,
    secrets,
    append: async (events) => void projection.applyBatch([...events]),
  };
}

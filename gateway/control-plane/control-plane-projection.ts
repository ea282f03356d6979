/**
 * The gateway's projection of the config topic: the control-plane fold every process runs
 * (schemas/control-plane/control-plane-fold.ts; rules there), with the gateway's channels —
 * credentials decrypted with the node's TOLLGATE_MASTER_KEY and validated as routable
 * (channel-event-mapping.ts) — read through ControlPlaneView.
 */
import { ControlPlaneFold } from '../../schemas/control-plane/control-plane-fold.ts';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import { channelRecordFromEvent } from './channel-event-mapping.ts';
import type { ChannelRecord, ControlPlaneView } from './control-plane-view.ts';

export type { PriceRecord } from '../../schemas/control-plane/control-plane-records.ts';

/** Options of the projection. */
export interface ControlPlaneProjectionOptions {
  /** Called with each warning as it is recorded (e.g. a channel whose credential does not decrypt). */
  readonly onWarning?: (
    message: string,
    extra: { readonly eventId: string; readonly type: ControlEvent['type'] },
  ) => void;
}

/**
 * The fold with routable channels. An undecryptable credential keeps the channel but disabled
 * (warning); an invalid channel is left out (warning).
 */
export class ControlPlaneProjection extends ControlPlaneFold<ChannelRecord> implements ControlPlaneView {
  /** @param masterKey the 32-byte TOLLGATE_MASTER_KEY that decrypts channel credentials */
  constructor(masterKey: Buffer, options: ControlPlaneProjectionOptions = {}) {
    super({
      projectChannel: (event) => channelRecordFromEvent(event, masterKey),
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
  }
}

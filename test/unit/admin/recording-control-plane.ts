/**
 * The real projection (ControlPlaneProjection) behind an `append` that does what the control-plane
 * node does with a batch, minus the event log: each event is Avro-encoded and decoded with the
 * config topic's codec (so an event that does not fit its schema fails the test), recorded in
 * `published`, then folded. Admin tests assert both the answers and what was published.
 */
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import { decodeControlEvent, encodeControlEvent } from '../../../schemas/control-plane/control-event-codec.ts';
import type { ControlEvent } from '../../../schemas/control-plane/control-plane-events.ts';

/** A projection with a recording, codec-checked `append`. */
export class RecordingControlPlane extends ControlPlaneProjection {
  /** Every appended event, in order, as decoded from its Avro encoding. */
  readonly published: ControlEvent[] = [];

  /** Encodes, decodes, records and applies `events`; resolves once applied (like the node). */
  readonly append = async (events: ReadonlyArray<ControlEvent>): Promise<void> => {
    const decoded = events.map((event) => decodeControlEvent(encodeControlEvent(event)));
    this.published.push(...decoded);
    this.applyBatch(decoded);
  };
}

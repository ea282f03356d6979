/**
 * The consumers' view of the control plane: the same fold the gateway nodes run
 * (schemas/control-plane/control-plane-fold.ts), fed by this process's own config follower. The
 * consumers never decrypt a channel credential: a channel is kept as its id and provider.
 * Billing reads prices from it as of each event's `priceRevision` and waits, when an event names
 * a revision this process has not applied yet, until the follower has caught up.
 */
import type { ControlEventSink } from '../../schemas/control-plane/config-follower.ts';
import { ControlPlaneFold } from '../../schemas/control-plane/control-plane-fold.ts';
import type { ChannelUpserted } from '../../schemas/control-plane/control-plane-events.ts';
import type { Price } from '../../schemas/billing/price-book.ts';

/** A channel as the consumers know it (no credential). */
export interface ConsumerChannel {
  readonly channelId: string;
  readonly provider: string;
}

/** Prices as of a revision, and the wait for a revision to arrive. */
export interface PriceSource {
  /**
   * The price book for an event: as of `priceRevision` (null: the prices set at or before `at`,
   * ms since epoch). Call `awaitRevision` first.
   */
  bookFor(priceRevision: number | null, at: number): ReadonlyArray<Price>;
  /**
   * Resolves once the fold has applied at least `revision` PriceSet events.
   * @throws Error after `timeoutMs` (the caller rejects its batch, which is redelivered later)
   */
  awaitRevision(revision: number, timeoutMs: number): Promise<void>;
}

/** The fold with consumer channels, plus the PriceSource over it. */
export class ConsumerControlPlane implements ControlEventSink, PriceSource {
  readonly fold = new ControlPlaneFold<ConsumerChannel>({ projectChannel: consumerChannelOf });

  applyBatch(events: Parameters<ControlEventSink['applyBatch']>[0]): number {
    return this.fold.applyBatch(events);
  }

  bookFor(priceRevision: number | null, at: number): ReadonlyArray<Price> {
    return this.fold.priceBooks.bookAt(priceRevision, at);
  }

  awaitRevision(revision: number, timeoutMs: number): Promise<void> {
    if (this.fold.priceRevision >= revision) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        reject(
          new Error(
            `price revision ${revision} not applied within ${timeoutMs} ms (this process has ${this.fold.priceRevision}): the config topic is behind or unreachable; the batch will be retried`,
          ),
        );
      }, timeoutMs);
      const unsubscribe = this.fold.onChange(() => {
        if (this.fold.priceRevision < revision) return;
        clearTimeout(timer);
        unsubscribe();
        resolve();
      });
    });
  }
}

/** A ChannelUpserted as the consumers keep it: id and provider; the credential stays encrypted. */
function consumerChannelOf(event: ChannelUpserted) {
  return {
    record: { channelId: event.channelId, provider: event.provider },
    warning: undefined,
    hasCredential: event.apiKeyCiphertext !== '',
  };
}

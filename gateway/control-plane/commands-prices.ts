/**
 * Price command: set one price-book entry (the config file's `prices` entry plus an id), validated
 * with the price book's own schema.
 */
import { z } from 'zod';
import { priceEntrySchema } from '../../schemas/billing/price-book.ts';
import type { PriceSet } from '../../schemas/control-plane/control-plane-events.ts';
import type { ControlPlaneView } from './control-plane-view.ts';
import { priceSetFields } from './price-event-mapping.ts';
import { eventHeader, fail, parseInput, type CommandContext, type CommandResult } from './commands-common.ts';

/** Body of `setPrice`: the config file's `prices` entry (schemas/billing/price-book.ts) plus an optional `priceId`. */
export const setPriceInput = priceEntrySchema.extend({
  priceId: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(300, 'must be at most 300 characters').optional(),
});

/**
 * Sets a price-book entry (USD per million tokens, ≤ 9 decimals). The entry's id is `pathPriceId`,
 * else the body's `priceId`, else `<model>|<channel or *>|<effectiveFrom ISO>` — so setting the
 * same model, channel and start time again replaces the entry instead of adding a rival.
 * The model need not be served by any channel yet (a price can precede its channel); a `channel`,
 * though, must name a channel the control plane knows.
 * @returns one PriceSet event; result `{ priceId, created }`.
 * @throws CommandError 400 bad input: a negative, non-finite or over-precise price, an
 *   `effectiveFrom` that is not ISO-8601, an unknown `channel`, an unknown field, or a body
 *   `priceId` differing from the path's.
 */
export function setPrice(view: ControlPlaneView, pathPriceId: string | undefined, input: unknown, ctx: CommandContext): CommandResult<{ priceId: string; created: boolean }> {
  const body = parseInput(setPriceInput, input);
  if (pathPriceId !== undefined && body.priceId !== undefined && body.priceId !== pathPriceId) fail(400, `priceId: must equal the price id in the path ('${pathPriceId}')`, 'priceId');
  if (body.channel !== undefined && !view.channels().some((c) => c.config.id === body.channel)) fail(400, `channel: unknown channel '${body.channel}'`, 'channel');
  const effectiveFrom = Date.parse(body.effectiveFrom);
  const priceId = pathPriceId ?? body.priceId ?? `${body.model}|${body.channel ?? '*'}|${new Date(effectiveFrom).toISOString()}`;
  const event: PriceSet = { ...eventHeader(ctx), ...priceSetFields(body, priceId) };
  const created = !view.prices().some((p) => p.priceId === priceId);
  return { events: [{ type: 'PriceSet', event }], result: { priceId, created } };
}

/**
 * Price command: set one price-book entry (the config file's `prices` entry plus an id), validated
 * with the price book's own schema. An entry without `effectiveFrom` starts when it is set; an
 * entry that another entry would shadow is refused unless confirmed.
 */
import { z } from 'zod';
import { priceEntrySchema } from '../../schemas/billing/price-book.ts';
import { shadowingEntry, type PriceBookEntry, type Shadowing } from '../../schemas/billing/price-standing.ts';
import type { PriceSet } from '../../schemas/control-plane/control-plane-events.ts';
import type { ControlPlaneView } from './control-plane-view.ts';
import { priceSetFields } from './price-event-mapping.ts';
import { eventHeader, fail, parseInput, type CommandContext, type CommandResult } from './commands-common.ts';

/**
 * Body of `setPrice`: the config file's `prices` entry (schemas/billing/price-book.ts) — except
 * that a missing `effectiveFrom` means "from now", not the epoch — plus an optional `priceId` and
 * `force` (true: set the entry even when another entry shadows it).
 */
export const setPriceInput = priceEntrySchema.extend({
  effectiveFrom: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
  priceId: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(300, 'must be at most 300 characters')
    .optional(),
  force: z.boolean({ error: 'must be true or false' }).optional(),
});

/**
 * Sets a price-book entry (USD per million tokens, ≤ 9 decimals). Its `effectiveFrom` is the
 * body's, else `ctx.now` (the moment it is set; carried in the PriceSet, so a replay prices
 * identically). The entry's id is `pathPriceId`, else the body's `priceId`, else
 * `<model>|<channel or *>|<effectiveFrom ISO>` — so setting the same model, channel and start time
 * again replaces the entry instead of adding a rival. The model need not be served by any channel
 * yet (a price can precede its channel); a `channel`, though, must name a channel the control
 * plane knows. Unless `force` is true, the entry must be the one billing would pick at
 * max(now, effectiveFrom) for its model and channel — for a general entry, on every channel.
 * @returns one PriceSet event; result `{ priceId, created }`.
 * @throws CommandError 400 bad input: a negative, non-finite or over-precise price, an
 *   `effectiveFrom` that is not ISO-8601, an unknown `channel`, an unknown field, a body
 *   `priceId` differing from the path's, or — without `force` — an entry another entry shadows
 *   (the message names the winning entry; field `channel` when a channel's own entry wins,
 *   `effectiveFrom` when a later-starting entry does).
 */
export function setPrice(
  view: ControlPlaneView,
  pathPriceId: string | undefined,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ priceId: string; created: boolean }> {
  const { force, ...body } = parseInput(setPriceInput, input);
  if (pathPriceId !== undefined && body.priceId !== undefined && body.priceId !== pathPriceId)
    fail(400, `priceId: must equal the price id in the path ('${pathPriceId}')`, 'priceId');
  if (body.channel !== undefined && !view.channels().some((c) => c.config.id === body.channel))
    fail(400, `channel: unknown channel '${body.channel}'`, 'channel');
  const effectiveFrom = new Date(
    body.effectiveFrom === undefined ? ctx.now : Date.parse(body.effectiveFrom),
  ).toISOString();
  const priceId = pathPriceId ?? body.priceId ?? `${body.model}|${body.channel ?? '*'}|${effectiveFrom}`;
  const { priceId: _bodyId, ...fields } = body;
  const entry: PriceBookEntry = { ...fields, effectiveFrom, priceId };
  if (force !== true) {
    const shadow = shadowingEntry(view.prices(), entry, ctx.now);
    if (shadow) refuseShadowed(entry, shadow);
  }
  const event: PriceSet = { ...eventHeader(ctx), ...priceSetFields(entry, priceId) };
  const created = !view.prices().some((p) => p.priceId === priceId);
  return { events: [{ type: 'PriceSet', event }], result: { priceId, created } };
}

/** @throws CommandError 400 naming the entry that wins over `entry`, and why. */
function refuseShadowed(entry: PriceBookEntry, { winner, forChannel }: Shadowing): never {
  const byChannel = winner.channel !== undefined && entry.channel === undefined;
  const where = forChannel === null ? 'for every channel without its own price' : `on channel '${forChannel}'`;
  const why = byChannel ? "a channel's own price beats a general one" : 'it starts later and is in force by then';
  const rival = `price '${winner.priceId}' (model ${winner.model}, ${winner.channel === undefined ? 'every channel' : `channel ${winner.channel}`}, from ${new Date(Date.parse(winner.effectiveFrom)).toISOString()}, input ${winner.inputPerMTok}, output ${winner.outputPerMTok} USD per million tokens)`;
  fail(
    400,
    `this price would not be in force: ${rival} wins ${where} (${why}); send "force": true (CLI: --force) to set it anyway`,
    byChannel ? 'channel' : 'effectiveFrom',
  );
}

/**
 * What a translation could not carry, in two kinds:
 * - **dropped**: a part that is safe to lose on the way (a cache hint, an end-user tag, a sampling
 *   hint the target has no field for). Each kind of such part is listed in the README under
 *   "What the gateway drops, and why that is safe"; the request goes on and the drop is logged.
 * - **uncarried**: a part whose loss would change what the model does or what the client gets
 *   (a built-in tool, an audio part, a stored prompt). A request with such a part is served only by
 *   passing the client's body through unchanged to a channel that speaks the client's own protocol;
 *   on any other channel it is refused with a 400 that names the part (gateway/exchange/run-exchange.ts).
 */

/** A part of a client request that cannot be carried to the target protocol. */
export interface UncarriedPart {
  /** Where it sits in the client's request, dot-separated (e.g. `input.3`, `tools.0`). */
  readonly path: string;
  /** What it is and why it cannot be carried, one sentence without the path. */
  readonly reason: string;
}

/** Collects the notes of one translation (a decode or an upstream build). */
export class TranslationNotes {
  /** Safe drops: human-readable, one per dropped part, each starting with the part's path. */
  readonly dropped: string[] = [];
  /** Parts that make the translation unfaithful; the request must be refused if translated. */
  readonly uncarried: UncarriedPart[] = [];

  /** Notes a part dropped because losing it is safe (it must be listed in the README). */
  drop(message: string): void {
    this.dropped.push(message);
  }

  /** Notes a part that cannot be carried: the request is refused unless passed through unchanged. */
  refuse(path: string, reason: string): void {
    this.uncarried.push({ path, reason });
  }

  /** Adds another translation's notes to these. */
  absorb(other: TranslationNotes): void {
    this.dropped.push(...other.dropped);
    this.uncarried.push(...other.uncarried);
  }
}

/** One sentence naming every uncarried part, for a 400's message. */
export function describeUncarried(parts: ReadonlyArray<UncarriedPart>, target: string): string {
  const listed = parts.slice(0, 5).map((part) => `${part.path}: ${part.reason}`);
  const more = parts.length > 5 ? `; and ${parts.length - 5} more` : '';
  return `This request has parts that cannot be carried to ${target}, so it was not sent: ${listed.join('; ')}${more}. Remove them, or use a model served by a channel of the client's own API.`;
}

/** A decode's ok result with the notes attached (fields only when non-empty). */
export function decodedWith<T>(
  value: T,
  notes: TranslationNotes,
): { ok: true; value: T; warnings?: string[]; uncarried?: UncarriedPart[] } {
  return {
    ok: true,
    value,
    ...(notes.dropped.length > 0 ? { warnings: notes.dropped } : {}),
    ...(notes.uncarried.length > 0 ? { uncarried: notes.uncarried } : {}),
  };
}

/**
 * Why generation stopped, unified across providers, with the provider's raw value kept beside it
 * (e.g. `{ unified: 'stop', raw: 'end_turn' }`). `raw` is the upstream's own string, if any.
 */
export interface FinishReason {
  readonly unified: 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';
  readonly raw?: string;
}

/** Builds a FinishReason. */
export function finishReason(unified: FinishReason['unified'], raw?: string | null): FinishReason {
  return raw === undefined || raw === null ? { unified } : { unified, raw };
}

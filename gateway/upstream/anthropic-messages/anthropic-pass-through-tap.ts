/**
 * The pass-through tap of Anthropic Messages streams (upstream-adapter.ts PassThroughTap): a
 * `content_block_delta` event continues the block its `content_block_start` opened, and a `ping`
 * carries nothing; usage, the stop reason, new blocks, errors and the end arrive in other events
 * (`message_start`, `content_block_start`, `message_delta`, `error`, `message_stop`;
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types).
 */
import type { ContinuationFragment, PassThroughTap } from '../upstream-adapter.ts';
import { rawJsonStringSpan } from '../shared/raw-json-string-span.ts';

/** The delta types that carry output, the member holding it, and the block kind it adds to. */
const DELTA_FIELDS: ReadonlyArray<readonly [type: string, member: string, kind: ContinuationFragment['kind']]> = [
  ['"text_delta"', 'text', 'text'],
  ['"thinking_delta"', 'thinking', 'reasoning'],
  ['"input_json_delta"', 'partial_json', 'tool-call'],
];

/**
 * The first line of a block delta and of a ping, as Anthropic writes them: the `event:` line comes
 * first. An event written any other way is decoded, which is never wrong, only slower.
 */
const BLOCK_DELTA = 'event: content_block_delta\n';
const PING = 'event: ping\n';

/** The Anthropic Messages stream tap. */
export const anthropicPassThroughTap: PassThroughTap = {
  isContinuation: (rawEvent) => rawEvent.startsWith(BLOCK_DELTA) || rawEvent.startsWith(PING),
  continuationFragment(rawEvent) {
    // `delta.text`, `delta.thinking` or `delta.partial_json` by `delta.type`; a signature or a ping carries no output.
    const delta = rawEvent.indexOf('"delta"');
    if (delta === -1) return undefined;
    for (const [type, member, kind] of DELTA_FIELDS) {
      if (rawEvent.indexOf(type, delta) === -1) continue;
      const span = rawJsonStringSpan(rawEvent, member, delta);
      return span && span.end > span.start ? { kind, start: span.start, end: span.end } : undefined;
    }
    return undefined;
  },
};

/**
 * The pass-through tap of Anthropic Messages streams (upstream-adapter.ts PassThroughTap): a
 * `content_block_delta` event continues the block its `content_block_start` opened, and a `ping`
 * carries nothing; usage, the stop reason, new blocks, errors and the end arrive in other events
 * (`message_start`, `content_block_start`, `message_delta`, `error`, `message_stop`;
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types).
 */
import type { OutputBlock } from '../../canonical/response.ts';
import type { PassThroughTap } from '../upstream-adapter.ts';

/** The output of one `content_block_delta`: its text, thinking or tool-input fragment. */
function deltaBlock(data: string): OutputBlock | undefined {
  try {
    const delta = (JSON.parse(data) as { delta?: Record<string, unknown> }).delta;
    if (delta?.type === 'text_delta' && typeof delta.text === 'string') return { type: 'text', text: delta.text };
    if (delta?.type === 'thinking_delta' && typeof delta.thinking === 'string')
      return { type: 'reasoning', text: delta.thinking };
    if (delta?.type === 'input_json_delta' && typeof delta.partial_json === 'string')
      return { type: 'tool-call', id: '', name: '', arguments: delta.partial_json };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first line of a block delta and of a ping, as Anthropic writes them: the `event:` line comes
 * first. An event written any other way is decoded, which is never wrong, only slower.
 */
const BLOCK_DELTA = 'event: content_block_delta\n';
const PING = 'event: ping\n';

/** The Anthropic Messages stream tap. */
export const anthropicPassThroughTap: PassThroughTap = {
  isContinuation: (rawEvent) => rawEvent.startsWith(BLOCK_DELTA) || rawEvent.startsWith(PING),
  continuationContent(events): OutputBlock[] {
    // Fragments of one kind in a row join into one block: BPE counts a whole text, not its pieces.
    const blocks: OutputBlock[] = [];
    for (const event of events) {
      const block = event.event === 'content_block_delta' ? deltaBlock(event.data) : undefined;
      if (!block) continue;
      const last = blocks.at(-1);
      if (last?.type === 'text' && block.type === 'text')
        blocks[blocks.length - 1] = { ...last, text: last.text + block.text };
      else if (last?.type === 'reasoning' && block.type === 'reasoning')
        blocks[blocks.length - 1] = { ...last, text: last.text + block.text };
      else if (last?.type === 'tool-call' && block.type === 'tool-call')
        blocks[blocks.length - 1] = { ...last, arguments: last.arguments + block.arguments };
      else blocks.push(block);
    }
    return blocks;
  },
};

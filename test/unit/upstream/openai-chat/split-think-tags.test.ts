import { describe, expect, it } from 'vitest';
import {
  splitThinkTags,
  ThinkTagSplitter,
  type ThinkSegment,
} from '../../../../gateway/upstream/openai-chat/split-think-tags.ts';

/** Feeds `pieces` one by one and merges adjacent segments of the same kind. */
function feed(pieces: string[]): ThinkSegment[] {
  const splitter = new ThinkTagSplitter();
  const raw = [...pieces.flatMap((p) => splitter.push(p)), ...splitter.flush()];
  const merged: ThinkSegment[] = [];
  for (const s of raw) {
    const last = merged.at(-1);
    if (last?.kind === s.kind) merged[merged.length - 1] = { kind: s.kind, text: last.text + s.text };
    else merged.push(s);
  }
  return merged;
}

const CONTENT = '<think>\nThe user greets me; answer briefly.\n</think>\n\nHi there!';
const EXPECTED: ThinkSegment[] = [
  { kind: 'reasoning', text: 'The user greets me; answer briefly.' },
  { kind: 'text', text: 'Hi there!' },
];

describe('ThinkTagSplitter', () => {
  it('splits a whole content string', () => {
    expect(splitThinkTags(CONTENT)).toEqual({ reasoning: 'The user greets me; answer briefly.', text: 'Hi there!' });
  });

  it('gives the same result whatever the chunk boundaries (character by character)', () => {
    expect(feed([...CONTENT])).toEqual(EXPECTED);
    for (let cut = 1; cut < CONTENT.length; cut++)
      expect(feed([CONTENT.slice(0, cut), CONTENT.slice(cut)])).toEqual(EXPECTED);
  });

  it('never emits a partial closing tag as reasoning', () => {
    const splitter = new ThinkTagSplitter();
    expect(splitter.push('<think>abc</th')).toEqual([{ kind: 'reasoning', text: 'abc' }]);
    expect(splitter.push('ink>done')).toEqual([{ kind: 'text', text: 'done' }]);
  });

  it('keeps inner whitespace of reasoning and text', () => {
    expect(feed(['<think>a \n', ' b</think>', 'x  y '])).toEqual([
      { kind: 'reasoning', text: 'a \n b' },
      { kind: 'text', text: 'x  y ' },
    ]);
  });

  it('leaves content without a leading <think> untouched, including later literal tags', () => {
    expect(feed(['Use <think> tags', ' like </think> this'])).toEqual([
      { kind: 'text', text: 'Use <think> tags like </think> this' },
    ]);
    expect(feed(['\n', '<thi', 's is text'])).toEqual([{ kind: 'text', text: '\n<this is text' }]);
  });

  it('treats an unclosed think block as reasoning at flush', () => {
    expect(feed(['<think>still thinking  '])).toEqual([{ kind: 'reasoning', text: 'still thinking' }]);
  });
});

/**
 * Splits MiniMax-style inline reasoning out of `content`: `<think>…</think>` at the start of the
 * answer is reasoning, the rest is visible text (https://platform.openai.com/docs/api-reference/chat "Variants";
 * gateway/providers/PROVIDER-DOCS.md). Works across chunk boundaries: a tag may be cut anywhere.
 *
 * Rules: only a `<think>` that opens the content (after optional whitespace) is recognised, once
 * per message, so a literal "<think>" later in an answer stays text. Whitespace just inside the
 * tags and right after `</think>` is trimmed (MiniMax writes `<think>\n…\n</think>\n\n`).
 */

const OPEN = '<think>';
const CLOSE = '</think>';

/** One piece of split content. */
export interface ThinkSegment {
  readonly kind: 'text' | 'reasoning';
  readonly text: string;
}

/** Length of the longest suffix of `s` that is a proper prefix of `tag`. */
function partialTagSuffix(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) {
    if (s.endsWith(tag.slice(0, n))) return n;
  }
  return 0;
}

/** Stateful splitter: `push` each content fragment, then `flush` at the end of the message. */
export class ThinkTagSplitter {
  private mode: 'text' | 'reasoning' = 'text';
  private held = '';
  private skipLeading = false;
  private thinkPossible = true;

  /** Feeds one fragment; returns the segments that are certain so far (possibly none). */
  push(fragment: string): ThinkSegment[] {
    const out: ThinkSegment[] = [];
    let rest = this.held + fragment;
    this.held = '';
    while (rest !== '') {
      if (this.skipLeading) {
        rest = rest.replace(/^\s+/, '');
        if (rest === '') break;
        this.skipLeading = false;
      }
      rest = this.mode === 'text' ? this.pushText(rest, out) : this.pushReasoning(rest, out);
    }
    return out;
  }

  /** Ends the message: returns whatever was held back (an unclosed `<think>` stays reasoning). */
  flush(): ThinkSegment[] {
    const held = this.held;
    this.held = '';
    if (held === '') return [];
    return [{ kind: this.mode, text: this.mode === 'reasoning' ? held.trimEnd() : held }].filter((s) => s.text !== '');
  }

  /** Text mode: detects the opening tag at the very start; returns the unprocessed remainder. */
  private pushText(rest: string, out: ThinkSegment[]): string {
    if (!this.thinkPossible) {
      out.push({ kind: 'text', text: rest });
      return '';
    }
    const trimmed = rest.trimStart();
    if (trimmed.startsWith(OPEN)) {
      this.mode = 'reasoning';
      this.skipLeading = true;
      this.thinkPossible = false;
      return trimmed.slice(OPEN.length);
    }
    if (OPEN.startsWith(trimmed)) {
      this.held = rest; // whitespace or a cut-off "<thi": wait for more
      return '';
    }
    this.thinkPossible = false;
    out.push({ kind: 'text', text: rest });
    return '';
  }

  /** Reasoning mode: emits up to the closing tag, holding back a possible partial tag and trailing whitespace. */
  private pushReasoning(rest: string, out: ThinkSegment[]): string {
    const close = rest.indexOf(CLOSE);
    if (close >= 0) {
      const reasoning = rest.slice(0, close).trimEnd();
      if (reasoning !== '') out.push({ kind: 'reasoning', text: reasoning });
      this.mode = 'text';
      this.skipLeading = true;
      return rest.slice(close + CLOSE.length);
    }
    const partial = partialTagSuffix(rest, CLOSE);
    const body = rest.slice(0, rest.length - partial);
    const certain = body.trimEnd();
    this.held = body.slice(certain.length) + rest.slice(rest.length - partial);
    if (certain !== '') out.push({ kind: 'reasoning', text: certain });
    return '';
  }
}

/** Splits a complete content string: `{ reasoning, text }` ('' when absent). */
export function splitThinkTags(content: string): { reasoning: string; text: string } {
  const splitter = new ThinkTagSplitter();
  const segments = [...splitter.push(content), ...splitter.flush()];
  const join = (kind: ThinkSegment['kind']): string =>
    segments
      .filter((s) => s.kind === kind)
      .map((s) => s.text)
      .join('');
  return { reasoning: join('reasoning'), text: join('text') };
}

/**
 * Reads the events of an upstream SSE stream from runs of whole events (SseFrameCutter's output:
 * the bytes a pass-through relay forwards), one by one and without an async iterator. On
 * pass-through, once the stream has started, an event the adapter's tap calls a continuation
 * (upstream-adapter.ts PassThroughTap) is tested on its bytes read as Latin-1 (a copy per run, no
 * UTF-8 decoding; each event a slice of it), and only the bytes of the output it carries (the tap's
 * ContinuationFragment: the contents of one JSON string) are appended to a buffer for a possible
 * output estimate, never decoded unless one is needed. Every other event is parsed by `eventsource-parser` (WHATWG rules,
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation), fed
 * one whole event at a time, by one parser every stream shares (`parseWholeEvents`).
 *
 * Consecutive continuations of one stream are written alike but for the output they carry (a Chat
 * chunk differs from the one before only in its `content`). The reader keeps the last one the tap
 * recognised as its shape: the text before its fragment and the text from the fragment's closing
 * quote to the event's end. An event made of the same two texts around a JSON string's contents
 * has the same members with the same values, so it is a continuation of the same kind whose output
 * is that string; two string comparisons recognise it instead of the tap's scans of the event.
 *
 * With a tap, events are found by their blank line `\n\n`. A run that holds a CR (a stream framed
 * with CRLF or CR line ends) is parsed whole instead, every event decoded: the in-place split knows
 * only LF. Without a tap (the translated path) every run is parsed whole.
 * A byte order mark at the start of the stream is skipped, as the spec's decoding drops it.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { OutputBlock } from '../canonical/response.ts';
import { escapedAt } from '../upstream/shared/raw-json-string-span.ts';
import type { ContinuationFragment, PassThroughTap, UpstreamSseEvent } from '../upstream/upstream-adapter.ts';

const EMPTY = Buffer.alloc(0);

const QUOTE = 0x22;

/** Fragments up to this many bytes are copied byte by byte rather than with Buffer#copy (bytes). */
const SMALL_COPY_BYTES = 32;

/** A dispatched event as the adapters read it: `event` only when the stream named one. */
function upstreamEventOf(event: EventSourceMessage): UpstreamSseEvent {
  return event.event === undefined ? { data: event.data } : { event: event.event, data: event.data };
}

/** Parses SSE text into `into`, an event per dispatch. */
export function createEventParser(into: UpstreamSseEvent[]): EventSourceParser {
  return createParser({ onEvent: (event) => into.push(upstreamEventOf(event)) });
}

/** Where the shared parser puts its events: set by `parseWholeEvents` for the length of one call. */
let wholeEventsTarget: UpstreamSseEvent[] = [];
const WHOLE_EVENTS_PARSER = createParser({ onEvent: (event) => wholeEventsTarget.push(upstreamEventOf(event)) });
const NOT_CONSUMING = { consume: false };

/**
 * Parses `text`, a run of whole SSE events (SseFrameCutter's output), into `into`. One parser
 * serves every stream: a run leaves nothing for the next, and parsing is synchronous, so the
 * parser is reset before each run rather than kept per stream.
 */
export function parseWholeEvents(text: string, into: UpstreamSseEvent[]): void {
  wholeEventsTarget = into;
  const parser = WHOLE_EVENTS_PARSER;
  parser.reset(NOT_CONSUMING);
  // The reset re-arms the parser's byte-order-mark check; the reader skips a mark only at a stream's start.
  parser.feed('');
  parser.feed(text);
  // A run ends at a line end. SseFrameCutter ends a run on a CR only when the byte after it is not
  // LF, but the parser holds a last CR to see whether LF follows: an LF fed now ends that line.
  if (text.charCodeAt(text.length - 1) === 13) parser.feed('\n');
  wholeEventsTarget = [];
}

/** The events of one upstream SSE stream; see the module comment. */
export class SseEventReader {
  private readonly parsed: UpstreamSseEvent[] = [];
  /** How many of `parsed` were handed out (an index, not `shift`: a run may hold thousands). */
  private taken = 0;
  private bytes: Buffer = EMPTY;
  /** `bytes` read as Latin-1: one char per byte, so its offsets are byte offsets. */
  private text = '';
  private position = 0;
  /** No tap, or the loaded run holds a CR: parse it whole, test nothing in place. */
  private parseWhole = false;
  private atStreamStart = true;
  /** The kept fragments' bytes (JSON string contents, escapes undecoded), `keptLength` of them used. */
  private kept: Buffer | undefined;
  private keptLength = 0;
  /** Runs of kept fragments of one kind in a row: their kinds, and where each run ends in `kept`. */
  private keptKinds: Array<ContinuationFragment['kind']> | undefined;
  private keptRunEnds: number[] | undefined;
  /**
   * The shape of the last continuation the tap recognised (see the module comment), as copies that
   * hold no run alive: its text up to and with the opening quote of its fragment's string, and from
   * the closing quote to the end of the event. Empty until a continuation was recognised.
   */
  private shapeHead = '';
  private shapeTail = '';
  private shapeKind: ContinuationFragment['kind'] = 'text';

  /** `tap`: the adapter's reader of continuations, on pass-through; none: every event is parsed. */
  constructor(private readonly tap: PassThroughTap | undefined) {}

  /**
   * Takes the next run of complete events: the bytes the relay forwards (a Buffer), or the text
   * SseFrameCutter repaired when they were not UTF-8. Events of the previous run not yet taken are dropped.
   */
  load(complete: Buffer | string): void {
    const bytes = typeof complete === 'string' ? Buffer.from(complete) : complete;
    this.bytes = bytes;
    this.position = 0;
    this.parsed.length = 0;
    this.taken = 0;
    if (this.atStreamStart) {
      this.atStreamStart = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) this.position = 3;
    }
    // Without a tap every event is parsed: the run goes to the parser whole, never split here.
    this.text = this.tap ? bytes.toString('latin1') : '';
    this.parseWhole = !this.tap || this.text.includes('\r');
  }

  /** The bytes of the run `load` took, until `next` handed out its last event (then empty). */
  get run(): Buffer {
    return this.bytes;
  }

  /**
   * The next event of the loaded run to decode, or undefined when the run is done. With `started`
   * (the client's stream has begun), continuations are kept unparsed and skipped.
   */
  next(started: boolean): UpstreamSseEvent | undefined {
    for (;;) {
      if (this.taken < this.parsed.length) return this.parsed[this.taken++];
      // Emptied only when it held events: on pass-through most events are never parsed, and a
      // length store costs a runtime call each time.
      if (this.parsed.length !== 0) {
        this.parsed.length = 0;
        this.taken = 0;
      }
      const bytes = this.bytes;
      const start = this.position;
      if (start >= bytes.length) {
        // A live stream waits for its next chunk here: it holds neither this run nor its text meanwhile.
        this.bytes = EMPTY;
        this.text = '';
        this.position = 0;
        return undefined;
      }
      if (this.parseWhole) {
        this.position = bytes.length;
        parseWholeEvents(bytes.toString('utf8', start), this.parsed);
        continue;
      }
      const blank = this.text.indexOf('\n\n', start);
      const end = blank === -1 ? bytes.length : blank + 2;
      this.position = end;
      const tap = started ? this.tap : undefined;
      if (tap) {
        const contents = this.contentsInShape(start, end);
        if (contents !== -1) {
          const closing = end - this.shapeTail.length;
          if (closing > contents) this.keep(bytes, contents, closing, this.shapeKind);
          continue;
        }
        const raw = this.text.slice(start, end);
        if (tap.isContinuation(raw)) {
          const fragment = tap.continuationFragment(raw);
          if (fragment) {
            this.keep(bytes, start + fragment.start, start + fragment.end, fragment.kind);
            this.learnShape(bytes, start, end, fragment);
          }
          continue;
        }
      }
      parseWholeEvents(bytes.toString('utf8', start, end), this.parsed);
    }
  }

  /**
   * Where the output of the event at `[start, end)` of the loaded run starts when the event has the
   * last continuation's shape (its head, a JSON string's contents, its tail); -1 when it has not.
   * The contents (up to the tail's closing quote) must hold no quote that is not escaped, and that
   * closing quote must not be escaped: then the string ends where the shape's did.
   */
  private contentsInShape(start: number, end: number): number {
    const head = this.shapeHead;
    const tail = this.shapeTail;
    if (head === '') return -1;
    const contents = start + head.length;
    const closing = end - tail.length;
    if (closing < contents) return -1;
    const text = this.text;
    if (text.slice(closing, end) !== tail || text.slice(start, contents) !== head) return -1;
    for (let quote = text.indexOf('"', contents); quote < closing; quote = text.indexOf('"', quote + 1))
      if (!escapedAt(text, quote, contents)) return -1;
    return escapedAt(text, closing, contents) ? -1 : contents;
  }

  /**
   * Keeps the shape of the continuation at `[start, end)` of the loaded run, whose output
   * `fragment` the tap found (offsets within the event), when the fragment lies between quotes.
   */
  private learnShape(bytes: Buffer, start: number, end: number, fragment: ContinuationFragment): void {
    const text = this.text;
    if (text.charCodeAt(start + fragment.start - 1) !== QUOTE || text.charCodeAt(start + fragment.end) !== QUOTE)
      return;
    // Copies, not slices: a slice would keep the whole run's text alive as long as the stream.
    this.shapeHead = bytes.toString('latin1', start, start + fragment.start);
    this.shapeTail = bytes.toString('latin1', start + fragment.end, end);
    this.shapeKind = fragment.kind;
  }

  /**
   * The output of the continuations kept so far, in order, fragments of one kind in a row joined
   * into one block (for an estimate of output tokens: BPE counts a whole text, not its pieces). A
   * run whose JSON escapes do not decode is given as its raw text, which a token estimate reads
   * about as well.
   */
  continuations(): OutputBlock[] {
    const kept = this.kept;
    const kinds = this.keptKinds;
    const ends = this.keptRunEnds;
    if (!kept || !kinds || !ends) return [];
    const blocks: OutputBlock[] = [];
    let runStart = 0;
    for (let run = 0; run < kinds.length; run += 1) {
      const runEnd = ends[run] as number;
      const escaped = kept.toString('utf8', runStart, runEnd);
      runStart = runEnd;
      let text: string;
      try {
        text = JSON.parse(`"${escaped}"`) as string;
      } catch {
        text = escaped;
      }
      const kind = kinds[run];
      blocks.push(
        kind === 'tool-call'
          ? { type: 'tool-call', id: '', name: '', arguments: text }
          : { type: kind === 'reasoning' ? 'reasoning' : 'text', text },
      );
    }
    return blocks;
  }

  /**
   * Appends bytes `[start, end)` of `bytes`, a fragment of `kind`, to the kept fragments (the
   * buffer doubles as it fills); a fragment of the same kind as the one before extends its run.
   */
  private keep(bytes: Buffer, start: number, end: number, kind: ContinuationFragment['kind']): void {
    const length = end - start;
    let kept = this.kept;
    if (!kept || this.keptLength + length > kept.length) {
      const grown = Buffer.allocUnsafe(Math.max(256, 2 * (this.keptLength + length)));
      if (kept) kept.copy(grown, 0, 0, this.keptLength);
      kept = grown;
      this.kept = grown;
    }
    // A continuation's fragment is a few bytes (a token or two of text): a loop copies them for
    // less than Buffer#copy's own call costs.
    if (length <= SMALL_COPY_BYTES)
      for (let at = 0; at < length; at++) kept[this.keptLength + at] = bytes[start + at] as number;
    else bytes.copy(kept, this.keptLength, start, end);
    this.keptLength += length;
    const kinds = (this.keptKinds ??= []);
    const ends = (this.keptRunEnds ??= []);
    if (kinds.length > 0 && kinds[kinds.length - 1] === kind) ends[ends.length - 1] = this.keptLength;
    else {
      kinds.push(kind);
      ends.push(this.keptLength);
    }
  }
}

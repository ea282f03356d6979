/**
 * Time to first token of the load benchmark: for each streamed shape (Chat pass-through, Anthropic
 * → Chat translated) and each server, sequential streamed requests whose upstream waits
 * TTFT_CHUNK_DELAY_MS before each chunk (`[mock:slow=MS]`), timed from sending the request to the
 * end of the first SSE event that carries generated text (Chat: a `choices[0].delta.content` that
 * is not empty; Anthropic: a `content_block_delta`); each stream is dropped there. The first event
 * of a stream usually carries no text (Chat's role delta, Anthropic's `message_start`), and a
 * gateway may hold it back until text arrives (to fail over while nothing was sent), so the first
 * byte is not the first token. The figure is the p50, and the p50 added over the mock's own (the
 * direct row): what a proxy adds before a client sees the first token. The servers take turns in
 * a random order, each request after a random wait: timed one server after another, the figures
 * drifted apart by up to 1 ms between two runs of the same server.
 */
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { BENCH_MODEL } from './bench-server-contract.ts';
import { shuffledIndexes } from './run-bench-case.ts';
import { median } from './run-load-phase.ts';
import { BENCH_SHAPES, chatBody, MOCK_BEHAVIOUR_PREFIX, type BenchShapeId, type BenchTarget } from './bench-cases.ts';

/** The upstream's wait before each chunk, ms: long enough that the first chunk is a moment of its own. */
export const TTFT_CHUNK_DELAY_MS = 5;

/** One server's time to first token for one shape. */
export interface TimeToFirstTokenRow {
  readonly target: BenchTarget;
  readonly shape: BenchShapeId;
  readonly label: string;
  /** Requests timed (after the warm-up ones). */
  readonly requests: number;
  /** Median time from sending to the first body byte, ms. */
  readonly p50Ms: number;
  /** p50Ms minus the direct row's of the same shape, ms (0 for the direct row). */
  readonly addedP50Ms: number;
}

/** The servers measured, by target: their origins. */
export type TimeToFirstTokenServers = Readonly<Record<BenchTarget, { readonly origin: string }>>;

const PROMPT = `Hello there [mock:slow=${TTFT_CHUNK_DELAY_MS}]`;

/** The streamed request of `shape` whose upstream waits before each chunk. */
function slowStreamBody(shape: BenchShapeId): string {
  if (shape === 'chat-stream') return chatBody(true, PROMPT);
  return JSON.stringify({
    model: BENCH_MODEL,
    messages: [{ role: 'user', content: PROMPT }],
    max_tokens: 64,
    stream: true,
  });
}

/** Whether one SSE event (its text, without the blank line) carries generated text. */
function carriesText(event: string): boolean {
  for (const line of event.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    try {
      const parsed = JSON.parse(data) as { type?: string; choices?: Array<{ delta?: { content?: unknown } }> };
      if (parsed.type === 'content_block_delta') return true;
      const content = parsed.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content !== '') return true;
    } catch {
      // not JSON: not a token
    }
  }
  return false;
}

/** ms from sending one request to the end of its first event with text; the stream is then dropped. @throws on a non-200 answer or a stream without text */
async function timeOne(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<number> {
  const started = performance.now();
  const answer = await request(url, { method: 'POST', headers, body });
  if (answer.statusCode !== 200) {
    const text = await answer.body.text();
    throw new Error(`${url} answered ${answer.statusCode}: ${text.slice(0, 200)}`);
  }
  let buffered = '';
  for await (const chunk of answer.body) {
    buffered += (chunk as Buffer).toString('utf8').replace(/\r\n/g, '\n');
    let end = buffered.indexOf('\n\n');
    while (end !== -1) {
      if (carriesText(buffered.slice(0, end))) {
        const elapsed = performance.now() - started;
        answer.body.destroy();
        return elapsed;
      }
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf('\n\n');
    }
  }
  throw new Error(`${url} ended its stream without an event carrying text`);
}

/** Longest random wait before each timed request, ms (see `waitRandomPhase`). */
const PHASE_SPREAD_MS = 2;
const PHASE_CELL = new Int32Array(new SharedArrayBuffer(4));

/**
 * Blocks this thread for a random 0–PHASE_SPREAD_MS ms. The mock's chunk delays are libuv timers
 * of millisecond resolution (https://nodejs.org/api/timers.html#settimeoutcallback-delay-args:
 * "the callback will be called as close as possible to the time specified"), so back-to-back
 * requests fall on the same phase of the millisecond and a proxy that adds 0.1 ms can shift every
 * first token by a whole one; a random start spreads the phase evenly for every server.
 */
function waitRandomPhase(): void {
  Atomics.wait(PHASE_CELL, 0, 0, Math.random() * PHASE_SPREAD_MS);
}

/**
 * Measures every streamed shape on every server in `servers`: `warmup` untimed requests to each,
 * then `requests` rounds, each timing one request to every server (the mock's own, the baseline,
 * among them) in a random order (so no server always follows the same one), one request at a time, each after a
 * random wait (`waitRandomPhase`). Interleaving keeps a drift of the machine or of the mock's
 * timers out of the differences between servers.
 * @throws Error when a server answers a request with anything but a 200 stream
 */
export async function measureTimeToFirstToken(
  servers: TimeToFirstTokenServers,
  requests = 600,
  warmup = 20,
): Promise<TimeToFirstTokenRow[]> {
  const rows: TimeToFirstTokenRow[] = [];
  const targets = ['mock', 'floor', 'gateway', 'embedded'] as const;
  for (const shape of BENCH_SHAPES.filter((s) => s.stream)) {
    const body = slowStreamBody(shape.id);
    const urls = targets.map(
      (target) => `${servers[target].origin}${target === 'mock' ? MOCK_BEHAVIOUR_PREFIX : ''}${shape.path}`,
    );
    for (const url of urls) for (let i = 0; i < warmup; i += 1) await timeOne(url, shape.headers, body);
    const times = targets.map((): number[] => []);
    for (let round = 0; round < requests; round += 1) {
      for (const index of shuffledIndexes(targets.length)) {
        waitRandomPhase();
        times[index]?.push(await timeOne(urls[index] as string, shape.headers, body));
      }
    }
    const p50s = times.map((t) => median(t));
    const directP50 = p50s[0] as number;
    targets.forEach((target, index) => {
      const p50Ms = p50s[index] as number;
      rows.push({
        target,
        shape: shape.id,
        label: shape.label,
        requests,
        p50Ms: Number(p50Ms.toFixed(3)),
        addedP50Ms: Number((p50Ms - directP50).toFixed(3)),
      });
    });
  }
  return rows;
}

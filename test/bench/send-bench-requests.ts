/**
 * Sends an exact number of requests with bounded concurrency (the pipeline case needs a known
 * count of requests, hence rows, rather than autocannon's fixed duration). Every answer must be
 * 200; its body is read to the end.
 */
import { Agent, request } from 'undici';

/** What to send, how many times, how many at once. */
export interface SendOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly count: number;
  readonly concurrency: number;
}

/** A finished send. */
export interface SendResult {
  readonly sent: number;
  /** Wall time from the first request written to the last answer read, ms. */
  readonly elapsedMs: number;
}

/**
 * Sends `count` POSTs to `url`, at most `concurrency` in flight.
 * @throws Error naming the first failure and how many failed, when any answer is not 200 or any request errors
 */
export async function sendBenchRequests(options: SendOptions): Promise<SendResult> {
  const dispatcher = new Agent({ connections: options.concurrency, keepAliveTimeout: 30_000 });
  let next = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const worker = async (): Promise<void> => {
    while (next < options.count) {
      next += 1;
      try {
        const answer = await request(options.url, {
          method: 'POST',
          headers: { ...options.headers },
          body: options.body,
          dispatcher,
        });
        const text = await answer.body.text();
        if (answer.statusCode !== 200) throw new Error(`answered ${answer.statusCode}: ${text.slice(0, 300)}`);
      } catch (error) {
        failed += 1;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  const startedAt = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, worker));
  } finally {
    await dispatcher.close();
  }
  if (failed > 0)
    throw new Error(
      `${options.url}: ${failed} of ${options.count} requests failed (first: ${firstFailure ?? 'unknown'})`,
    );
  return { sent: options.count, elapsedMs: performance.now() - startedAt };
}

/**
 * The write signal between the embedded server's threads (file-log-write-signal.ts): a wake-up
 * names the topics written since the previous one, so a subscription to a topic nobody wrote is
 * not woken to read its files again; no write is ever missed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  announceWrites,
  createFileLogWriteSignal,
  topicSlot,
  TOPIC_SLOTS,
  watchWrites,
  type TopicsWritten,
} from '../../../infra/event-log/file/file-log-write-signal.ts';

const REQUESTS = 'tollgate.requests';
const USAGE = 'tollgate.usage';
const CONFIG = 'tollgate.config';

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** Resolves with the next wake-up's topics. */
function nextWake(watcher: ReturnType<typeof watchWrites>): Promise<TopicsWritten | undefined> {
  return new Promise((resolve) => {
    const off = watcher.onWritten((topics) => {
      off();
      resolve(topics);
    });
  });
}

describe('file log write signal', () => {
  it('hashes the traffic and config topics to distinct slots within 1 … TOPIC_SLOTS', () => {
    const slots = [REQUESTS, USAGE, CONFIG, 'tollgate.failovers', 'tollgate.alerts'].map(topicSlot);
    expect(new Set(slots).size).toBe(slots.length);
    for (const slot of slots) expect(slot >= 1 && slot <= TOPIC_SLOTS).toBe(true);
  });

  it('reports the topics written since the last wake-up and not the others', async () => {
    const signal = createFileLogWriteSignal();
    const writer = announceWrites(signal);
    const watcher = watchWrites(signal);
    closers.push(
      () => writer.close(),
      () => watcher.close(),
    );

    let wake = nextWake(watcher);
    writer.written([REQUESTS, USAGE]);
    let topics = await wake;
    expect([REQUESTS, USAGE, CONFIG].map((topic) => topics?.has(topic))).toEqual([true, true, false]);

    wake = nextWake(watcher);
    writer.written([CONFIG]);
    topics = await wake;
    expect([REQUESTS, USAGE, CONFIG].map((topic) => topics?.has(topic))).toEqual([false, false, true]);
  });

  it('misses no topic among writes closer together than one wake-up', async () => {
    const signal = createFileLogWriteSignal();
    const writer = announceWrites(signal);
    const watcher = watchWrites(signal);
    closers.push(
      () => writer.close(),
      () => watcher.close(),
    );
    const seen = new Set<string>();
    watcher.onWritten((topics) => {
      for (const topic of [REQUESTS, USAGE, CONFIG]) if (topics?.has(topic)) seen.add(topic);
    });
    writer.written([REQUESTS]);
    writer.written([USAGE]);
    writer.written([CONFIG]);
    const deadline = Date.now() + 3000;
    while (seen.size < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect([...seen].sort()).toEqual([CONFIG, REQUESTS, USAGE].sort());
  });
});

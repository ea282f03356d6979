import { describe, expect, it } from 'vitest';
import { makeUsage } from '../../../gateway/canonical/usage.ts';
import { buildTrafficEvents } from '../../../gateway/events/build-traffic-events.ts';
import { publishTrafficEvents } from '../../../gateway/events/traffic-event-publisher.ts';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import type { EventLog, LogRecord } from '../../../schemas/event-log/event-log.ts';
import { decodeTrafficEvent } from '../../../schemas/events/traffic-event-codec.ts';
import type { TrafficEvent } from '../../../schemas/events/traffic-events.ts';
import { TOPICS } from '../../../schemas/topics.ts';

/** An EventLog that records what is published; `failOn` makes publish throw for one topic. */
function recordingLog(failOn?: string): EventLog & { readonly records: LogRecord[] } {
  const records: LogRecord[] = [];
  return {
    records,
    publish(record) {
      if (record.topic === failOn) throw new Error(`log refused ${record.topic}`);
      records.push(record);
    },
    flush: async () => {},
    endOffsets: async () => [],
    subscribe: async () => ({ stop: async () => {} }),
    status: () => ({ pending: 0, spooled: 0, connected: true }),
    close: async () => {},
  };
}

const outcome: ExchangeOutcome = {
  requestId: 'req_9',
  keyId: 'key_a',
  userId: null,
  clientFormat: 'gemini',
  model: 'gemini-2.5-pro',
  stream: true,
  status: 'completed',
  httpStatus: 200,
  channelId: 'ch-2',
  provider: 'google',
  upstreamModel: 'gemini-2.5-pro',
  passThrough: true,
  attempts: 2,
  failovers: [
    { channelId: 'ch-1', errorKind: 'upstream-unavailable', upstreamStatus: 502, latencyMs: 9, nextChannelId: 'ch-2' },
  ],
  usage: makeUsage({ inputTotal: 11, outputTotal: 22 }),
  latencyMs: 300,
  ttfbMs: 50,
};

describe('publishTrafficEvents', () => {
  it('routes each event to its topic, keyed by request id, Avro encoded, in order', () => {
    const log = recordingLog();
    const events = buildTrafficEvents(outcome, { keyId: 'key_a', userId: null }, 1_000);
    publishTrafficEvents(log, events);
    expect(log.records.map((r) => [r.topic, r.key])).toEqual([
      [TOPICS.failovers, 'req_9'],
      [TOPICS.usage, 'req_9'],
      [TOPICS.requests, 'req_9'],
    ]);
    expect(log.records.map((r) => decodeTrafficEvent(r.value))).toStrictEqual(events);
  });

  it('never throws: an unencodable event and a failing log are reported, the rest still published', () => {
    const log = recordingLog(TOPICS.usage);
    const events = buildTrafficEvents(outcome, { keyId: 'key_a', userId: null }, 1_000);
    const broken = {
      type: 'FailoverOccurred',
      event: { ...events[0]?.event, latencyMs: Number.NaN },
    } as unknown as TrafficEvent;
    const errors: Array<[string, string]> = [];
    expect(() =>
      publishTrafficEvents(log, [broken, ...events], (error, event) => errors.push([event.type, error.message])),
    ).not.toThrow();
    expect(errors.map(([type]) => type)).toEqual(['FailoverOccurred', 'UsageRecorded']);
    expect(errors[1]?.[1]).toBe('log refused tollgate.usage');
    expect(log.records.map((r) => r.topic)).toEqual([TOPICS.failovers, TOPICS.requests]);
  });

  it('swallows errors when no callback is given, and a throwing callback', () => {
    const log = recordingLog(TOPICS.requests);
    const events = buildTrafficEvents(outcome, { keyId: 'key_a', userId: null }, 1_000);
    expect(() => publishTrafficEvents(log, events)).not.toThrow();
    expect(() =>
      publishTrafficEvents(log, events, () => {
        throw new Error('reporter down');
      }),
    ).not.toThrow();
    expect(log.records.map((r) => r.topic)).toEqual([TOPICS.failovers, TOPICS.usage, TOPICS.failovers, TOPICS.usage]);
  });
});

/**
 * `tollgate events` on both engine sets (embedded: the file log in a temp data dir; production:
 * Kafka under a topic prefix of its own): every filter selects exactly the expected events, the
 * output is JSON lines without secrets, undecodable records go to stderr, the read stops at the
 * end the topics had when it started (or follows), and the consumer group it used is removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlEvent } from '../../../schemas/control-plane/control-plane-events.ts';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { TOPICS, CONFIG_TOPIC } from '../../../schemas/topics.ts';
import { openEventLog, type EngineSettings } from '../../../infra/open-adapters.ts';
import { isolatedEngineSettings, ENGINE_SETS, type EngineSet } from '../../support/pipeline-harness.ts';
import {
  failoverOccurred,
  leftoverGroups,
  priceSet,
  publishControl,
  publishTraffic,
  requestCompleted,
  runCommand,
  usageRecorded,
  type RequestSpec,
} from './audit-traffic.ts';

const DIGEST = 'd1g3st'.repeat(10);
const CIPHERTEXT = 'c1ph3rt3xt-base64==';
const PASSWORD_HASH = 'scrypt$16384$8$1$salt$hash-never-printed';

const R1: RequestSpec = { requestId: 'req-1', keyId: 'key-a', occurredAt: Date.parse('2025-03-01T10:00:00Z') };
const R2: RequestSpec = { requestId: 'req-2', keyId: 'key-b', occurredAt: Date.parse('2025-03-02T10:00:00Z') };
const R3: RequestSpec = { requestId: 'req-3', keyId: 'key-a', occurredAt: Date.parse('2025-03-03T10:00:00Z') };

const header = { occurredAt: Date.parse('2025-02-01T00:00:00Z'), actor: 'admin' };
const CONTROL: ControlEvent[] = [
  {
    type: 'KeyCreated',
    event: {
      ...header,
      eventId: 'kc-key-a',
      keyId: 'key-a',
      publicId: 'pub-a',
      digest: DIGEST,
      name: 'audited key',
      userId: null,
      rpm: null,
      tpm: null,
      quotaNanoUsd: null,
      expiresAt: null,
      models: null,
    },
  },
  {
    type: 'UserCredentialsSet',
    event: { ...header, eventId: 'uc-usr-1', userId: 'usr-1', login: 'ada', passwordHash: PASSWORD_HASH },
  },
  {
    type: 'ChannelUpserted',
    event: {
      ...header,
      eventId: 'cu-ch-audit',
      rpm: null,
      tpm: null,
      channelId: 'ch-audit',
      provider: 'mock',
      protocol: 'openai-chat',
      baseUrl: null,
      apiKeyCiphertext: CIPHERTEXT,
      models: ['audit-model'],
      modelMap: {},
      priority: 0,
      weight: 1,
      enabled: true,
      timeoutMs: 30_000,
      mock: null,
    },
  },
  priceSet('price-1', 'audit-model', 1, 2),
];

/** Event ids of the JSON lines, after checking each line's shape. */
function eventIds(lines: ReadonlyArray<string>): string[] {
  return lines.map((line) => {
    const parsed = JSON.parse(line) as {
      topic: unknown;
      partition: unknown;
      offset: unknown;
      timestamp: unknown;
      type: unknown;
      event: { eventId: string };
    };
    expect(Object.keys(parsed)).toEqual(['topic', 'partition', 'offset', 'timestamp', 'type', 'event']);
    expect(typeof parsed.topic).toBe('string');
    expect(typeof parsed.partition).toBe('number');
    expect(parsed.offset).toMatch(/^\d+$/);
    expect(typeof parsed.timestamp).toBe('number');
    return parsed.event.eventId;
  });
}

const sorted = (ids: string[]): string[] => [...ids].sort();

describe.each<EngineSet>(ENGINE_SETS)('tollgate events on %s engines', (engines) => {
  let settings: EngineSettings;
  let log: EventLog;

  beforeAll(async () => {
    settings = await isolatedEngineSettings(engines);
    log = openEventLog(settings);
    publishTraffic(log, [
      requestCompleted(R1),
      usageRecorded(R1),
      requestCompleted(R2),
      failoverOccurred(R2),
      requestCompleted(R3),
      usageRecorded(R3),
    ]);
    publishControl(log, CONTROL);
    log.publish({ topic: CONFIG_TOPIC, key: 'sync:test:1', value: Buffer.alloc(0) });
    log.publish({ topic: TOPICS.requests, key: 'req-garbage', value: Buffer.from('not avro at all') });
    await log.flush();
  }, 60_000);

  afterAll(async () => {
    await log?.close();
  });

  it('prints every event once as a JSON line, without secrets, and reports the undecodable record', async () => {
    const run = await runCommand(settings, ['events']);
    expect(run.code).toBe(0);
    expect(sorted(eventIds(run.stdout))).toEqual(
      sorted([
        'rc-req-1',
        'ur-req-1',
        'rc-req-2',
        'fo-req-2',
        'rc-req-3',
        'ur-req-3',
        'kc-key-a',
        'uc-usr-1',
        'cu-ch-audit',
        'ps-price-1',
      ]),
    );
    const text = run.stdout.join('\n');
    for (const secret of [DIGEST, CIPHERTEXT, PASSWORD_HASH, '"digest"', '"apiKeyCiphertext"', '"passwordHash"'])
      expect(text).not.toContain(secret);
    expect(run.stderr.filter((line) => line.startsWith('undecodable record tollgate.requests'))).toHaveLength(1);
    const channel = run.stdout
      .map((line) => JSON.parse(line) as { type: string; event: Record<string, unknown> })
      .find((line) => line.type === 'ChannelUpserted');
    expect(channel?.event).toMatchObject({ channelId: 'ch-audit', models: ['audit-model'] });
  });

  it.each<[string, string[], string[]]>([
    ['--topic requests', ['--topic', 'requests'], ['rc-req-1', 'rc-req-2', 'rc-req-3']],
    [
      '--topic usage --topic <full failovers name>',
      ['--topic', 'usage', '--topic', TOPICS.failovers],
      ['ur-req-1', 'ur-req-3', 'fo-req-2'],
    ],
    ['--topic config', ['--topic', 'config'], ['kc-key-a', 'uc-usr-1', 'cu-ch-audit', 'ps-price-1']],
    [
      '--from/--to (from inclusive, to exclusive)',
      ['--from', '2025-03-02T10:00:00Z', '--to', '2025-03-03T10:00:00Z'],
      ['rc-req-2', 'fo-req-2'],
    ],
    ['--request-id', ['--request-id', 'req-3'], ['rc-req-3', 'ur-req-3']],
    ['--key-id', ['--key-id', 'key-a'], ['rc-req-1', 'ur-req-1', 'rc-req-3', 'ur-req-3', 'kc-key-a']],
    ['--type (twice)', ['--type', 'UsageRecorded', '--type', 'PriceSet'], ['ur-req-1', 'ur-req-3', 'ps-price-1']],
    [
      'filters combined with AND',
      ['--key-id', 'key-a', '--type', 'RequestCompleted', '--from', '2025-03-02'],
      ['rc-req-3'],
    ],
  ])('selects exactly the expected events: %s', async (_name, args, expected) => {
    const run = await runCommand(settings, ['events', ...args]);
    expect(run.code).toBe(0);
    expect(sorted(eventIds(run.stdout))).toEqual(sorted(expected));
  });

  it('takes a full topic name with the deployment prefix', async () => {
    const run = await runCommand(settings, ['events', '--topic', `${settings.topicPrefix ?? ''}${TOPICS.failovers}`]);
    expect(run.code).toBe(0);
    expect(eventIds(run.stdout)).toEqual(['fo-req-2']);
  });

  it('rejects bad flags, unknown topics and types, and malformed or impossible dates with exit code 2, naming the valid values', async () => {
    const cases: Array<[string[], string, RegExp]> = [
      [['--from', 'yesterday'], '--from', /2025-01-31T12:00:00Z/],
      [['--to', '2025-13-45'], '--to', /2025-01-31/],
      [['--from', '2025-02-30'], '--from', /2025-01-31/],
      [['--to', '2025-03-01T24:00:00Z'], '--to', /2025-01-31/],
      [['--type', 'RequestFinished'], '--type', /RequestCompleted, UsageRecorded, FailoverOccurred.*PriceSet/],
      [
        ['--topic', 'request'],
        '--topic',
        /"request" \(one of requests, usage, failovers, alerts, config, tollgate\.requests, tollgate\.usage, tollgate\.failovers, tollgate\.alerts, tollgate\.config\)/,
      ],
      [['--topic', 'tollgate.request'], '--topic', /one of requests/],
      [['--topic', 'no such/topic'], '--topic', /one of requests/],
      [['--colour', 'red'], '--colour', /--colour/],
    ];
    for (const [args, flag, valid] of cases) {
      const run = await runCommand(settings, ['events', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr[0], args.join(' ')).toContain(flag);
      expect(run.stderr[0], args.join(' ')).toMatch(valid);
      expect(run.stdout).toEqual([]);
    }
    expect(await leftoverGroups(settings, '')).toEqual([]);
  });

  it('follows new events until stopped, and removes the consumer groups it used', async () => {
    const stop = new AbortController();
    const late: RequestSpec = { requestId: 'req-late', keyId: 'key-a', occurredAt: Date.parse('2025-03-04T10:00:00Z') };
    let seenLate: () => void = () => {};
    const lateSeen = new Promise<void>((resolve) => (seenLate = resolve));
    const following = runCommand(settings, ['events', '--follow', '--topic', 'requests'], stop.signal, (line) => {
      if (line.includes('"rc-req-late"')) seenLate();
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    publishTraffic(log, [requestCompleted(late)]);
    await log.flush();
    await lateSeen;
    stop.abort();
    const run = await following;
    expect(run.code).toBe(0);
    expect(sorted(eventIds(run.stdout))).toEqual(sorted(['rc-req-1', 'rc-req-2', 'rc-req-3', 'rc-req-late']));
    // Without --follow, the read ends at the end of each topic as it is now.
    const once = await runCommand(settings, ['events', '--request-id', 'req-late']);
    expect(eventIds(once.stdout)).toEqual(['rc-req-late']);
    expect(await leftoverGroups(settings, 'tollgate.events.')).toEqual([]);
    expect(await leftoverGroups(settings, '')).toEqual([]);
  }, 60_000);
});

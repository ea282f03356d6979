import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { schemaFingerprint64 } from '../../../schemas/events/rabin-fingerprint.ts';
import {
  decodeTrafficEvent,
  encodeTrafficEvent,
  trafficEventKey,
} from '../../../schemas/events/traffic-event-codec.ts';
import type {
  FailoverOccurred,
  RequestCompleted,
  TrafficEvent,
  UsageRecorded,
} from '../../../schemas/events/traffic-events.ts';
import { requestCompletedSchema } from '../../../schemas/events/avro-schemas.ts';

const requestCompleted: RequestCompleted = {
  eventId: '7f1d6c2e-4a8b-4c1e-9d0a-1b2c3d4e5f60',
  occurredAt: 1_767_225_600_123,
  requestId: 'req_01',
  keyId: 'key_a',
  userId: 'user_ü',
  clientFormat: 'anthropic-messages',
  model: 'claude-sonnet-4-5',
  channelId: 'ch-1',
  provider: 'anthropic',
  upstreamModel: 'claude-sonnet-4-5-20250929',
  stream: true,
  passThrough: true,
  status: 'cancelled',
  httpStatus: 499,
  errorKind: 'upstream-timeout',
  latencyMs: 2_345,
  ttfbMs: 180,
  attempts: 2,
  usage: {
    inputTokens: 1_234_567,
    cachedInputTokens: 1_000,
    cacheWriteTokens: 200,
    outputTokens: 1_099_511_627_776,
    reasoningTokens: 12,
    usageSource: 'partial',
  },
  priceRevision: 42,
  upstreamRequestId: 'req_011CSHoEeqs5C35K2UUqR7Fy',
  startedAt: 1_767_225_597_778,
  teamId: 'team_0123456789abcdef',
  endUserId: 'end-user-ü-42',
  tags: ['feature=search', 'env=prod'],
  operation: 'generation',
  modelChain: [],
  answeredModel: null,
  affinity: '',
  credentialId: null,
  credentialRotations: 0,
  cacheWrite1hTokens: 0,
};

const requestCompletedNulls: RequestCompleted = {
  ...requestCompleted,
  userId: null,
  channelId: null,
  provider: null,
  upstreamModel: null,
  stream: false,
  passThrough: false,
  status: 'failed',
  httpStatus: 404,
  errorKind: null,
  ttfbMs: null,
  attempts: 0,
  teamId: null,
  endUserId: null,
  tags: [],
  usage: {
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    usageSource: 'reported',
  },
};

const usageRecorded: UsageRecorded = {
  eventId: 'u-1',
  occurredAt: 1_767_225_600_124,
  requestId: 'req_01',
  keyId: 'key_a',
  userId: null,
  model: 'gpt-5',
  upstreamModel: 'deepseek-v4-flash',
  channelId: 'ch-2',
  provider: 'deepseek',
  inputTokens: 10,
  cachedInputTokens: 4,
  cacheWriteTokens: 0,
  outputTokens: 7,
  reasoningTokens: 3,
  usageSource: 'estimated',
  priceRevision: null,
  teamId: 'team_0123456789abcdef',
  endUserId: 'end-user-1',
  tags: ['feature=search'],
  budgetCounters: [
    { budgetId: 'bgt_0123456789abcdef', windowStartMs: 1_767_139_200_000, windowEndMs: 1_767_225_600_000 },
    { budgetId: 'bgt_fedcba9876543210', windowStartMs: 0, windowEndMs: null },
  ],
  operation: 'generation',
  cacheWrite1hTokens: 0,
};

/** What a reader fills in for the attribution of an event written before it existed. */
const NO_ATTRIBUTION_DEFAULTS = { teamId: null, endUserId: null, tags: [] } as const;

const failover: FailoverOccurred = {
  eventId: 'f-1',
  occurredAt: 1_767_225_600_000,
  requestId: 'req_01',
  keyId: 'key_a',
  model: 'gpt-5',
  channelId: 'ch-1',
  errorKind: 'upstream-rate-limited',
  upstreamStatus: 429,
  latencyMs: 35,
  retryAfterMs: 30_000,
  nextChannelId: 'ch-2',
};

const ROUND_TRIPS: ReadonlyArray<readonly [string, TrafficEvent]> = [
  ['RequestCompleted, every field set', { type: 'RequestCompleted', event: requestCompleted }],
  ['RequestCompleted, every nullable null', { type: 'RequestCompleted', event: requestCompletedNulls }],
  ['UsageRecorded', { type: 'UsageRecorded', event: usageRecorded }],
  [
    'UsageRecorded, reported with userId',
    { type: 'UsageRecorded', event: { ...usageRecorded, userId: 'u', usageSource: 'reported' } },
  ],
  [
    'UsageRecorded, without attribution nor budget counters',
    { type: 'UsageRecorded', event: { ...usageRecorded, ...NO_ATTRIBUTION_DEFAULTS, budgetCounters: [] } },
  ],
  ['FailoverOccurred, every field set', { type: 'FailoverOccurred', event: failover }],
  [
    'FailoverOccurred, nulls',
    { type: 'FailoverOccurred', event: { ...failover, upstreamStatus: null, retryAfterMs: null, nextChannelId: null } },
  ],
];

function header(value: Buffer): string {
  return value.toString('hex', 0, 10);
}

describe('traffic event codec', () => {
  it.each(ROUND_TRIPS)('round-trips %s into plain objects', (_name, event) => {
    const encoded = encodeTrafficEvent(event);
    const decoded = decodeTrafficEvent(encoded);
    expect(decoded).toStrictEqual(event);
  });

  it('writes C3 01 then the little-endian CRC-64-AVRO of the schema, then the Avro body', () => {
    const encoded = encodeTrafficEvent({ type: 'RequestCompleted', event: requestCompleted });
    expect(encoded[0]).toBe(0xc3);
    expect(encoded[1]).toBe(0x01);
    expect(encoded.readBigUInt64LE(2)).toBe(schemaFingerprint64(requestCompletedSchema));
    const body = avro.Type.forSchema(requestCompletedSchema as unknown as avro.Schema, { wrapUnions: false }).toBuffer(
      requestCompleted,
    );
    expect(encoded.subarray(10).equals(body)).toBe(true);
    const failoverHeader = header(encodeTrafficEvent({ type: 'FailoverOccurred', event: failover }));
    const usageHeader = header(encodeTrafficEvent({ type: 'UsageRecorded', event: usageRecorded }));
    expect(new Set([header(encoded), failoverHeader, usageHeader]).size).toBe(3);
  });

  it('encodes an event larger than its scratch buffer, and the small ones after it, byte for byte', () => {
    const type = avro.Type.forSchema(requestCompletedSchema as unknown as avro.Schema, { wrapUnions: false });
    const large: RequestCompleted = {
      ...requestCompleted,
      tags: Array.from({ length: 400 }, (_, i) => `tag-${i}=${'x'.repeat(60)}`),
    };
    const huge: RequestCompleted = {
      ...requestCompleted,
      tags: Array.from({ length: 1200 }, (_, i) => `tag-${i}=${'y'.repeat(60)}`),
    };
    expect(type.toBuffer(huge).length).toBeGreaterThan(64 * 1024);
    for (const event of [requestCompleted, large, requestCompleted, huge, large, requestCompleted]) {
      const encoded = encodeTrafficEvent({ type: 'RequestCompleted', event });
      expect(encoded.subarray(10).equals(type.toBuffer(event))).toBe(true);
      expect(decodeTrafficEvent(encoded)).toStrictEqual({ type: 'RequestCompleted', event });
    }
    expect(type.toBuffer(large).length).toBeGreaterThan(8192 * 2);
  });

  it('keys every event by its request id', () => {
    for (const [, event] of ROUND_TRIPS) expect(trafficEventKey(event)).toBe('req_01');
  });

  it('rejects a value without the single-object marker', () => {
    const good = encodeTrafficEvent({ type: 'UsageRecorded', event: usageRecorded });
    const bad = Buffer.from(good);
    bad[0] = 0x4f;
    expect(() => decodeTrafficEvent(bad)).toThrow(/not an Avro single-object message: expected marker c301/);
    expect(() => decodeTrafficEvent(Buffer.from('{"json":true}'))).toThrow(/not an Avro single-object message/);
    expect(() => decodeTrafficEvent(Buffer.from([0xc3, 0x01, 0x00]))).toThrow(/10-byte header.*3 bytes/);
    expect(() => decodeTrafficEvent(Buffer.alloc(0))).toThrow(/got nothing/);
  });

  it('rejects an unknown writer fingerprint, naming it', () => {
    const good = encodeTrafficEvent({ type: 'UsageRecorded', event: usageRecorded });
    const unknown = Buffer.concat([Buffer.from('c3010123456789abcdef', 'hex'), good.subarray(10)]);
    expect(() => decodeTrafficEvent(unknown)).toThrow(/unknown writer schema fingerprint 0123456789abcdef/);
  });

  it('rejects a truncated body and trailing bytes', () => {
    const good = encodeTrafficEvent({ type: 'FailoverOccurred', event: failover });
    expect(() => decodeTrafficEvent(good.subarray(0, good.length - 3))).toThrow(
      /cannot decode FailoverOccurred \(writer version current/,
    );
    expect(() => decodeTrafficEvent(Buffer.concat([good, Buffer.from([0])]))).toThrow(/cannot decode FailoverOccurred/);
  });

  it('refuses to encode a value that does not fit the schema', () => {
    const fractional = { type: 'FailoverOccurred', event: { ...failover, latencyMs: 1.5 } } as const;
    expect(() => encodeTrafficEvent(fractional)).toThrow();
    const badEnum = {
      type: 'UsageRecorded',
      event: { ...usageRecorded, usageSource: 'guessed' },
    } as unknown as TrafficEvent;
    expect(() => encodeTrafficEvent(badEnum)).toThrow();
  });
});

/** A RequestCompleted as a writer older than v4 had it: without upstreamRequestId (nor startedAt, nor the attribution). */
function withoutUpstreamRequestId(
  event: RequestCompleted,
): Omit<RequestCompleted, 'upstreamRequestId' | 'startedAt' | AttributionField> {
  const { upstreamRequestId: _u, ...older } = withoutStartedAt(event);
  return older;
}

/** A RequestCompleted as a v4 writer had it: without startedAt (nor the attribution). */
function withoutStartedAt(event: RequestCompleted): Omit<RequestCompleted, 'startedAt' | AttributionField> {
  const { startedAt: _s, ...older } = withoutAttribution(event);
  return older;
}

/** The fields the attribution added: RequestCompleted v6, UsageRecorded v3. */
type AttributionField = 'teamId' | 'endUserId' | 'tags';

/** A RequestCompleted as a v5 writer had it: without teamId, endUserId and tags. */
function withoutAttribution(event: RequestCompleted): Omit<RequestCompleted, AttributionField> {
  const { teamId: _t, endUserId: _e, tags: _g, ...older } = event;
  return older;
}

/** A UsageRecorded as a v2 writer had it: without teamId, endUserId, tags and budgetCounters. */
function usageWithoutAttribution(event: UsageRecorded): Omit<UsageRecorded, AttributionField | 'budgetCounters'> {
  const { teamId: _t, endUserId: _e, tags: _g, budgetCounters: _b, ...older } = event;
  return older;
}

/** A single-object message of `value` written with the history file `file`'s schema. */
function writtenWith(file: string, value: unknown): Buffer {
  const schema: unknown = JSON.parse(
    readFileSync(fileURLToPath(new URL(`../../../schemas/events/avro/history/${file}`, import.meta.url)), 'utf8'),
  );
  const fingerprint = Buffer.alloc(8);
  fingerprint.writeBigUInt64LE(schemaFingerprint64(schema));
  const type = avro.Type.forSchema(schema as avro.Schema, { wrapUnions: false });
  return Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprint, type.toBuffer(value)]);
}

describe('schema evolution', () => {
  const v1Schema: unknown = JSON.parse(
    readFileSync(
      fileURLToPath(new URL('../../../schemas/events/avro/history/request-completed.v1.avsc', import.meta.url)),
      'utf8',
    ),
  );

  it('decodes a RequestCompleted written with v1 (no passThrough, no ttfbMs) with their defaults', () => {
    const {
      passThrough: _p,
      ttfbMs: _t,
      priceRevision: _r,
      upstreamRequestId: _u,
      startedAt: _s,
      ...v1Value
    } = withoutAttribution(requestCompleted);
    const v1Type = avro.Type.forSchema(v1Schema as avro.Schema, { wrapUnions: false });
    const fingerprint = Buffer.alloc(8);
    fingerprint.writeBigUInt64LE(schemaFingerprint64(v1Schema));
    const message = Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprint, v1Type.toBuffer(v1Value)]);
    expect(
      fingerprint.equals(encodeTrafficEvent({ type: 'RequestCompleted', event: requestCompleted }).subarray(2, 10)),
    ).toBe(false);

    const decoded = decodeTrafficEvent(message);
    expect(decoded).toStrictEqual({
      type: 'RequestCompleted',
      event: {
        ...requestCompleted,
        passThrough: false,
        ttfbMs: null,
        priceRevision: null,
        upstreamRequestId: null,
        startedAt: null,
        ...NO_ATTRIBUTION_DEFAULTS,
      },
    });
  });

  it.each([
    ['RequestCompleted', 'request-completed.v2.avsc'],
    ['UsageRecorded', 'usage-recorded.v1.avsc'],
  ] as const)('decodes a %s written before priceRevision existed with priceRevision null', (type, file) => {
    const oldSchema: unknown = JSON.parse(
      readFileSync(fileURLToPath(new URL(`../../../schemas/events/avro/history/${file}`, import.meta.url)), 'utf8'),
    );
    const event = type === 'RequestCompleted' ? requestCompleted : usageRecorded;
    const { priceRevision: _r, ...oldValue } =
      type === 'RequestCompleted' ? withoutUpstreamRequestId(requestCompleted) : usageWithoutAttribution(usageRecorded);
    const fingerprint = Buffer.alloc(8);
    fingerprint.writeBigUInt64LE(schemaFingerprint64(oldSchema));
    const oldType = avro.Type.forSchema(oldSchema as avro.Schema, { wrapUnions: false });
    const message = Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprint, oldType.toBuffer(oldValue)]);
    expect(decodeTrafficEvent(message)).toStrictEqual({
      type,
      event: {
        ...event,
        priceRevision: null,
        ...NO_ATTRIBUTION_DEFAULTS,
        ...(type === 'RequestCompleted' ? { upstreamRequestId: null, startedAt: null } : { budgetCounters: [] }),
      },
    });
  });

  it('decodes a RequestCompleted written with v3 (before upstreamRequestId) with upstreamRequestId null', () => {
    const v3Schema: unknown = JSON.parse(
      readFileSync(
        fileURLToPath(new URL('../../../schemas/events/avro/history/request-completed.v3.avsc', import.meta.url)),
        'utf8',
      ),
    );
    const fingerprint = Buffer.alloc(8);
    fingerprint.writeBigUInt64LE(schemaFingerprint64(v3Schema));
    const v3Type = avro.Type.forSchema(v3Schema as avro.Schema, { wrapUnions: false });
    const message = Buffer.concat([
      Buffer.from([0xc3, 0x01]),
      fingerprint,
      v3Type.toBuffer(withoutUpstreamRequestId(requestCompleted)),
    ]);
    expect(
      fingerprint.equals(encodeTrafficEvent({ type: 'RequestCompleted', event: requestCompleted }).subarray(2, 10)),
    ).toBe(false);
    expect(decodeTrafficEvent(message)).toStrictEqual({
      type: 'RequestCompleted',
      event: { ...requestCompleted, upstreamRequestId: null, startedAt: null, ...NO_ATTRIBUTION_DEFAULTS },
    });
  });

  it('decodes a RequestCompleted written with v4 (before startedAt and usage source none) with startedAt null', () => {
    const v4Schema: unknown = JSON.parse(
      readFileSync(
        fileURLToPath(new URL('../../../schemas/events/avro/history/request-completed.v4.avsc', import.meta.url)),
        'utf8',
      ),
    );
    const fingerprint = Buffer.alloc(8);
    fingerprint.writeBigUInt64LE(schemaFingerprint64(v4Schema));
    const v4Type = avro.Type.forSchema(v4Schema as avro.Schema, { wrapUnions: false });
    const message = Buffer.concat([
      Buffer.from([0xc3, 0x01]),
      fingerprint,
      v4Type.toBuffer(withoutStartedAt(requestCompleted)),
    ]);
    expect(
      fingerprint.equals(encodeTrafficEvent({ type: 'RequestCompleted', event: requestCompleted }).subarray(2, 10)),
    ).toBe(false);
    expect(decodeTrafficEvent(message)).toStrictEqual({
      type: 'RequestCompleted',
      event: { ...requestCompleted, startedAt: null, ...NO_ATTRIBUTION_DEFAULTS },
    });
    // v4 knew no usage source `none`: a v4 writer cannot produce it, the current schema can.
    expect(() =>
      v4Type.toBuffer(
        withoutStartedAt({ ...requestCompleted, usage: { ...requestCompleted.usage, usageSource: 'none' } }),
      ),
    ).toThrow();
    const none = { ...requestCompleted, usage: { ...requestCompleted.usage, usageSource: 'none' as const } };
    expect(decodeTrafficEvent(encodeTrafficEvent({ type: 'RequestCompleted', event: none }))).toStrictEqual({
      type: 'RequestCompleted',
      event: none,
    });
  });

  it('decodes a RequestCompleted written with v5 (before attribution) with no team, no end user and no tags', () => {
    const message = writtenWith('request-completed.v5.avsc', withoutAttribution(requestCompleted));
    expect(
      message
        .subarray(2, 10)
        .equals(encodeTrafficEvent({ type: 'RequestCompleted', event: requestCompleted }).subarray(2, 10)),
    ).toBe(false);
    expect(decodeTrafficEvent(message)).toStrictEqual({
      type: 'RequestCompleted',
      event: { ...requestCompleted, ...NO_ATTRIBUTION_DEFAULTS },
    });
  });

  it('decodes a UsageRecorded written with v2 (before attribution) with no team, end user, tags nor budget counters', () => {
    const message = writtenWith('usage-recorded.v2.avsc', usageWithoutAttribution(usageRecorded));
    expect(
      message
        .subarray(2, 10)
        .equals(encodeTrafficEvent({ type: 'UsageRecorded', event: usageRecorded }).subarray(2, 10)),
    ).toBe(false);
    expect(decodeTrafficEvent(message)).toStrictEqual({
      type: 'UsageRecorded',
      event: { ...usageRecorded, ...NO_ATTRIBUTION_DEFAULTS, budgetCounters: [] },
    });
  });

  it('decodes a RequestCompleted written with v6 and a UsageRecorded written with v3 (before operation) as generation', () => {
    const { operation: _o, ...v6Event } = requestCompleted;
    const { operation: _u, ...v3Event } = usageRecorded;
    expect(decodeTrafficEvent(writtenWith('request-completed.v6.avsc', v6Event))).toStrictEqual({
      type: 'RequestCompleted',
      event: { ...requestCompleted, operation: 'generation' },
    });
    expect(decodeTrafficEvent(writtenWith('usage-recorded.v3.avsc', v3Event))).toStrictEqual({
      type: 'UsageRecorded',
      event: { ...usageRecorded, operation: 'generation' },
    });
  });

  it('decodes a RequestCompleted written with v7 (before routing) with no model chain, affinity nor credential', () => {
    const {
      modelChain: _m,
      answeredModel: _a,
      affinity: _f,
      credentialId: _c,
      credentialRotations: _r,
      ...v7Event
    } = requestCompleted;
    const message = writtenWith('request-completed.v7.avsc', v7Event);
    expect(
      message
        .subarray(2, 10)
        .equals(encodeTrafficEvent({ type: 'RequestCompleted', event: requestCompleted }).subarray(2, 10)),
    ).toBe(false);
    expect(decodeTrafficEvent(message)).toStrictEqual({ type: 'RequestCompleted', event: requestCompleted });
  });

  it('round-trips a fallback chain, an affinity result and a pool credential through the current schema', () => {
    const routed = {
      ...requestCompleted,
      modelChain: ['gpt-4o', 'claude-sonnet-4-5'],
      answeredModel: 'claude-sonnet-4-5',
      affinity: 'hit',
      credentialId: 'key-b',
      credentialRotations: 1,
    };
    expect(decodeTrafficEvent(encodeTrafficEvent({ type: 'RequestCompleted', event: routed }))).toStrictEqual({
      type: 'RequestCompleted',
      event: routed,
    });
  });

  it('decodes a UsageRecorded written with v4 (before 1-hour cache writes) with cacheWrite1hTokens 0', () => {
    const withWrites = { ...usageRecorded, inputTokens: 5251, cachedInputTokens: 0, cacheWriteTokens: 5230 };
    const { cacheWrite1hTokens: _w, ...v4Event } = withWrites;
    expect(decodeTrafficEvent(writtenWith('usage-recorded.v4.avsc', v4Event))).toStrictEqual({
      type: 'UsageRecorded',
      event: { ...withWrites, cacheWrite1hTokens: 0 },
    });
  });

  it('round-trips 1-hour cache writes through the current UsageRecorded schema', () => {
    const usage = { ...usageRecorded, inputTokens: 5251, cacheWriteTokens: 5230, cacheWrite1hTokens: 4096 };
    expect(decodeTrafficEvent(encodeTrafficEvent({ type: 'UsageRecorded', event: usage }))).toStrictEqual({
      type: 'UsageRecorded',
      event: usage,
    });
  });

  it('round-trips an embedding operation through the current schemas', () => {
    const completed = { ...requestCompleted, operation: 'embedding' };
    const usage = { ...usageRecorded, operation: 'embedding' };
    expect(decodeTrafficEvent(encodeTrafficEvent({ type: 'RequestCompleted', event: completed }))).toStrictEqual({
      type: 'RequestCompleted',
      event: completed,
    });
    expect(decodeTrafficEvent(encodeTrafficEvent({ type: 'UsageRecorded', event: usage }))).toStrictEqual({
      type: 'UsageRecorded',
      event: usage,
    });
  });

  it('round-trips the upstream request id through the current schema', () => {
    expect(decodeTrafficEvent(encodeTrafficEvent({ type: 'RequestCompleted', event: requestCompleted }))).toStrictEqual(
      { type: 'RequestCompleted', event: requestCompleted },
    );
  });

  it('v1 is really an older shape: the current schema cannot decode its bytes without resolution', () => {
    const v1Type = avro.Type.forSchema(v1Schema as avro.Schema, { wrapUnions: false });
    const { passThrough: _p, ttfbMs: _t, ...v1Value } = withoutUpstreamRequestId(requestCompleted);
    const current = avro.Type.forSchema(requestCompletedSchema as unknown as avro.Schema, { wrapUnions: false });
    expect(() => current.fromBuffer(v1Type.toBuffer(v1Value))).toThrow();
  });
});

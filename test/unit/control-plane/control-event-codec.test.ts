/**
 * The control event codec: round trips of all nine events (nulls, unicode, maps, arrays, nested
 * mock record), the single-object header with the CRC-64-AVRO fingerprint, the .avsc files, the
 * entity keys, refusals, and resolution of an older writer schema through the shared registry.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import {
  CURRENT_CONTROL_SCHEMAS,
  keyCreatedSchema,
  keyRevokedSchema,
} from '../../../schemas/control-plane/control-avro-schemas.ts';
import {
  controlEventKey,
  decodeControlEvent,
  encodeControlEvent,
  isControlEventValue,
} from '../../../schemas/control-plane/control-event-codec.ts';
import { loadControlSchemaRegistry } from '../../../infra/build/load-schema-registry-from-dir.ts';
import type { ControlEvent, DecodedKeyCreated } from '../../../schemas/control-plane/control-plane-events.ts';
import type { AvroToTs, Assert, Equals } from '../../../schemas/events/avro-to-ts.ts';
import { fingerprintToLittleEndian, schemaFingerprint64 } from '../../../schemas/events/rabin-fingerprint.ts';
import { decodeSingleObject } from '../../../schemas/events/single-object-registry.ts';
import { encodeTrafficEvent } from '../../../schemas/events/traffic-event-codec.ts';
import {
  adminTokenCreated,
  adminTokenRevoked,
  alertWebhookRemoved,
  alertWebhookSet,
  budgetRemoved,
  budgetSet,
  channelRemoved,
  channelUpserted,
  keyCreated,
  keyRevoked,
  keyUpdated,
  priceSet,
  teamCreated,
  teamMemberRemoved,
  teamMemberSet,
  teamUpdated,
  userCreated,
  userCredentialsSet,
  userUpdated,
} from './control-event-fixtures.ts';

const AVRO_DIR = fileURLToPath(new URL('../../../schemas/control-plane/avro/', import.meta.url));

// Type-level negatives (checked by tsc): the AvroToTs contract is not vacuous for control schemas.
type KeyFields = (typeof keyCreatedSchema)['fields'][number];
type KeySchemaWith<F> = Omit<typeof keyCreatedSchema, 'fields'> & { readonly fields: ReadonlyArray<F> };
export type SameFieldsAreKeyCreated = Assert<Equals<AvroToTs<KeySchemaWith<KeyFields>>, DecodedKeyCreated>>;
// Each negative below stays on one line: an expect-error directive covers the next line only.
type PlainArrayModels = AvroToTs<
  KeySchemaWith<Exclude<KeyFields, { name: 'models' }> | { name: 'models'; type: { type: 'array'; items: 'string' } }>
>;
// @ts-expect-error models must be nullable: a plain array is not KeyCreated
export type NonNullableModels = Assert<Equals<PlainArrayModels, DecodedKeyCreated>>;
type WithoutDigest = AvroToTs<KeySchemaWith<Exclude<KeyFields, { name: 'digest' }>>>;
// @ts-expect-error a missing field is noticed
export type MissingDigest = Assert<Equals<WithoutDigest, DecodedKeyCreated>>;
export type NullableCollections = [
  Assert<Equals<AvroToTs<readonly ['null', { type: 'array'; items: 'string' }]>, ReadonlyArray<string> | null>>,
  Assert<Equals<AvroToTs<readonly ['null', { type: 'map'; values: 'long' }]>, Readonly<Record<string, number>> | null>>,
];

const withMock = channelUpserted({
  provider: 'mock',
  mock: { latencyMs: 5, chunkDelayMs: 20, failStatus: 503 },
  baseUrl: 'http://127.0.0.1:9/v1',
  protocol: null,
  tpm: 1_000_000,
  deadlineMs: 120_000,
  minStreamRate: { bytes: 64, windowMs: 30_000 },
  cloud: null,
  headers: {},
  credentials: [],
});
const cloudChannel = channelUpserted({
  provider: 'bedrock',
  protocol: 'bedrock-converse',
  baseUrl: null,
  cloud: {
    auth: 'sigv4',
    region: 'eu-central-1',
    project: null,
    apiVersion: null,
    tenantId: null,
    clientId: null,
    roleArn: 'arn:aws:iam::123456789012:role/tollgate',
    externalId: null,
  },
  headers: { 'X-Title': 'Tollgate' },
  mock: null,
  deadlineMs: null,
  minStreamRate: null,
  credentials: [],
});
const pooledChannel = channelUpserted({
  mock: null,
  deadlineMs: null,
  minStreamRate: null,
  cloud: null,
  headers: {},
  credentials: [
    { id: 'key-a', apiKeyCiphertext: 'AAAA', rpm: 60, tpm: null },
    { id: 'key-b', apiKeyCiphertext: 'BBBB', rpm: null, tpm: 100_000 },
  ],
});
const CASES: ReadonlyArray<readonly [string, ControlEvent]> = [
  ['UserCreated', userCreated({ name: 'Zoë 用户', quotaNanoUsd: '123456789012345678901' })],
  ['UserCreated (nulls)', userCreated({ rpm: null, tpm: null, quotaNanoUsd: null, role: 'admin' })],
  ['UserUpdated', userUpdated()],
  ['UserCredentialsSet', userCredentialsSet({ login: 'zoë@example.org' })],
  ['KeyCreated', keyCreated({ expiresAt: 1_900_000_000_123 })],
  [
    'KeyCreated (nulls, empty model list)',
    keyCreated({ userId: null, rpm: null, tpm: null, quotaNanoUsd: null, models: [] }),
  ],
  ['KeyCreated (all models)', keyCreated({ models: null })],
  ['KeyUpdated', keyUpdated()],
  ['KeyRevoked', keyRevoked({ reason: 'rotated', effectiveAt: 1_767_229_200_000 })],
  ['ChannelUpserted (mock settings)', withMock],
  ['ChannelUpserted (cloud settings, extra headers)', cloudChannel],
  ['ChannelUpserted (key pool)', pooledChannel],
  ['ChannelRemoved', channelRemoved('ch-ü')],
  ['PriceSet', priceSet({ channel: 'ch-1', cacheWritePerMTok: 3.75, inputPerMTok: 0.000000001 })],
  ['AdminTokenCreated', adminTokenCreated({ name: 'zoë@example.org' })],
  ['AdminTokenRevoked', adminTokenRevoked({ reason: 'left the team' })],
  ['AdminTokenRevoked (no reason)', adminTokenRevoked()],
  [
    'KeyCreated (team, tags, daily and per-model limits)',
    keyCreated({
      teamId: 'team_1',
      tags: ['feature=search', 'env=prod'],
      rpd: 1000,
      tpd: 5_000_000,
      modelLimits: [{ model: 'gpt-4o', rpm: 10, tpm: null, rpd: 100, tpd: null }],
    }),
  ],
  ['KeyUpdated (team, tags)', keyUpdated({ teamId: 'team_2', tags: ['a=b'], rpd: 5 })],
  ['TeamCreated', teamCreated()],
  ['TeamCreated (every model, no limits)', teamCreated({ models: null, modelLimits: [], tags: [], rpm: null })],
  ['TeamUpdated', teamUpdated()],
  ['TeamMemberSet', teamMemberSet({ role: 'team_admin' })],
  ['TeamMemberRemoved', teamMemberRemoved()],
  ['BudgetSet', budgetSet()],
  [
    'BudgetSet (rolling tokens, downgrade)',
    budgetSet({
      scope: 'tag',
      scopeId: 'feature=search',
      limitNanoUsd: null,
      limitTokens: 1_000_000,
      period: 'rolling',
      rollingMs: 3_600_000,
      timeZone: 'UTC',
      thresholds: [],
      downgradeModel: 'gpt-4o-mini',
    }),
  ],
  ['BudgetRemoved', budgetRemoved()],
  ['AlertWebhookSet', alertWebhookSet({ format: 'slack', enabled: false })],
  ['AlertWebhookRemoved', alertWebhookRemoved()],
];

describe('control event codec', () => {
  it.each(CASES)('%s round-trips exactly', (_name, event) => {
    const decoded = decodeControlEvent(encodeControlEvent(event));
    expect(decoded).toStrictEqual(event);
  });

  it('encodes a ChannelUpserted without mock as null and decodes plain objects', () => {
    const event = channelUpserted();
    const decoded = decodeControlEvent(encodeControlEvent(event));
    expect(decoded).toStrictEqual({
      type: 'ChannelUpserted',
      event: {
        ...event.event,
        mock: null,
        deadlineMs: null,
        minStreamRate: null,
        cloud: null,
        headers: {},
        credentials: [],
      },
    });
    if (decoded.type !== 'ChannelUpserted') throw new Error('wrong type');
    expect(Object.getPrototypeOf(decoded.event)).toBe(Object.prototype);
    expect(Array.isArray(decoded.event.models)).toBe(true);
    expect(Object.getPrototypeOf(decoded.event.modelMap)).toBe(Object.prototype);
  });

  it('decodes a ChannelUpserted written with version 1 (no deadlineMs, no minStreamRate) as nulls', () => {
    const v1 = JSON.parse(readFileSync(join(AVRO_DIR, 'history', 'channel-upserted.v1.avsc'), 'utf8')) as object;
    const event = channelUpserted();
    if (event.type !== 'ChannelUpserted') throw new Error('wrong type');
    const body = avro.Type.forSchema(v1 as avro.Schema).toBuffer({ ...event.event, mock: null });
    const message = Buffer.concat([
      Buffer.from([0xc3, 0x01]),
      fingerprintToLittleEndian(schemaFingerprint64(v1)),
      body,
    ]);
    expect(decodeControlEvent(message)).toStrictEqual({
      type: 'ChannelUpserted',
      event: {
        ...event.event,
        mock: null,
        deadlineMs: null,
        minStreamRate: null,
        cloud: null,
        headers: {},
        credentials: [],
      },
    });
  });

  it('decodes a ChannelUpserted written with version 3 (before key pools) with no pooled credentials', () => {
    const v3 = JSON.parse(readFileSync(join(AVRO_DIR, 'history', 'channel-upserted.v3.avsc'), 'utf8')) as object;
    const { credentials: _none, ...v3Event } = (cloudChannel as Extract<ControlEvent, { type: 'ChannelUpserted' }>)
      .event;
    const message = Buffer.concat([
      Buffer.from([0xc3, 0x01]),
      fingerprintToLittleEndian(schemaFingerprint64(v3)),
      avro.Type.forSchema(v3 as avro.Schema).toBuffer(v3Event),
    ]);
    expect(decodeControlEvent(message)).toStrictEqual({
      type: 'ChannelUpserted',
      event: { ...v3Event, credentials: [] },
    });
  });

  it('decodes a PriceSet written with version 1 (no cacheWrite1hPerMTok) with the 1-hour price null', () => {
    const v1 = JSON.parse(readFileSync(join(AVRO_DIR, 'history', 'price-set.v1.avsc'), 'utf8')) as object;
    const event = priceSet({ cacheWritePerMTok: 3.75 });
    if (event.type !== 'PriceSet') throw new Error('wrong type');
    const { cacheWrite1hPerMTok: _absent, ...v1Fields } = event.event;
    const body = avro.Type.forSchema(v1 as avro.Schema).toBuffer(v1Fields);
    const message = Buffer.concat([
      Buffer.from([0xc3, 0x01]),
      fingerprintToLittleEndian(schemaFingerprint64(v1)),
      body,
    ]);
    expect(decodeControlEvent(message)).toStrictEqual({
      type: 'PriceSet',
      event: { ...v1Fields, cacheWrite1hPerMTok: null },
    });
  });

  it('carries a PriceSet 1-hour cache-write price, and encodes one left out as null', () => {
    const priced = priceSet({ cacheWrite1hPerMTok: 6 });
    expect(decodeControlEvent(encodeControlEvent(priced))).toStrictEqual(priced);
    const unpriced = priceSet();
    if (unpriced.type !== 'PriceSet') throw new Error('wrong type');
    const { cacheWrite1hPerMTok: _absent, ...fields } = unpriced.event;
    expect(decodeControlEvent(encodeControlEvent({ type: 'PriceSet', event: fields }))).toStrictEqual({
      type: 'PriceSet',
      event: { ...fields, cacheWrite1hPerMTok: null },
    });
  });

  it('writes the single-object header: c301 + little-endian CRC-64-AVRO of the schema', () => {
    const fingerprints = new Set<string>();
    for (const [type, { schema }] of Object.entries(CURRENT_CONTROL_SCHEMAS)) {
      const event = CASES.find(([, e]) => e.type === type)?.[1];
      if (!event) throw new Error(`no case for ${type}`);
      const bytes = encodeControlEvent(event);
      expect(bytes.subarray(0, 2).toString('hex')).toBe('c301');
      const expected = fingerprintToLittleEndian(schemaFingerprint64(schema));
      expect(bytes.subarray(2, 10).equals(expected), type).toBe(true);
      fingerprints.add(expected.toString('hex'));
      // the body is plain Avro binary of the schema: avsc alone decodes it
      const body = avro.Type.forSchema(schema as unknown as avro.Schema, { wrapUnions: false }).fromBuffer(
        bytes.subarray(10),
      ) as { eventId: string };
      expect(body.eventId).toBe(event.event.eventId);
    }
    expect(fingerprints.size).toBe(19);
  });

  it('keys each event by its entity id', () => {
    expect(controlEventKey(userCreated({ userId: 'usr_9' }))).toBe('usr_9');
    expect(controlEventKey(userUpdated({ userId: 'usr_8' }))).toBe('usr_8');
    expect(controlEventKey(userCredentialsSet({ userId: 'usr_7' }))).toBe('usr_7');
    expect(controlEventKey(keyCreated({ keyId: 'key_1' }))).toBe('key_1');
    expect(controlEventKey(keyUpdated({ keyId: 'key_2' }))).toBe('key_2');
    expect(controlEventKey(keyRevoked({ keyId: 'key_3' }))).toBe('key_3');
    expect(controlEventKey(channelUpserted({ channelId: 'ch-7' }))).toBe('ch-7');
    expect(controlEventKey(channelRemoved('ch-8'))).toBe('ch-8');
    expect(controlEventKey(priceSet({ priceId: 'p-9' }))).toBe('p-9');
    expect(controlEventKey(adminTokenCreated({ tokenId: 'adm_1' }))).toBe('adm_1');
    expect(controlEventKey(adminTokenRevoked({ tokenId: 'adm_2' }))).toBe('adm_2');
    expect(controlEventKey(teamCreated({ teamId: 'team_a' }))).toBe('team_a');
    expect(controlEventKey(teamUpdated({ teamId: 'team_b' }))).toBe('team_b');
    expect(controlEventKey(teamMemberSet({ teamId: 'team_c' }))).toBe('team_c');
    expect(controlEventKey(teamMemberRemoved('team_d'))).toBe('team_d');
    expect(controlEventKey(budgetSet({ budgetId: 'bgt_a' }))).toBe('bgt_a');
    expect(controlEventKey(budgetRemoved('bgt_b'))).toBe('bgt_b');
    expect(controlEventKey(alertWebhookSet({ webhookId: 'whk_a' }))).toBe('whk_a');
    expect(controlEventKey(alertWebhookRemoved('whk_b'))).toBe('whk_b');
  });

  it('encodes a KeyCreated or KeyUpdated without the team fields as their defaults', () => {
    const created = keyCreated();
    if (created.type !== 'KeyCreated') throw new Error('wrong type');
    const { teamId, tags, rpd, tpd, modelLimits, ...withoutTeamFields } = created.event;
    const decoded = decodeControlEvent(encodeControlEvent({ type: 'KeyCreated', event: withoutTeamFields }));
    expect(decoded).toStrictEqual(created);
    expect([teamId, tags, rpd, tpd, modelLimits]).toEqual([null, [], null, null, []]);
  });

  it.each([
    ['KeyCreated', 'key-created.v1.avsc', keyCreated({ teamId: 'team_1', tags: ['a=b'], rpd: 1 })],
    ['KeyUpdated', 'key-updated.v1.avsc', keyUpdated({ teamId: 'team_1', tags: ['a=b'], tpd: 1 })],
  ] as const)('decodes a %s written with version 1 (no team fields) with their defaults', (_type, file, event) => {
    const v1 = JSON.parse(readFileSync(join(AVRO_DIR, 'history', file), 'utf8')) as object;
    const body = avro.Type.forSchema(v1 as avro.Schema).toBuffer(event.event);
    const message = Buffer.concat([
      Buffer.from([0xc3, 0x01]),
      fingerprintToLittleEndian(schemaFingerprint64(v1)),
      body,
    ]);
    expect(decodeControlEvent(message)).toStrictEqual({
      type: event.type,
      event: { ...event.event, teamId: null, tags: [], rpd: null, tpd: null, modelLimits: [] },
    });
  });

  it('refuses what is not a control event', () => {
    expect(isControlEventValue(Buffer.alloc(0))).toBe(false);
    expect(() => decodeControlEvent(Buffer.alloc(0))).toThrow(/not an Avro single-object message/);
    expect(() => decodeControlEvent(Buffer.from('{"type":"KeyCreated"}'))).toThrow(/not an Avro single-object message/);
    const traffic = encodeTrafficEvent({
      type: 'FailoverOccurred',
      event: {
        eventId: 'f',
        occurredAt: 1,
        requestId: 'r',
        keyId: 'k',
        model: 'm',
        channelId: 'c',
        errorKind: 'e',
        upstreamStatus: null,
        latencyMs: 1,
        retryAfterMs: null,
        nextChannelId: null,
      },
    });
    expect(() => decodeControlEvent(traffic)).toThrow(
      /unknown writer schema fingerprint [0-9a-f]{16} .*not a registered control event schema version/,
    );
    const truncated = encodeControlEvent(keyCreated()).subarray(0, 30);
    expect(() => decodeControlEvent(truncated)).toThrow(/cannot decode KeyCreated \(writer version current/);
  });

  it('refuses to encode an event that does not fit its schema', () => {
    expect(() => encodeControlEvent(userCreated({ rpm: 1.5 }))).toThrow();
    expect(() => encodeControlEvent(userCreated({ role: 'root' as 'admin' }))).toThrow();
  });

  it('resolves an older writer version from the history folder into the current shape', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-control-history-'));
    const v0 = { ...keyRevokedSchema, fields: keyRevokedSchema.fields.filter((f) => f.name !== 'reason') };
    writeFileSync(join(dir, 'key-revoked.v0.avsc'), JSON.stringify(v0));
    const registry = loadControlSchemaRegistry(dir);
    const old = registry.all().find((entry) => entry.version === 0);
    if (!old) throw new Error('history file not registered');
    const message = Buffer.concat([
      old.header,
      old.writerType.toBuffer({ eventId: 'e0', occurredAt: 5, actor: 'cli', keyId: 'key_old', effectiveAt: 6 }),
    ]);
    const { eventType, datum } = decodeSingleObject(registry, 'control', message);
    expect(eventType).toBe('KeyRevoked');
    expect({ ...(datum as object) }).toEqual({
      eventId: 'e0',
      occurredAt: 5,
      actor: 'cli',
      keyId: 'key_old',
      effectiveAt: 6,
      reason: null,
    });
  });

  it('refuses a history file that is not a control event', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-control-history-'));
    writeFileSync(
      join(dir, 'key-revoked.v0.avsc'),
      JSON.stringify({ ...keyRevokedSchema, namespace: 'tollgate.events' }),
    );
    expect(() => loadControlSchemaRegistry(dir)).toThrow(/tollgate\.events\.KeyRevoked is not a control event/);
  });
});

describe('control Avro schema files', () => {
  it.each(Object.entries(CURRENT_CONTROL_SCHEMAS))('avro/%s equals its TS object', (eventType, { schema, file }) => {
    const json: unknown = JSON.parse(readFileSync(join(AVRO_DIR, file), 'utf8'));
    expect(json, `${file} drifted from control-avro-schemas.ts (${eventType})`).toEqual(schema);
    expect(schema.namespace).toBe('tollgate.control');
    expect(schema.name).toBe(eventType);
  });

  it('has exactly one current .avsc per event', () => {
    const files = readdirSync(AVRO_DIR)
      .filter((f) => f.endsWith('.avsc'))
      .sort();
    expect(files).toEqual(
      Object.values(CURRENT_CONTROL_SCHEMAS)
        .map((s) => s.file)
        .sort(),
    );
  });
});

/**
 * Key pools at configuration and in the control plane (README "Key pools"): `credentials` instead
 * of `apiKey` (both given, duplicate or malformed ids and cloud rules refused by name, never
 * quoting a key), a lone `apiKey` as the pool member `default`, the pool through ChannelUpserted
 * (every key encrypted, older events decoding to one credential) and the admin upsert that keeps
 * stored keys, and the admin view that shows ids, limits and state but never a key.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigFile } from '../../../gateway/config/load-config.ts';
import { presentChannel } from '../../../gateway/control-plane/admin-presenters.ts';
import { channelRecordFromEvent, channelUpsertFields } from '../../../gateway/control-plane/channel-event-mapping.ts';
import { upsertChannel, type CommandContext } from '../../../gateway/control-plane/commands.ts';
import { resolveChannel } from '../../../gateway/routing/channel.ts';
import { credentialsOf } from '../../../gateway/routing/credential-pool.ts';
import type { ChannelUpserted } from '../../../schemas/control-plane/control-plane-events.ts';
import { RecordingControlPlane } from '../admin/recording-control-plane.ts';
import { commandRefusal, runCommand } from '../admin/run-command.ts';
import { channelUpserted, TEST_MASTER_KEY } from '../control-plane/control-event-fixtures.ts';

const SECRET = 'sk-SECRET-key-pool-value';

function problemsOf(channels: unknown[]): string[] {
  try {
    parseConfigFile({ channels });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

const base = { id: 'pool', provider: 'openai', models: ['gpt-4o'] };

describe('key pool configuration', () => {
  it('accepts credentials with their own limits, and a lone apiKey as the credential `default`', () => {
    const config = parseConfigFile({
      channels: [
        {
          ...base,
          credentials: [
            { id: 'a', apiKey: SECRET, rpm: 60 },
            { id: 'org-2.b', apiKey: 'sk-2', tpm: 1000 },
          ],
        },
        { ...base, id: 'single', apiKey: 'sk-single' },
      ],
    });
    const [pool, single] = config.channels;
    expect(credentialsOf(pool!)).toEqual([
      { id: 'a', apiKey: SECRET, rpm: 60, tpm: null },
      { id: 'org-2.b', apiKey: 'sk-2', rpm: null, tpm: 1000 },
    ]);
    expect(credentialsOf(single!)).toEqual([{ id: 'default', apiKey: 'sk-single', rpm: null, tpm: null }]);
    // Paths without rotation (token counts, embeddings, the console's test) use the pool's first key.
    expect(resolveChannel(pool!).apiKey).toBe(SECRET);
    expect(resolveChannel(single!).apiKey).toBe('sk-single');
  });

  it('refuses apiKey and credentials together, naming both', () => {
    expect(problemsOf([{ ...base, apiKey: SECRET, credentials: [{ id: 'a', apiKey: 'sk-2' }] }])).toEqual([
      'channels[0].credentials: give either apiKey or credentials, not both (a key pool lists every key under credentials)',
    ]);
  });

  it('refuses duplicate, malformed and missing credential ids, bad limits and unknown fields, never quoting a key', () => {
    const problems = problemsOf([
      {
        ...base,
        credentials: [
          { id: 'a', apiKey: SECRET },
          { id: 'b c', apiKey: SECRET },
          { apiKey: SECRET },
          { id: 'd', apiKey: SECRET, rpm: 0 },
          { id: 'e', apiKey: SECRET, secret: SECRET },
          { id: 'f', apiKey: 42 },
        ],
      },
      { ...base, id: 'empty', credentials: [] },
      {
        ...base,
        id: 'twice',
        credentials: [
          { id: 'a', apiKey: SECRET },
          { id: 'a', apiKey: SECRET },
        ],
      },
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        "channels[2].credentials[1].id: duplicate credential id 'a'",
        expect.stringMatching(/^channels\[0\]\.credentials\[1\]\.id: may contain only letters/),
        expect.stringMatching(/^channels\[0\]\.credentials\[2\]\.id: /),
        'channels[0].credentials[3].rpm: must be a positive integer',
        expect.stringMatching(/^channels\[0\]\.credentials\[4\]: .*secret/),
        expect.stringMatching(/^channels\[0\]\.credentials\[5\]\.apiKey: /),
        'channels[1].credentials: must list at least one credential',
      ]),
    );
    expect(problems.join('\n')).not.toContain(SECRET);
    expect(problems.join('\n')).not.toContain('42');
  });

  it('checks every pooled key of a cloud channel against its auth method, by position', () => {
    const problems = problemsOf([
      {
        id: 'br',
        provider: 'bedrock',
        cloud: { region: 'us-east-1' },
        models: ['m'],
        credentials: [
          { id: 'ok', apiKey: 'AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI' },
          { id: 'bad', apiKey: SECRET },
        ],
      },
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/^channels\[0\]\.credentials\[1\]\.apiKey: must be ACCESS_KEY_ID:SECRET_ACCESS_KEY/),
    ]);
    expect(problems.join('\n')).not.toContain(SECRET);
  });
});

describe('key pools in the control plane', () => {
  const config = parseConfigFile({
    channels: [
      {
        ...base,
        credentials: [
          { id: 'a', apiKey: SECRET, rpm: 60 },
          { id: 'b', apiKey: 'sk-b' },
        ],
      },
    ],
  }).channels[0]!;

  it('encrypts every pooled key in ChannelUpserted and rebuilds the pool from it', () => {
    const fields = channelUpsertFields(config, TEST_MASTER_KEY, { rpm: null, tpm: null });
    expect(JSON.stringify(fields)).not.toContain(SECRET);
    expect(fields.credentials?.map(({ id, rpm, tpm }) => ({ id, rpm, tpm }))).toEqual([
      { id: 'a', rpm: 60, tpm: null },
      { id: 'b', rpm: null, tpm: null },
    ]);
    const event = { eventId: 'e', occurredAt: 1, actor: 'test', ...fields } as ChannelUpserted;
    const projected = channelRecordFromEvent(event, TEST_MASTER_KEY);
    expect(projected.warning).toBeUndefined();
    expect(projected.record?.config.credentials).toEqual(config.credentials);
    expect(projected.record?.config.apiKey).toBe('');
  });

  it('decodes an event without credentials (before version 4) to the one credential `default`', () => {
    const old = channelUpserted({}, 'sk-old');
    if (old.type !== 'ChannelUpserted') throw new Error('wrong type');
    const record = channelRecordFromEvent(old.event, TEST_MASTER_KEY).record!;
    expect(record.config.credentials).toBeUndefined();
    expect(credentialsOf(record.config)).toEqual([{ id: 'default', apiKey: 'sk-old', rpm: null, tpm: null }]);
  });

  it('disables a pooled channel one of whose keys does not decrypt', () => {
    const fields = channelUpsertFields(config, TEST_MASTER_KEY, { rpm: null, tpm: null });
    const tampered = {
      ...fields,
      credentials: fields.credentials?.map((c, i) => (i === 1 ? { ...c, apiKeyCiphertext: 'AAAA' } : c)),
    };
    const projected = channelRecordFromEvent({ eventId: 'e', occurredAt: 1, actor: 't', ...tampered }, TEST_MASTER_KEY);
    expect(projected.undecryptable).toBe(true);
    expect(projected.record?.config.enabled).toBe(false);
  });

  it('keeps the stored key of a credential whose upsert entry omits apiKey; shows ids and limits, never a key', async () => {
    const ctx: CommandContext = {
      now: 1_767_225_600_000,
      actor: 'admin',
      secrets: { masterKey: TEST_MASTER_KEY, hmacSecret: Buffer.from('h'.repeat(40)) },
    };
    const cp = new RecordingControlPlane(TEST_MASTER_KEY);
    const body = { provider: 'openai', models: ['gpt-4o'] };
    await runCommand(cp, () =>
      upsertChannel(
        cp,
        'pool',
        {
          ...body,
          credentials: [
            { id: 'a', apiKey: SECRET },
            { id: 'b', apiKey: 'sk-b' },
          ],
        },
        ctx,
      ),
    );
    await runCommand(cp, () =>
      upsertChannel(
        cp,
        'pool',
        {
          ...body,
          credentials: [
            { id: 'a', rpm: 5 },
            { id: 'c', apiKey: 'sk-c' },
          ],
        },
        ctx,
      ),
    );
    // A body naming neither apiKey nor credentials (the console's enable/disable) keeps the pool.
    await runCommand(cp, () => upsertChannel(cp, 'pool', { ...body, enabled: false }, ctx));
    const record = cp.channels().find((c) => c.config.id === 'pool')!;
    expect(record.config.enabled).toBe(false);
    expect(credentialsOf(record.config)).toEqual([
      { id: 'a', apiKey: SECRET, rpm: 5, tpm: null },
      { id: 'c', apiKey: 'sk-c', rpm: null, tpm: null },
    ]);
    expect(JSON.stringify(cp.published)).not.toContain(SECRET);
    const view = presentChannel(record, () => [
      { id: 'a', coolingUntil: 1_767_225_660_000, lastErrorKind: 'rate-limited', requests: 3, rotations: 1 },
    ]);
    expect(view.credentials).toEqual([
      {
        id: 'a',
        hasApiKey: true,
        rpm: 5,
        tpm: null,
        coolingUntil: '2026-01-01T00:01:00.000Z',
        lastErrorKind: 'rate-limited',
        requests: 3,
        rotations: 1,
      },
      {
        id: 'c',
        hasApiKey: true,
        rpm: null,
        tpm: null,
        coolingUntil: null,
        lastErrorKind: null,
        requests: 0,
        rotations: 0,
      },
    ]);
    expect(JSON.stringify(view)).not.toContain(SECRET);
    expect(
      commandRefusal(() => upsertChannel(cp, 'pool', { ...body, apiKey: 'x', credentials: [{ id: 'a' }] }, ctx)),
    ).toMatchObject({
      status: 400,
      field: 'credentials',
    });
  });
});

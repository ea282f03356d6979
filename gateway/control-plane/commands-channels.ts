/**
 * Channel commands: upsert (PUT semantics: the body replaces the channel; the stored
 * credential is kept when the body omits `apiKey`, and a pooled credential's when its entry in
 * `credentials` omits `apiKey`) and remove. The
 * credential is encrypted here (AES-256-GCM under the master key) and never leaves in clear.
 */
import { z } from 'zod';
import { channelSchema, type ChannelConfig, type ChannelCredentialConfig } from '../config/config-schema.ts';
import { credentialsOf } from '../routing/credential-pool.ts';
import type { ChannelUpserted } from '../../schemas/control-plane/control-plane-events.ts';
import type { ControlPlaneView } from './control-plane-view.ts';
import { channelUpsertFields } from './channel-event-mapping.ts';
import {
  eventHeader,
  fail,
  limitField,
  parseInput,
  type CommandContext,
  type CommandResult,
} from './commands-common.ts';

/**
 * Body of `upsertChannel`: the config file's channel fields (gateway/config/config-schema.ts
 * `channelSchema`: provider, protocol?, baseUrl?, apiKey?, credentials? (a key pool: `[{ id,
 * apiKey?, rpm?, tpm? }]`), models?, modelMap?, priority?, weight?, enabled?, timeoutMs?,
 * deadlineMs?, minStreamRate?) plus rpm/tpm limits (null = unlimited). `id` comes from the path; `mock`
 * is config-file only.
 */
export const upsertChannelInput = channelSchema.safeExtend({
  rpm: limitField.default(null),
  tpm: limitField.default(null),
  mock: z.undefined({ error: 'is only supported in the config file' }).optional(),
});

/**
 * Creates or replaces channel `channelId` with the body's fields. Without `apiKey` and
 * `credentials` an existing channel keeps its credential or key pool (re-encrypted); a new one
 * gets an empty credential. A `credentials`
 * entry without `apiKey` keeps the stored key of the credential with the same id (or, for id
 * `default`, the channel's lone `apiKey`); without one it is empty.
 * @returns one ChannelUpserted event; result `{ channelId, created }`.
 * @throws CommandError 400 bad input (field named; `id` in the body must equal the path's).
 */
export function upsertChannel(
  view: ControlPlaneView,
  channelId: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ channelId: string; created: boolean }> {
  const body = input === undefined ? {} : input;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    fail(400, 'request body: must be a JSON object');
  if ('id' in body && body.id !== channelId)
    fail(400, `id: must equal the channel id in the path ('${channelId}')`, 'id');
  const parsed = parseInput(upsertChannelInput, { ...body, id: channelId });
  const current = view.channels().find((c) => c.config.id === channelId);
  const { rpm, tpm, mock, ...config } = parsed;
  // A body naming neither apiKey nor credentials keeps what is stored, a key pool included.
  const keepsStored = !('apiKey' in body) && !('credentials' in body);
  const credentials = config.credentials
    ? keptCredentials(config.credentials, body, current?.config)
    : keepsStored
      ? current?.config.credentials
      : undefined;
  // With a pool the stored lone key is not kept: the pool replaces it.
  const plainKey = 'apiKey' in body || credentials ? parsed.apiKey : (current?.config.apiKey ?? '');
  const event: ChannelUpserted = {
    ...eventHeader(ctx),
    ...channelUpsertFields(
      { ...config, apiKey: plainKey, ...(credentials ? { credentials } : {}) },
      ctx.secrets.masterKey,
      { rpm, tpm },
    ),
  };
  return { events: [{ type: 'ChannelUpserted', event }], result: { channelId, created: current === undefined } };
}

/**
 * The pooled credentials of an upsert: an entry whose body gave no `apiKey` keeps the stored key
 * of the same id (the channel's lone key for id `default`), else ''.
 */
function keptCredentials(
  parsed: ReadonlyArray<ChannelCredentialConfig>,
  body: object,
  current: ChannelConfig | undefined,
): ChannelCredentialConfig[] {
  const given = (body as { credentials?: unknown }).credentials;
  const stored = new Map(current ? credentialsOf(current).map((credential) => [credential.id, credential.apiKey]) : []);
  return parsed.map((credential, index) => {
    const entry = Array.isArray(given) ? (given[index] as unknown) : undefined;
    const hasKey = typeof entry === 'object' && entry !== null && 'apiKey' in entry;
    return hasKey ? credential : { ...credential, apiKey: stored.get(credential.id) ?? '' };
  });
}

/**
 * Removes channel `channelId`.
 * @returns one ChannelRemoved event; result `{ channelId }`.
 * @throws CommandError 404 unknown channel (field `id`).
 */
export function removeChannel(
  view: ControlPlaneView,
  channelId: string,
  ctx: CommandContext,
): CommandResult<{ channelId: string }> {
  if (!view.channels().some((c) => c.config.id === channelId)) fail(404, `channel '${channelId}' not found`, 'id');
  return { events: [{ type: 'ChannelRemoved', event: { ...eventHeader(ctx), channelId } }], result: { channelId } };
}

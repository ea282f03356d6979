/**
 * `tollgate keys …`: create, list, update, revoke, rotate. Create and rotate print the new key
 * ALONE on the last line of stdout (it is shown only once), so scripts can take `tail -n 1`.
 */
import {
  bodyFrom,
  modelsOrNull,
  numberOrNull,
  tagsAndModelLimits,
  timeOrNull,
  usdOrNull,
  type CliCommand,
  type CliOption,
} from './cli-arguments.ts';
import { recordIn, type JsonRecord } from './admin-answer.ts';
import { adminPath, listCommand, printRecordAnswer, revokeCommand, updateCommand } from './cli-command-kinds.ts';
import { cellText } from './cli-table.ts';

const LIMIT_OPTIONS: Record<string, CliOption> = {
  rpm: { type: 'string', value: 'N', help: 'requests per minute (none = unlimited)' },
  tpm: { type: 'string', value: 'N', help: 'tokens per minute (none = unlimited)' },
  quota: { type: 'string', value: 'USD', help: 'spend quota in USD, ≤ 9 decimals (none = unlimited)' },
  expires: {
    type: 'string',
    value: 'ISO-8601',
    help: 'expiry time with time zone, e.g. 2030-01-01T00:00:00Z (never = no expiry)',
  },
  models: { type: 'string', value: 'a,b', help: 'model allowlist, within the team’s (all = every model)' },
  team: { type: 'string', value: 'ID', help: 'owning team (none = no team)' },
  rpd: { type: 'string', value: 'N', help: 'requests per day (none = unlimited)' },
  tpd: { type: 'string', value: 'N', help: 'tokens per day (none = unlimited)' },
  tag: {
    type: 'string',
    value: 'NAME=VALUE',
    help: 'default tag of the key’s requests (none = no tags)',
    multiple: true,
  },
  'model-limit': {
    type: 'string',
    value: 'MODEL:rpm=N,tpm=N,rpd=N,tpd=N',
    help: 'limits of one model (none = no per-model limits)',
    multiple: true,
  },
};

const KEY_FIELDS = {
  name: ['name', String],
  rpm: ['rpm', numberOrNull],
  tpm: ['tpm', numberOrNull],
  quota: ['quotaUsd', usdOrNull],
  expires: ['expiresAt', timeOrNull],
  models: ['models', modelsOrNull],
  team: ['teamId', (text: string) => (text.toLowerCase() === 'none' ? null : text)],
  rpd: ['rpd', numberOrNull],
  tpd: ['tpd', numberOrNull],
} as const;

/** The fields of a key record that its commands print. */
function keyFields(key: JsonRecord): Record<string, unknown> {
  return {
    keyId: key.keyId,
    publicId: key.publicId,
    name: key.name,
    user: key.userId,
    team: key.teamId,
    status: key.status,
    rpm: key.rpm,
    tpm: key.tpm,
    rpd: key.rpd,
    tpd: key.tpd,
    quotaUsd: key.quotaUsd,
    expiresAt: key.expiresAt,
    models: key.models,
    modelLimits: modelLimitsText(key.modelLimits),
    tags: key.tags,
    revokedAt: key.revokedAt,
  };
}

/**
 * Per-model limits as `--model-limit` takes them, `MODEL:rpm=N,…` (only the limits set), joined
 * by `; `; null when there are none.
 */
export function modelLimitsText(limits: unknown): string | null {
  if (!Array.isArray(limits) || limits.length === 0) return null;
  return limits
    .map((limit: Record<string, unknown>) => {
      const set = ['rpm', 'tpm', 'rpd', 'tpd'].filter((name) => limit[name] !== null && limit[name] !== undefined);
      return `${cellText(limit.model)}:${set.map((name) => `${name}=${cellText(limit[name])}`).join(',')}`;
    })
    .join('; ');
}

/** The new key, alone on the last line: it is shown only once. */
const NEW_KEY = { noun: 'key', field: 'apiKey' } as const;

const create: CliCommand = {
  name: 'keys create',
  summary: 'create an API key (prints the key alone on the last line: it is shown only once)',
  positionals: [],
  options: {
    name: { type: 'string', value: 'NAME', help: 'display name', required: true },
    user: { type: 'string', value: 'ID', help: 'owner user id' },
    ...LIMIT_OPTIONS,
  },
  request: ({ values }) => ({
    method: 'POST',
    path: adminPath('keys'),
    body: {
      ...bodyFrom(values, KEY_FIELDS),
      ...bodyFrom(values, { user: ['userId', String] }),
      ...tagsAndModelLimits(values),
    },
  }),
  print: printRecordAnswer({
    field: 'key',
    headline: (key) => `created key ${cellText(key.keyId)}`,
    shown: keyFields,
    secret: NEW_KEY,
  }),
};

const list = listCommand({
  name: 'keys list',
  summary: 'list keys (never their secrets)',
  collection: 'keys',
  field: 'keys',
  columns: [
    { header: 'KEY ID', cell: (k) => k.keyId },
    { header: 'NAME', cell: (k) => k.name },
    { header: 'USER', cell: (k) => k.userId },
    { header: 'TEAM', cell: (k) => k.teamId },
    { header: 'STATUS', cell: (k) => k.status },
    { header: 'RPM', cell: (k) => k.rpm },
    { header: 'TPM', cell: (k) => k.tpm },
    { header: 'QUOTA USD', cell: (k) => k.quotaUsd },
    { header: 'EXPIRES', cell: (k) => k.expiresAt },
    { header: 'MODELS', cell: (k) => k.models },
  ],
});

const update = updateCommand({
  name: 'keys update',
  summary: 'change a key (only the flags given)',
  collection: 'keys',
  options: { name: { type: 'string', value: 'NAME', help: 'display name' }, ...LIMIT_OPTIONS },
  fields: KEY_FIELDS,
  extraBody: tagsAndModelLimits,
  switch: { field: 'enabled', enable: 'enable the key', disable: 'disable the key' },
  print: printRecordAnswer({ field: 'key', headline: (key) => `updated key ${cellText(key.keyId)}`, shown: keyFields }),
});

const revoke = revokeCommand({
  name: 'keys revoke',
  summary: 'revoke a key now',
  collection: 'keys',
  reasonHelp: 'why (recorded in the event)',
  print(body, out) {
    const key = recordIn(body, 'key');
    out.line(`revoked key ${cellText(key.keyId)} at ${cellText(key.revokedAt)}`);
  },
});

const rotate: CliCommand = {
  name: 'keys rotate',
  summary: 'replace a key with a new one (same settings); the old one stops after the grace period',
  positionals: ['ID'],
  options: { grace: { type: 'string', value: 'SECONDS', help: 'how long the old key keeps working (default 0)' } },
  request: ({ positionals, values }) => ({
    method: 'POST',
    path: adminPath('keys', positionals[0], 'rotate'),
    body: bodyFrom(values, { grace: ['graceSeconds', numberOrNull] }),
  }),
  print: printRecordAnswer({
    field: 'key',
    headline(key, body) {
      const replaced = recordIn(body, 'replaced');
      return `rotated key ${cellText(replaced.keyId)} → ${cellText(key.keyId)}; the old key stops working at ${cellText(replaced.revokedAt)}`;
    },
    shown: keyFields,
    secret: NEW_KEY,
  }),
};

/** The `keys` commands. */
export const KEY_COMMANDS: ReadonlyArray<CliCommand> = [create, list, update, revoke, rotate];

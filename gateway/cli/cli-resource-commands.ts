/**
 * `tollgate users …`, `channels …` and `whoami`: thin mappings from flags to admin API calls and
 * from answers to tables (prices: cli-price-commands.ts; admin tokens: cli-admin-token-commands.ts).
 */
import { readFileSync } from 'node:fs';
import {
  asNumber,
  bodyFrom,
  list,
  modelMap,
  namedValues,
  numberOrNull,
  repeatedFlag,
  UsageError,
  usdOrNull,
  type CliCommand,
  type CliOption,
} from './cli-arguments.ts';
import { adminPath, listCommand, printRecordAnswer, updateCommand } from './cli-command-kinds.ts';
import { cellText } from './cli-table.ts';

const USER_OPTIONS: Record<string, CliOption> = {
  role: { type: 'string', value: 'admin|user', help: 'role (default user)' },
  rpm: { type: 'string', value: 'N', help: 'requests per minute over all the user’s keys (none = unlimited)' },
  tpm: { type: 'string', value: 'N', help: 'tokens per minute over all the user’s keys (none = unlimited)' },
  quota: { type: 'string', value: 'USD', help: 'spend quota in USD over all the user’s keys (none = unlimited)' },
  login: { type: 'string', value: 'LOGIN', help: 'console sign-in name (3–64 of a-z 0-9 . _ @ -); needs --password' },
  password: {
    type: 'string',
    value: 'PASSWORD',
    help: 'console password, 8–200 characters ("-" reads it from stdin, keeping it out of ps)',
  },
};
const USER_FIELDS = {
  name: ['name', String],
  role: ['role', String],
  rpm: ['rpm', numberOrNull],
  tpm: ['tpm', numberOrNull],
  quota: ['quotaUsd', usdOrNull],
  login: ['login', String],
  password: ['password', (text: string) => (text === '-' ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : text)],
} as const;

const usersCreate: CliCommand = {
  name: 'users create',
  summary: 'create a user',
  positionals: [],
  options: { name: { type: 'string', value: 'NAME', help: 'display name', required: true }, ...USER_OPTIONS },
  request: ({ values }) => ({ method: 'POST', path: adminPath('users'), body: bodyFrom(values, USER_FIELDS) }),
  print: printRecordAnswer({ field: 'user', headline: (user) => `created user ${cellText(user.userId)}` }),
};

const usersList = listCommand({
  name: 'users list',
  summary: 'list users',
  collection: 'users',
  field: 'users',
  columns: [
    { header: 'USER ID', cell: (u) => u.userId },
    { header: 'NAME', cell: (u) => u.name },
    { header: 'ROLE', cell: (u) => u.role },
    { header: 'LOGIN', cell: (u) => u.login },
    { header: 'DISABLED', cell: (u) => u.disabled },
    { header: 'RPM', cell: (u) => u.rpm },
    { header: 'TPM', cell: (u) => u.tpm },
    { header: 'QUOTA USD', cell: (u) => u.quotaUsd },
  ],
});

const usersUpdate = updateCommand({
  name: 'users update',
  summary: 'change a user (only the flags given)',
  collection: 'users',
  options: { name: { type: 'string', value: 'NAME', help: 'display name' }, ...USER_OPTIONS },
  fields: USER_FIELDS,
  switch: { field: 'disabled', enable: 'enable the user', disable: 'disable the user (all their keys are refused)' },
  print: printRecordAnswer({ field: 'user', headline: (user) => `updated user ${cellText(user.userId)}` }),
});

const channelsList = listCommand({
  name: 'channels list',
  summary: 'list channels (credentials are never shown)',
  collection: 'channels',
  field: 'channels',
  columns: [
    { header: 'ID', cell: (c) => c.id },
    { header: 'PROVIDER', cell: (c) => c.provider },
    { header: 'PROTOCOL', cell: (c) => c.protocol },
    { header: 'ENABLED', cell: (c) => c.enabled },
    { header: 'PRIORITY', cell: (c) => c.priority },
    { header: 'WEIGHT', cell: (c) => c.weight },
    { header: 'RPM', cell: (c) => c.rpm },
    { header: 'TPM', cell: (c) => c.tpm },
    { header: 'API KEY', cell: (c) => (c.hasApiKey ? 'set' : '-') },
    { header: 'CREDENTIALS', cell: (c) => credentialCells(c.credentials) },
    { header: 'MODELS', cell: (c) => [...(c.models as string[]), ...Object.keys(c.modelMap as object)] },
  ],
});

const CHANNEL_FIELDS = {
  provider: ['provider', String],
  protocol: ['protocol', String],
  'base-url': ['baseUrl', String],
  'api-key': ['apiKey', (text: string) => (text === '-' ? readFileSync(0, 'utf8').trim() : text)],
  models: ['models', list],
  'model-map': ['modelMap', modelMap],
  priority: ['priority', asNumber],
  weight: ['weight', asNumber],
  'timeout-ms': ['timeoutMs', asNumber],
  'deadline-ms': ['deadlineMs', asNumber],
  rpm: ['rpm', numberOrNull],
  tpm: ['tpm', numberOrNull],
  cloud: ['cloud', (text: string) => namedValues(text, '--cloud', 'SETTING=VALUE')],
  headers: ['headers', (text: string) => namedValues(text, '--headers', 'NAME=VALUE')],
} as const;

/** The credential names `--credential` takes. */
const CREDENTIAL_FIELDS = new Set(['id', 'key', 'rpm', 'tpm']);

/**
 * `id=ID,key=KEY,rpm=N,tpm=N` → one `credentials` entry of the admin API (`key` → `apiKey`; without
 * `key` the gateway keeps the stored key of that id). Keys holding a comma (service-account JSON)
 * go through the admin API or the console instead.
 * @throws UsageError naming the entry's field (never its value) when it is not one of id, key, rpm, tpm, or `id` is missing
 */
export function channelCredential(text: string): Record<string, unknown> {
  const credential: Record<string, unknown> = {};
  for (const entry of list(text)) {
    const at = entry.indexOf('=');
    const name = at > 0 ? entry.slice(0, at) : '';
    if (!CREDENTIAL_FIELDS.has(name))
      throw new UsageError('--credential: each part must be id=…, key=…, rpm=N or tpm=N');
    const value = entry.slice(at + 1);
    if (name === 'key') credential.apiKey = value;
    else credential[name] = name === 'id' ? value : numberOrNull(value);
  }
  if (typeof credential.id !== 'string') throw new UsageError('--credential: id=… is required');
  return credential;
}

/** A channel's credentials as a table cell: `id` each, with `(cooling)` while it cools down. */
function credentialCells(credentials: unknown): string[] {
  if (!Array.isArray(credentials)) return [];
  return credentials.map((c: { id?: unknown; coolingUntil?: unknown }) =>
    c.coolingUntil ? `${String(c.id)} (cooling)` : String(c.id),
  );
}

const channelsUpsert: CliCommand = {
  name: 'channels upsert',
  summary: 'create or replace a channel (without --api-key an existing channel keeps its credential)',
  positionals: ['ID'],
  options: {
    provider: { type: 'string', value: 'P', help: 'openai, anthropic, gemini, deepseek, … or mock', required: true },
    protocol: {
      type: 'string',
      value: 'PROTO',
      help: 'openai-chat, openai-responses, anthropic-messages, gemini or bedrock-converse',
    },
    'base-url': { type: 'string', value: 'URL', help: 'upstream base URL (default: the provider’s)' },
    'api-key': {
      type: 'string',
      value: 'KEY',
      help: 'upstream credential ("-" reads it from stdin, keeping it out of ps)',
    },
    models: { type: 'string', value: 'a,b', help: 'models served' },
    'model-map': { type: 'string', value: 'alias=model,…', help: 'client alias → upstream model' },
    priority: { type: 'string', value: 'N', help: 'priority tier (higher first, default 0)' },
    weight: { type: 'string', value: 'N', help: 'weight within the tier (default 1)' },
    'timeout-ms': { type: 'string', value: 'MS', help: 'upstream timeout to response headers and between body bytes' },
    'deadline-ms': {
      type: 'string',
      value: 'MS',
      help: 'total time of one attempt, request to last byte (default 600000)',
    },
    rpm: { type: 'string', value: 'N', help: 'the upstream account’s requests per minute' },
    tpm: { type: 'string', value: 'N', help: 'the upstream account’s tokens per minute' },
    cloud: {
      type: 'string',
      value: 'k=v,…',
      help: 'azure, bedrock, vertex: auth, region, project, apiVersion, tenantId, clientId, roleArn, externalId',
    },
    headers: { type: 'string', value: 'Name=value,…', help: 'extra headers sent upstream (not secret)' },
    credential: {
      type: 'string',
      value: 'id=ID,key=KEY,rpm=N,tpm=N',
      help: 'one credential of a key pool, instead of --api-key (repeat per key; without key= the stored key of that id is kept)',
      multiple: true,
    },
    disabled: { type: 'boolean', help: 'create or keep the channel disabled' },
  },
  request: ({ positionals, values }) => {
    const credentials = repeatedFlag(values, 'credential');
    return {
      method: 'PUT',
      path: adminPath('channels', positionals[0]),
      body: {
        ...bodyFrom(values, CHANNEL_FIELDS),
        ...(credentials === undefined ? {} : { credentials: credentials.map(channelCredential) }),
        ...(values.disabled ? { enabled: false } : {}),
      },
    };
  },
  print: printRecordAnswer({
    field: 'channel',
    headline: (channel, body) => `${body.created ? 'created' : 'updated'} channel ${cellText(channel.id)}`,
  }),
};

const channelsRemove: CliCommand = {
  name: 'channels remove',
  summary: 'remove a channel',
  positionals: ['ID'],
  options: {},
  request: ({ positionals }) => ({ method: 'DELETE', path: adminPath('channels', positionals[0]) }),
  print: (body, out) => out.line(`removed channel ${cellText(body.removed)}`),
};

const whoami: CliCommand = {
  name: 'whoami',
  summary: 'check the admin token against the gateway: who your changes are recorded as',
  positionals: [],
  options: {},
  request: () => ({ method: 'GET', path: adminPath('whoami') }),
  print: (body, out) => out.line(`authenticated as ${cellText(body.actor)} (${cellText(body.auth)})`),
};

/** The `users`, `channels` and `whoami` commands. */
export const RESOURCE_COMMANDS: ReadonlyArray<CliCommand> = [
  usersCreate,
  usersList,
  usersUpdate,
  channelsList,
  channelsUpsert,
  channelsRemove,
  whoami,
];

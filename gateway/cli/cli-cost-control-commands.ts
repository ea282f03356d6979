/**
 * `tollgate teams …`, `budgets …` and `alert-webhooks …`: thin mappings from flags to the admin
 * API's team, budget and alert-webhook routes and from answers to tables.
 * `alert-webhooks create` prints the signing secret ALONE on the last line of stdout — it is
 * shown only once — so scripts can take `tail -n 1`.
 */
import { readFileSync } from 'node:fs';
import {
  asNumber,
  bodyFrom,
  list,
  modelsOrNull,
  numberOrNull,
  tagsAndModelLimits,
  usdOrNull,
  type CliCommand,
  type CliOption,
} from './cli-arguments.ts';
import { adminPath, listCommand, printRecordAnswer, updateCommand } from './cli-command-kinds.ts';
import { modelLimitsText } from './cli-key-commands.ts';
import { cellText } from './cli-table.ts';
import type { JsonRecord } from './admin-answer.ts';

const TEAM_OPTIONS: Record<string, CliOption> = {
  rpm: { type: 'string', value: 'N', help: 'requests per minute over all the team’s keys (none = unlimited)' },
  tpm: { type: 'string', value: 'N', help: 'tokens per minute over all the team’s keys (none = unlimited)' },
  rpd: { type: 'string', value: 'N', help: 'requests per day over all the team’s keys (none = unlimited)' },
  tpd: { type: 'string', value: 'N', help: 'tokens per day over all the team’s keys (none = unlimited)' },
  models: { type: 'string', value: 'a,b', help: 'models the team’s keys may reach (all = every model)' },
  tag: {
    type: 'string',
    value: 'NAME=VALUE',
    help: 'default tag of the team’s requests (none = no tags)',
    multiple: true,
  },
  'model-limit': {
    type: 'string',
    value: 'MODEL:rpm=N,tpm=N,rpd=N,tpd=N',
    help: 'limits of one model over the team’s keys (none = no per-model limits)',
    multiple: true,
  },
};

const TEAM_FIELDS = {
  name: ['name', String],
  rpm: ['rpm', numberOrNull],
  tpm: ['tpm', numberOrNull],
  rpd: ['rpd', numberOrNull],
  tpd: ['tpd', numberOrNull],
  models: ['models', modelsOrNull],
} as const;

/** Members as `userId:role` texts. */
function membersText(members: unknown): string[] {
  return Array.isArray(members) ? members.map((m: JsonRecord) => `${cellText(m.userId)}:${cellText(m.role)}`) : [];
}

/** The fields of a team record its commands print. */
function teamFields(team: JsonRecord): Record<string, unknown> {
  return {
    teamId: team.teamId,
    name: team.name,
    disabled: team.disabled,
    rpm: team.rpm,
    tpm: team.tpm,
    rpd: team.rpd,
    tpd: team.tpd,
    models: team.models,
    modelLimits: modelLimitsText(team.modelLimits),
    tags: team.tags,
    members: membersText(team.members),
  };
}

const printTeam = (verb: string) =>
  printRecordAnswer({ field: 'team', headline: (team) => `${verb} team ${cellText(team.teamId)}`, shown: teamFields });

const teamsList = listCommand({
  name: 'teams list',
  summary: 'list teams',
  collection: 'teams',
  field: 'teams',
  columns: [
    { header: 'TEAM ID', cell: (t) => t.teamId },
    { header: 'NAME', cell: (t) => t.name },
    { header: 'DISABLED', cell: (t) => t.disabled },
    { header: 'MEMBERS', cell: (t) => membersText(t.members) },
    { header: 'RPM', cell: (t) => t.rpm },
    { header: 'TPM', cell: (t) => t.tpm },
    { header: 'RPD', cell: (t) => t.rpd },
    { header: 'TPD', cell: (t) => t.tpd },
    { header: 'MODELS', cell: (t) => t.models },
    { header: 'TAGS', cell: (t) => t.tags },
  ],
});

const teamsCreate: CliCommand = {
  name: 'teams create',
  summary: 'create a team (project) that owns users and keys',
  positionals: [],
  options: { name: { type: 'string', value: 'NAME', help: 'display name', required: true }, ...TEAM_OPTIONS },
  request: ({ values }) => ({
    method: 'POST',
    path: adminPath('teams'),
    body: { ...bodyFrom(values, TEAM_FIELDS), ...tagsAndModelLimits(values) },
  }),
  print: printTeam('created'),
};

const teamsUpdate = updateCommand({
  name: 'teams update',
  summary: 'change a team (only the flags given; members are kept)',
  collection: 'teams',
  options: { name: { type: 'string', value: 'NAME', help: 'display name' }, ...TEAM_OPTIONS },
  fields: TEAM_FIELDS,
  extraBody: tagsAndModelLimits,
  switch: { field: 'disabled', enable: 'enable the team', disable: 'disable the team (all its keys are refused)' },
  print: printTeam('updated'),
});

const teamsDisable: CliCommand = {
  name: 'teams disable',
  summary: 'disable a team: all its keys are refused (teams are never deleted; `teams update ID --enable` undoes it)',
  positionals: ['ID'],
  options: {},
  request: ({ positionals }) => ({
    method: 'PATCH',
    path: adminPath('teams', positionals[0]),
    body: { disabled: true },
  }),
  print: printTeam('disabled'),
};

const teamsAddMember: CliCommand = {
  name: 'teams add-member',
  summary: 'add a user to a team, or change their role in it',
  positionals: ['TEAM', 'USER'],
  options: { role: { type: 'string', value: 'team_admin|member', help: 'role in the team (default member)' } },
  request: ({ positionals, values }) => ({
    method: 'PUT',
    path: `${adminPath('teams', positionals[0], 'members')}/${encodeURIComponent(positionals[1]!)}`,
    body: bodyFrom(values, { role: ['role', String] }),
  }),
  print: printTeam('updated'),
};

const teamsRemoveMember: CliCommand = {
  name: 'teams remove-member',
  summary: 'take a user out of a team',
  positionals: ['TEAM', 'USER'],
  options: {},
  request: ({ positionals }) => ({
    method: 'DELETE',
    path: `${adminPath('teams', positionals[0], 'members')}/${encodeURIComponent(positionals[1]!)}`,
  }),
  print: printTeam('updated'),
};

const BUDGET_FIELDS = {
  name: ['name', String],
  scope: ['scope', String],
  'scope-id': ['scopeId', String],
  'limit-usd': ['limitUsd', usdOrNull],
  'limit-tokens': ['limitTokens', numberOrNull],
  period: ['period', String],
  'rolling-ms': ['rollingMs', numberOrNull],
  'time-zone': ['timeZone', String],
  thresholds: ['thresholds', (text: string) => (text.toLowerCase() === 'none' ? [] : list(text).map(asNumber))],
  'downgrade-model': ['downgradeModel', (text: string) => (text.toLowerCase() === 'none' ? null : text)],
} as const;

const budgetsList = listCommand({
  name: 'budgets list',
  summary: 'list budgets (optionally of one scope and scope id)',
  collection: 'budgets',
  field: 'budgets',
  options: {
    scope: { type: 'string', value: 'SCOPE', help: 'only budgets on key, user, team, end_user or tag' },
    'scope-id': { type: 'string', value: 'ID', help: 'only budgets on this key, user, team, end user or tag' },
  },
  keep: (b, args) =>
    (args?.values.scope === undefined || b.scope === args.values.scope) &&
    (args?.values['scope-id'] === undefined || b.scopeId === args.values['scope-id']),
  columns: [
    { header: 'BUDGET ID', cell: (b) => b.budgetId },
    { header: 'NAME', cell: (b) => b.name },
    { header: 'SCOPE', cell: (b) => b.scope },
    { header: 'SCOPE ID', cell: (b) => b.scopeId },
    { header: 'LIMIT USD', cell: (b) => b.limitUsd },
    { header: 'LIMIT TOKENS', cell: (b) => b.limitTokens },
    { header: 'PERIOD', cell: (b) => (b.period === 'rolling' ? `rolling ${cellText(b.rollingMs)} ms` : b.period) },
    { header: 'TIME ZONE', cell: (b) => b.timeZone },
    { header: 'THRESHOLDS %', cell: (b) => b.thresholds },
    { header: 'DOWNGRADE TO', cell: (b) => b.downgradeModel },
  ],
});

const budgetsSet: CliCommand = {
  name: 'budgets set',
  summary: 'create a budget, or with --id change the given fields of one',
  positionals: [],
  options: {
    id: { type: 'string', value: 'ID', help: 'the budget to change (default: create a new one)' },
    name: { type: 'string', value: 'NAME', help: 'display name (required to create)' },
    scope: { type: 'string', value: 'SCOPE', help: 'key, user, team, end_user or tag (required to create)' },
    'scope-id': {
      type: 'string',
      value: 'ID',
      help: 'the key, user or team id, the end-user id, or NAME=VALUE for a tag (required to create)',
    },
    'limit-usd': { type: 'string', value: 'USD', help: 'spend limit per window, ≤ 9 decimals (none = no USD limit)' },
    'limit-tokens': { type: 'string', value: 'N', help: 'token limit per window (none = no token limit)' },
    period: {
      type: 'string',
      value: 'PERIOD',
      help: 'lifetime, day, week, month or rolling (required to create)',
    },
    'rolling-ms': { type: 'string', value: 'MS', help: 'window of a rolling budget, ms (≥ 60000)' },
    'time-zone': {
      type: 'string',
      value: 'ZONE',
      help: 'IANA time zone of day/week/month windows (default: the gateway’s)',
    },
    thresholds: { type: 'string', value: '50,80', help: 'alert at these percents of the limit (none = no alerts)' },
    'downgrade-model': {
      type: 'string',
      value: 'MODEL',
      help: 'at the limit, route to this model instead of refusing (none = refuse)',
    },
  },
  request: ({ values }) => {
    const id = typeof values.id === 'string' ? values.id : undefined;
    return {
      method: id === undefined ? 'POST' : 'PUT',
      path: adminPath('budgets', id),
      body: bodyFrom(values, BUDGET_FIELDS),
    };
  },
  print: printRecordAnswer({
    field: 'budget',
    headline: (budget) => `set budget ${cellText(budget.budgetId)}`,
  }),
};

const budgetsRemove: CliCommand = {
  name: 'budgets remove',
  summary: 'remove a budget',
  positionals: ['ID'],
  options: {},
  request: ({ positionals }) => ({ method: 'DELETE', path: adminPath('budgets', positionals[0]) }),
  print: (body, out) => out.line(`removed budget ${cellText(body.removed)}`),
};

const webhooksList = listCommand({
  name: 'alert-webhooks list',
  summary: 'list alert webhooks (never their secrets)',
  collection: 'alert-webhooks',
  field: 'alertWebhooks',
  columns: [
    { header: 'WEBHOOK ID', cell: (w) => w.webhookId },
    { header: 'NAME', cell: (w) => w.name },
    { header: 'FORMAT', cell: (w) => w.format },
    { header: 'ENABLED', cell: (w) => w.enabled },
    { header: 'SECRET', cell: (w) => (w.hasSecret ? 'set' : '-') },
    { header: 'URL', cell: (w) => w.url },
  ],
});

const webhooksCreate: CliCommand = {
  name: 'alert-webhooks create',
  summary:
    'add a webhook budget alerts are sent to (prints its signing secret alone on the last line: shown only once)',
  positionals: [],
  options: {
    name: { type: 'string', value: 'NAME', help: 'display name', required: true },
    url: { type: 'string', value: 'URL', help: 'http(s) URL alerts are POSTed to', required: true },
    format: { type: 'string', value: 'json|slack', help: 'Standard Webhooks JSON (default) or a Slack message' },
    secret: {
      type: 'string',
      value: 'whsec_…',
      help: 'signing secret to use ("-" reads it from stdin; default: generated)',
    },
    disabled: { type: 'boolean', help: 'create it disabled' },
  },
  request: ({ values }) => ({
    method: 'POST',
    path: adminPath('alert-webhooks'),
    body: {
      ...bodyFrom(values, {
        name: ['name', String],
        url: ['url', String],
        format: ['format', String],
        secret: ['secret', (text: string) => (text === '-' ? readFileSync(0, 'utf8').trim() : text)],
      }),
      ...(values.disabled ? { enabled: false } : {}),
    },
  }),
  print: printRecordAnswer({
    field: 'alertWebhook',
    headline: (webhook) => `created alert webhook ${cellText(webhook.webhookId)}`,
    secret: { noun: 'signing secret', field: 'secret' },
  }),
};

const webhooksRemove: CliCommand = {
  name: 'alert-webhooks remove',
  summary: 'remove an alert webhook',
  positionals: ['ID'],
  options: {},
  request: ({ positionals }) => ({ method: 'DELETE', path: adminPath('alert-webhooks', positionals[0]) }),
  print: (body, out) => out.line(`removed alert webhook ${cellText(body.removed)}`),
};

/** The `teams`, `budgets` and `alert-webhooks` commands. */
export const COST_CONTROL_COMMANDS: ReadonlyArray<CliCommand> = [
  teamsList,
  teamsCreate,
  teamsUpdate,
  teamsDisable,
  teamsAddMember,
  teamsRemoveMember,
  budgetsList,
  budgetsSet,
  budgetsRemove,
  webhooksList,
  webhooksCreate,
  webhooksRemove,
];

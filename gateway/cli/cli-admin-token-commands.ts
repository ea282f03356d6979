/**
 * `tollgate admin-tokens create|list|revoke`: personal admin tokens. A token names its holder in
 * the audit (`config_audit.actor`) for every change made with it; `create` prints the token ALONE
 * on the last line of stdout — it is shown only once — so scripts can take `tail -n 1`.
 */
import { bodyFrom, type CliCommand } from './cli-arguments.ts';
import { adminPath, listCommand, printRecordAnswer, revokeCommand } from './cli-command-kinds.ts';
import { cellText } from './cli-table.ts';

const create: CliCommand = {
  name: 'admin-tokens create',
  summary: 'create a personal admin token (prints it alone on the last line: it is shown only once)',
  positionals: [],
  options: {
    name: {
      type: 'string',
      value: 'NAME',
      help: 'whose token: recorded as the actor of their changes (3–64 of a-z 0-9 . _ @ -)',
      required: true,
    },
  },
  request: ({ values }) => ({
    method: 'POST',
    path: adminPath('admin-tokens'),
    body: bodyFrom(values, { name: ['name', String] }),
  }),
  print: printRecordAnswer({
    field: 'adminToken',
    headline: (adminToken) => `created admin token ${cellText(adminToken.tokenId)} for ${cellText(adminToken.name)}`,
    secret: { noun: 'token', field: 'token' },
  }),
};

const list = listCommand({
  name: 'admin-tokens list',
  summary: 'list personal admin tokens (never the tokens themselves)',
  collection: 'admin-tokens',
  field: 'adminTokens',
  columns: [
    { header: 'TOKEN ID', cell: (t) => t.tokenId },
    { header: 'NAME', cell: (t) => t.name },
    { header: 'STATUS', cell: (t) => t.status },
    { header: 'CREATED', cell: (t) => t.createdAt },
    { header: 'CREATED BY', cell: (t) => t.createdBy },
    { header: 'REVOKED', cell: (t) => t.revokedAt },
    { header: 'REVOKED BY', cell: (t) => t.revokedBy },
  ],
});

const revoke = revokeCommand({
  name: 'admin-tokens revoke',
  summary: 'revoke a personal admin token (refused from now on, on every node)',
  collection: 'admin-tokens',
  reasonHelp: 'why (kept in the audit)',
  print: printRecordAnswer({
    field: 'adminToken',
    headline: (adminToken) => `revoked admin token ${cellText(adminToken.tokenId)} (${cellText(adminToken.name)})`,
  }),
});

/** The `admin-tokens` commands. */
export const ADMIN_TOKEN_COMMANDS: ReadonlyArray<CliCommand> = [create, list, revoke];

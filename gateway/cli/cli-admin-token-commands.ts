/**
 * `tollgate admin-tokens create|list|revoke`: personal admin tokens. A token names its holder in
 * the audit (`config_audit.actor`) for every change made with it; `create` prints the token ALONE
 * on the last line of stdout — it is shown only once — so scripts can take `tail -n 1`.
 */
import { bodyFrom, segment, type CliCommand } from './cli-arguments.ts';
import { recordIn, recordsIn } from './admin-answer.ts';
import { cellText, printRecord, printTable } from './cli-table.ts';

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
    path: '/admin/api/admin-tokens',
    body: bodyFrom(values, { name: ['name', String] }),
  }),
  print(body, out) {
    const adminToken = recordIn(body, 'adminToken');
    out.line(`created admin token ${cellText(adminToken.tokenId)} for ${cellText(adminToken.name)}`);
    printRecord(out, adminToken);
    out.line('store this token now — it is shown only once:');
    out.line(cellText(body.token));
  },
};

const list: CliCommand = {
  name: 'admin-tokens list',
  summary: 'list personal admin tokens (never the tokens themselves)',
  positionals: [],
  options: {},
  request: () => ({ method: 'GET', path: '/admin/api/admin-tokens' }),
  print: (body, out) =>
    printTable(out, recordsIn(body, 'adminTokens'), [
      { header: 'TOKEN ID', cell: (t) => t.tokenId },
      { header: 'NAME', cell: (t) => t.name },
      { header: 'STATUS', cell: (t) => t.status },
      { header: 'CREATED', cell: (t) => t.createdAt },
      { header: 'CREATED BY', cell: (t) => t.createdBy },
      { header: 'REVOKED', cell: (t) => t.revokedAt },
      { header: 'REVOKED BY', cell: (t) => t.revokedBy },
    ]),
};

const revoke: CliCommand = {
  name: 'admin-tokens revoke',
  summary: 'revoke a personal admin token (refused from now on, on every node)',
  positionals: ['ID'],
  options: { reason: { type: 'string', value: 'TEXT', help: 'why (kept in the audit)' } },
  request: ({ positionals, values }) => ({
    method: 'POST',
    path: `/admin/api/admin-tokens/${segment(positionals[0]!)}/revoke`,
    body: bodyFrom(values, { reason: ['reason', String] }),
  }),
  print(body, out) {
    const adminToken = recordIn(body, 'adminToken');
    out.line(`revoked admin token ${cellText(adminToken.tokenId)} (${cellText(adminToken.name)})`);
    printRecord(out, adminToken);
  },
};

/** The `admin-tokens` commands. */
export const ADMIN_TOKEN_COMMANDS: ReadonlyArray<CliCommand> = [create, list, revoke];

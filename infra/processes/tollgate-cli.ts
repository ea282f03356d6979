/**
 * `npm run tollgate -- …`: the composition root of the `tollgate` CLI. The operators' commands
 * that read the engines directly (`events`, `replay`: infra/processes/tollgate-ops.ts) open their
 * adapters here; every other command is an admin API call (gateway/cli/run-cli.ts). Exit codes:
 * 0 ok, 1 API error or differences found, 2 usage error.
 */
import { runCli } from '../../gateway/cli/run-cli.ts';
import { runOpsCommand } from './tollgate-ops.ts';

const argv = process.argv.slice(2);
const io = {
  env: process.env,
  stdout: (line: string) => process.stdout.write(`${line}\n`),
  stderr: (line: string) => process.stderr.write(`${line}\n`),
};
process.exitCode = (await runOpsCommand(argv, io)) ?? (await runCli(argv, io));

/**
 * Entry point of the `tollgate` CLI (`npm run tollgate -- keys create --name ci`): runs
 * run-cli.ts with the real environment and streams, then exits with its code (0 ok, 1 API error,
 * 2 usage error).
 */
import { runCli } from './run-cli.ts';

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
process.exitCode = code;

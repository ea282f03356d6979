/**
 * Declares one agent's vitest matrix: every upstream protocol × {default model, explicit model}
 * × {plain prompt, tool round trip}, run concurrently (each case has its own upstream, gateway,
 * proxy, HOME and workspace). Each case asserts `checkAgentRun(...)` is empty, so a failure
 * message lists every problem of the run. When `TOLLGATE_E2E_REPORT_DIR` is set, a JSON line per
 * case (problems and the requests involved) is appended to `<dir>/<agent>.jsonl` for diagnosis.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WIRE_FORMATS } from '../../../../gateway/canonical/formats.ts';
import type { AgentName } from './agent-launchers.ts';
import { checkAgentRun } from './check-agent-run.ts';
import { runAgentCase, type AgentRunRecord } from './run-agent-case.ts';

/** Agent process limit per case, ms. */
const AGENT_TIMEOUT_MS = 75_000;

function writeReport(run: AgentRunRecord, problems: string[]): void {
  const dir = process.env.TOLLGATE_E2E_REPORT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const line = {
    ...run.agentCase,
    problems,
    durationMs: run.durationMs,
    exitCode: run.exitCode,
    client: run.clientExchanges.map((c) => ({
      method: c.method,
      url: c.url,
      status: c.status,
      errorBody: c.errorBody,
      upstream: [c.upstreamStart, c.upstreamEnd],
      body: c.body,
    })),
    upstream: run.upstreamExchanges.map((u) => ({ path: u.path, status: u.status, reply: u.reply, body: u.body })),
    stderr: run.stderr.slice(-4000),
    stdout: run.stdout.slice(-2000),
  };
  appendFileSync(join(dir, `${run.agentCase.agent}.jsonl`), `${JSON.stringify(line)}\n`);
}

/** Declares the matrix for `agent` (call at the top level of a test file). */
export function describeAgentMatrix(agent: AgentName): void {
  describe.concurrent(`${agent} through every upstream protocol`, () => {
    for (const protocol of WIRE_FORMATS) {
      for (const model of ['default', 'explicit'] as const) {
        for (const mode of ['plain', 'tool'] as const) {
          it(
            `${protocol} · ${model} model · ${mode === 'plain' ? 'plain prompt' : 'tool round trip'}`,
            { timeout: AGENT_TIMEOUT_MS + 15_000 },
            async () => {
              const run = await runAgentCase({ agent, protocol, model, mode }, AGENT_TIMEOUT_MS);
              const problems = checkAgentRun(run);
              writeReport(run, problems);
              expect(problems).toEqual([]);
            },
          );
        }
      }
    }
  });
}

/**
 * End to end: Claude Code and Codex, run offline, through a Google Vertex AI channel of each
 * protocol (Claude through rawPredict, Gemini through generateContent), for a tool round trip.
 * The channel authenticates with a throwaway service-account key against the Vertex fake
 * (test/support/vertex-upstream.ts), which checks the token, project, location and Vertex's body
 * rules and then forwards each call in its protocol's own shape to the agent harness's scripted
 * model (support/scripted-upstream.ts); the run is judged by the same checks as the agent matrix
 * (support/check-agent-run.ts): the agent exits 0 with the marker, every request is answered 2xx,
 * its tools reach the model, and the file's content comes back in the tool result.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WireFormat } from '../../../gateway/canonical/formats.ts';
import { startTestGateway, TEST_KEY } from '../../support/start-gateway.ts';
import { makeServiceAccountKey, startVertexFake } from '../../support/vertex-upstream.ts';
import { agentLauncher, type AgentName } from './support/agent-launchers.ts';
import { checkAgentRun } from './support/check-agent-run.ts';
import type { AgentScenario } from './support/plan-scripted-reply.ts';
import { startRecordingProxy } from './support/recording-proxy.ts';
import type { AgentRunRecord } from './support/run-agent-case.ts';
import { startScriptedUpstream } from './support/scripted-upstream.ts';

/** Agent process limit per case, ms. */
const AGENT_TIMEOUT_MS = 75_000;
const VERTEX = { project: 'agent-project', location: 'us-east5' };

/** Runs `command` in its own process group, killed whole after `timeoutMs`. */
function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
): Promise<{ exitCode: number | null; timedOut: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group already exited.
      }
    }, timeoutMs);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, timedOut, stdout, stderr });
    });
  });
}

/**
 * One tool round trip of `agent` through a Vertex channel of `protocol`, with the agent's default
 * model: the run, and the paths of the calls the Vertex fake accepted and forwarded.
 */
async function runThroughVertex(
  agent: AgentName,
  protocol: WireFormat,
): Promise<{ run: AgentRunRecord; vertexPaths: string[] }> {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), `tollgate-e2e-vertex-${agent}-`));
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  mkdirSync(home);
  mkdirSync(workspace);
  const noteSecret = `note-secret-${randomUUID()}`;
  const notePath = join(workspace, 'note.txt');
  writeFileSync(notePath, `${noteSecret}\n`);
  const scenario: AgentScenario = {
    mode: 'tool',
    marker: `TOLLGATE-E2E-${randomUUID().slice(0, 8).toUpperCase()}`,
    notePath,
  };
  const launcher = agentLauncher(agent);
  const model = await startScriptedUpstream(scenario);
  const vertex = await startVertexFake({ ...VERTEX, forwardTo: model.origin });
  const serviceAccount = makeServiceAccountKey(vertex.tokenUri);
  vertex.register(serviceAccount);
  const gateway = await startTestGateway({
    channels: [
      {
        id: `e2e-vertex-${protocol}`,
        provider: 'vertex',
        protocol,
        baseUrl: vertex.origin,
        apiKey: serviceAccount.json,
        cloud: { project: VERTEX.project, region: VERTEX.location },
        models: [...new Set([...launcher.defaultModels, launcher.explicitModel])],
      },
    ],
  });
  const proxy = await startRecordingProxy(gateway.origin, () => model.exchanges.length);
  try {
    const command = launcher.prepare({
      home,
      workspace,
      gatewayOrigin: proxy.origin,
      apiKey: TEST_KEY,
      model: undefined,
      prompt: 'Read the file note.txt in the current directory and tell me what it says.',
    });
    const result = await runProcess(command.command, command.args, command.env, workspace, AGENT_TIMEOUT_MS);
    const run: AgentRunRecord = {
      agentCase: { agent, protocol, model: 'default', mode: 'tool' },
      scenario,
      noteSecret,
      ...result,
      clientExchanges: proxy.exchanges,
      upstreamExchanges: model.exchanges,
      outcomes: gateway.outcomes,
      durationMs: Date.now() - started,
    };
    return { run, vertexPaths: vertex.requests.map((request) => request.path) };
  } finally {
    await proxy.close();
    await gateway.close();
    await vertex.close();
    await model.close();
    rmSync(root, { recursive: true, force: true });
  }
}

describe.concurrent('coding agents through Google Vertex AI channels', () => {
  for (const agent of ['claude-code', 'codex'] as const) {
    for (const protocol of ['anthropic-messages', 'gemini'] as const) {
      it(
        `${agent} · vertex ${protocol === 'gemini' ? 'Gemini' : 'Claude'} · tool round trip`,
        { timeout: AGENT_TIMEOUT_MS + 15_000 },
        async () => {
          const { run, vertexPaths } = await runThroughVertex(agent, protocol);
          expect(checkAgentRun(run)).toEqual([]);
          const method =
            protocol === 'gemini'
              ? 'google/models/[^:]+:streamGenerateContent'
              : 'anthropic/models/[^:]+:streamRawPredict';
          expect(vertexPaths.length).toBeGreaterThanOrEqual(2);
          for (const path of vertexPaths)
            expect(path).toMatch(
              new RegExp(`^/v1/projects/${VERTEX.project}/locations/${VERTEX.location}/publishers/${method}`),
            );
        },
      );
    }
  }
});

/**
 * Runs one agent case end to end: a scripted upstream speaking `protocol`, a gateway whose only
 * channel uses that protocol (directly, or through a cloud's fake: `AgentCase.cloud`) and serves
 * every model name the agent may send, a recording proxy in front of the gateway, and the agent
 * process in a private temp HOME and workspace.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UpstreamProtocol, WireFormat } from '../../../../gateway/canonical/formats.ts';
import type { ExchangeOutcome } from '../../../../gateway/exchange/exchange-outcome.ts';
import { startTestGateway, TEST_KEY } from '../../../support/start-gateway.ts';
import { agentLauncher, type AgentName } from './agent-launchers.ts';
import type { AgentScenario } from './plan-scripted-reply.ts';
import { startRecordingProxy, type ClientExchange } from './recording-proxy.ts';
import { cloudAgentChannel, type AgentCloud, type ConverseModelFamily } from './cloud-agent-channel.ts';
import { startScriptedUpstream, type ScriptedUpstream, type UpstreamExchange } from './scripted-upstream.ts';

/** The provider preset a channel of each protocol uses (each preset's native protocol). */
const PROVIDER_FOR: Readonly<Record<WireFormat, string>> = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  'anthropic-messages': 'anthropic',
  gemini: 'gemini',
};

/** One case of the matrix. */
export interface AgentCase {
  readonly agent: AgentName;
  /** The channel's protocol: one of the four wire formats, or `bedrock-converse` through the Bedrock cloud only. */
  readonly protocol: UpstreamProtocol;
  /** Reach the scripted model through this cloud's fake (cloud-agent-channel.ts) instead of directly. */
  readonly cloud?: AgentCloud;
  /** On a `bedrock-converse` channel, the Bedrock model family the agent's model names map to (default `claude`). */
  readonly converseFamily?: ConverseModelFamily;
  /** `default`: no model flag; `explicit`: the launcher's explicit model. */
  readonly model: 'default' | 'explicit';
  readonly mode: AgentScenario['mode'];
}

/** Everything one run produced. */
export interface AgentRunRecord {
  readonly agentCase: AgentCase;
  readonly scenario: AgentScenario;
  /** Text the note file holds; a tool round trip must carry it back to the upstream. */
  readonly noteSecret: string;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly clientExchanges: ReadonlyArray<ClientExchange>;
  readonly upstreamExchanges: ReadonlyArray<UpstreamExchange>;
  readonly outcomes: ReadonlyArray<ExchangeOutcome>;
  readonly durationMs: number;
}

function promptFor(mode: AgentScenario['mode']): string {
  return mode === 'tool'
    ? 'Read the file note.txt in the current directory and tell me what it says.'
    : 'Say hello in one short sentence. Do not use any tools.';
}

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
      // The agent and any command it spawned share its process group.
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

/** Whether `protocol` is one of the four wire formats, which the scripted upstream serves to a direct channel. */
function isWireFormat(protocol: UpstreamProtocol): protocol is WireFormat {
  return protocol in PROVIDER_FOR;
}

/** The direct channel of `protocol` to the scripted upstream, or the Error of a protocol only a cloud serves. */
function directChannel(
  protocol: UpstreamProtocol,
  upstream: ScriptedUpstream,
  models: ReadonlyArray<string>,
): Record<string, unknown> {
  if (!isWireFormat(protocol)) throw new Error(`${protocol} is reached through a cloud channel only (AgentCase.cloud)`);
  return {
    id: `e2e-${protocol}`,
    provider: PROVIDER_FOR[protocol],
    protocol,
    baseUrl: upstream.baseUrl(protocol),
    apiKey: 'upstream-secret',
    models,
  };
}

/**
 * Runs `agentCase` and returns the full record (never throws for agent failures; the caller
 * asserts). `timeoutMs` bounds the agent process; on expiry its process group is killed.
 * @throws Error for a `bedrock-converse` case without a cloud (before anything starts)
 */
export async function runAgentCase(agentCase: AgentCase, timeoutMs = 75_000): Promise<AgentRunRecord> {
  if (!agentCase.cloud && !isWireFormat(agentCase.protocol))
    throw new Error(`${agentCase.protocol} is reached through a cloud channel only (AgentCase.cloud)`);
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), `tollgate-e2e-${agentCase.agent}-`));
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  mkdirSync(home);
  mkdirSync(workspace);
  const noteSecret = `note-secret-${randomUUID()}`;
  const notePath = join(workspace, 'note.txt');
  writeFileSync(notePath, `${noteSecret}\n`);
  const scenario: AgentScenario = {
    mode: agentCase.mode,
    marker: `TOLLGATE-E2E-${randomUUID().slice(0, 8).toUpperCase()}`,
    notePath,
  };

  const launcher = agentLauncher(agentCase.agent);
  const upstream = await startScriptedUpstream(scenario);
  const models = [...new Set([...launcher.defaultModels, launcher.explicitModel])];
  const cloud = agentCase.cloud
    ? await cloudAgentChannel(agentCase.cloud, agentCase.protocol, upstream.origin, models, agentCase.converseFamily)
    : undefined;
  const gateway = await startTestGateway({
    channels: [
      cloud
        ? { id: `e2e-${agentCase.cloud}-${agentCase.protocol}`, ...cloud.channel, models }
        : directChannel(agentCase.protocol, upstream, models),
    ],
  });
  const proxy = await startRecordingProxy(gateway.origin, () => upstream.exchanges.length);
  try {
    const command = launcher.prepare({
      home,
      workspace,
      gatewayOrigin: proxy.origin,
      apiKey: TEST_KEY,
      model: agentCase.model === 'explicit' ? launcher.explicitModel : undefined,
      prompt: promptFor(agentCase.mode),
    });
    const result = await runProcess(command.command, command.args, command.env, workspace, timeoutMs);
    return {
      agentCase,
      scenario,
      noteSecret,
      ...result,
      clientExchanges: proxy.exchanges,
      upstreamExchanges: upstream.exchanges,
      outcomes: gateway.outcomes,
      durationMs: Date.now() - started,
    };
  } finally {
    await proxy.close();
    await gateway.close();
    await cloud?.close();
    await upstream.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The pass criteria of one agent run, as a list of readable problems (empty = passed):
 * the agent exited 0 and printed the marker; every request it sent was answered 2xx; every tool
 * it offered, and any structured-output schema it asked for, reached the upstream in the paired
 * upstream request; in a tool round trip, the
 * scripted tool call was made and the tool's output (the note secret) reached the upstream.
 */
import { agentLauncher } from './agent-launchers.ts';
import { generationFormatOf, readWireRequest, type WireRequestSummary } from './read-wire-request.ts';
import type { AgentRunRecord } from './run-agent-case.ts';
import type { ClientExchange } from './recording-proxy.ts';

function clip(text: string, length = 600): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

function pathOf(url: string): string {
  return url.split('?')[0] ?? url;
}

function summariseClient(exchange: ClientExchange): WireRequestSummary | undefined {
  const format = generationFormatOf(exchange.url);
  if (!format || typeof exchange.body !== 'object') return undefined;
  try {
    return readWireRequest(format, pathOf(exchange.url), exchange.body);
  } catch {
    return undefined;
  }
}

function processProblems(run: AgentRunRecord): string[] {
  const problems: string[] = [];
  if (run.timedOut) problems.push(`agent timed out; stderr: ${clip(run.stderr.slice(-1500), 1500)}`);
  else if (run.exitCode !== 0)
    problems.push(
      `agent exited ${String(run.exitCode)}; stderr: ${clip(run.stderr.slice(-1500), 1500)}; stdout: ${clip(run.stdout.slice(-800))}`,
    );
  const swallowed = agentLauncher(run.agentCase.agent).swallowedFailure?.exec(run.stderr);
  if (swallowed)
    problems.push(
      `the agent reported a swallowed failure: ${clip(run.stderr.slice(swallowed.index, swallowed.index + 600))}`,
    );
  if (!run.stdout.includes(run.scenario.marker))
    problems.push(`agent output lacks marker ${run.scenario.marker}; stdout: ${clip(run.stdout.slice(-800))}`);
  return problems;
}

function statusProblems(run: AgentRunRecord): string[] {
  return run.clientExchanges
    .filter((exchange) => exchange.status < 200 || exchange.status >= 300)
    .map(
      (exchange) =>
        `${exchange.method} ${pathOf(exchange.url)} answered ${exchange.status}: ${clip(exchange.errorBody ?? '')}`,
    );
}

/**
 * Built-in tools the README lists as safe to leave out on translated paths ("What the gateway
 * drops"): web search and tool search are only offered, the model answers without them. Every
 * other tool an agent offers must reach the upstream.
 */
const OFFER_ONLY_BUILT_INS: ReadonlySet<string> = new Set(['web_search', 'web_search_preview', 'tool_search']);

function forwardingProblems(run: AgentRunRecord): string[] {
  const problems: string[] = [];
  for (const exchange of run.clientExchanges) {
    const client = summariseClient(exchange);
    if (!client || exchange.status < 200 || exchange.status >= 300) continue;
    const upstream = run.upstreamExchanges
      .slice(exchange.upstreamStart, exchange.upstreamEnd)
      .filter((u) => u.summary && u.status === 200);
    const forwarded = upstream.at(-1)?.summary;
    if (!forwarded) {
      problems.push(
        `${pathOf(exchange.url)} (model ${client.model}) answered ${exchange.status} but no generation request reached the upstream`,
      );
      continue;
    }
    const upstreamNames = new Set(forwarded.tools.map((tool) => tool.name));
    const dropped = client.tools
      .filter((tool) => !upstreamNames.has(tool.name) && !OFFER_ONLY_BUILT_INS.has(tool.name))
      .map((tool) => `${tool.name} (${tool.kind})`);
    if (dropped.length > 0)
      problems.push(
        `${pathOf(exchange.url)} (model ${client.model}): tools offered by the agent never reached the upstream: ${dropped.join(', ')}`,
      );
    if (client.jsonSchema && !forwarded.jsonSchema)
      problems.push(
        `${pathOf(exchange.url)} (model ${client.model}): the structured-output schema the agent asked for never reached the upstream`,
      );
  }
  for (const refused of run.upstreamExchanges.filter((u) => u.status === 400))
    problems.push(`the upstream refused ${refused.path}: ${refused.refusal ?? 'unreadable request'}`);
  return problems;
}

function roundTripProblems(run: AgentRunRecord): string[] {
  if (run.agentCase.mode !== 'tool') return [];
  const callIndex = run.upstreamExchanges.findIndex((u) => u.reply?.kind === 'tool-call');
  if (callIndex < 0)
    return [
      `no upstream request offered a harmless tool, so no tool call was scripted (offered: ${run.upstreamExchanges
        .flatMap((u) => u.summary?.tools.map((t) => t.name) ?? [])
        .slice(0, 30)
        .join(', ')})`,
    ];
  const call = run.upstreamExchanges[callIndex]?.reply;
  const followUps = run.upstreamExchanges
    .slice(callIndex + 1)
    .filter((u) => u.summary && u.summary.toolResults.length > 0);
  if (followUps.length === 0)
    return [
      `the scripted call of ${call?.kind === 'tool-call' ? call.toolName : '?'} got no follow-up request carrying a tool result`,
    ];
  const carried = followUps.some((u) => u.summary?.toolResults.some((result) => result.includes(run.noteSecret)));
  if (!carried)
    return [
      `the tool result that reached the upstream lacks the note secret: ${clip(JSON.stringify(followUps[0]?.summary?.toolResults))}`,
    ];
  return [];
}

function modelProblems(run: AgentRunRecord): string[] {
  const launcher = agentLauncher(run.agentCase.agent);
  const models = run.clientExchanges.map(summariseClient).flatMap((summary) => (summary ? [summary.model] : []));
  if (models.length === 0) return ['the agent sent no model request'];
  if (run.agentCase.model === 'explicit' && !models.includes(launcher.explicitModel))
    return [`no request used the explicit model ${launcher.explicitModel} (sent: ${[...new Set(models)].join(', ')})`];
  if (run.agentCase.model === 'default') {
    const unknown = models.filter((model) => !launcher.defaultModels.includes(model));
    if (unknown.length > 0)
      return [`the agent sent model names outside its known defaults: ${[...new Set(unknown)].join(', ')}`];
  }
  return [];
}

/** Every way `run` fails the matrix's criteria (see the module comment); `[]` when it passed. */
export function checkAgentRun(run: AgentRunRecord): string[] {
  return [
    ...processProblems(run),
    ...statusProblems(run),
    ...forwardingProblems(run),
    ...roundTripProblems(run),
    ...modelProblems(run),
  ];
}

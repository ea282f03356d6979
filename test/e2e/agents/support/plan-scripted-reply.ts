/**
 * The scripted model's behaviour, decided from what a request asks (protocol-neutral):
 * - structured output asked → a JSON value that satisfies the schema's required fields;
 * - `tool` scenario, tools offered, no tool result yet → a call of one harmless offered tool that
 *   reads the scenario's note file in the workspace;
 * - otherwise → final text carrying the scenario's marker.
 */
import type { JsonObject, OfferedTool, WireRequestSummary } from './read-wire-request.ts';
import type { ScriptedReply } from './encode-wire-reply.ts';

/** What one agent run is scripted to do. */
export interface AgentScenario {
  /** `plain`: answer with text at once; `tool`: call a tool first, then answer. */
  readonly mode: 'plain' | 'tool';
  /** Text that the final answer carries, and that the test looks for in the agent's output. */
  readonly marker: string;
  /** Absolute path of a file in the workspace that the tool call reads (or lists the folder of). */
  readonly notePath: string;
}

/**
 * Harmless tools, most preferred first: Claude Code (`Read`, `LS`, `Bash`), Gemini CLI
 * (`read_file`, `list_directory`, `run_shell_command`), Codex (`shell_command`, `exec_command`,
 * `shell`, and its freeform `exec`).
 */
const HARMLESS_TOOLS = [
  'Read',
  'read_file',
  'shell_command',
  'exec_command',
  'shell',
  'Bash',
  'run_shell_command',
  'LS',
  'list_directory',
  'exec',
];

/**
 * A value satisfying `schema`'s types, enums and required properties: the first enum member,
 * `"e2e"` for strings, `minimum` (else 1) for numbers, `false`, `[]`, `null`; `{}` without a schema.
 */
export function sampleJsonFor(schema: JsonObject | undefined): unknown {
  if (!schema) return {};
  const enumValues = schema.enum;
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues[0];
  const anyOf = (schema.anyOf ?? schema.oneOf) as JsonObject[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length > 0) return sampleJsonFor(anyOf[0]);
  const type = String(Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? 'object')).toLowerCase();
  if (type === 'string') return 'e2e';
  if (type === 'number' || type === 'integer') return typeof schema.minimum === 'number' ? schema.minimum : 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'null') return null;
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(properties);
  return Object.fromEntries(required.map((name) => [name, sampleJsonFor(properties[name])]));
}

function argumentFor(name: string, schema: JsonObject | undefined, scenario: AgentScenario): unknown {
  const folder = scenario.notePath.slice(0, scenario.notePath.lastIndexOf('/'));
  const type = (typeof schema?.type === 'string' ? schema.type : 'string').toLowerCase();
  if (/command|cmd/i.test(name)) return type === 'array' ? ['cat', scenario.notePath] : `cat ${scenario.notePath}`;
  if (/dir|folder|workdir|cwd/i.test(name)) return folder;
  if (/path|file/i.test(name)) return scenario.notePath;
  return sampleJsonFor(schema);
}

/**
 * Codex's freeform `exec` tool runs JavaScript in which its other tools are `tools.<name>(…)`
 * (its own tool description says so); the script runs the note through `exec_command`.
 */
function freeformInput(tool: OfferedTool, scenario: AgentScenario): string {
  if (tool.name === 'exec' || tool.name.endsWith('__exec')) {
    return `const result = await tools.exec_command({ cmd: ${JSON.stringify(`cat ${scenario.notePath}`)} });\ntext(typeof result === 'string' ? result : JSON.stringify(result));`;
  }
  return `cat ${scenario.notePath}`;
}

function callOf(tool: OfferedTool, scenario: AgentScenario): ScriptedReply {
  if (tool.kind === 'custom')
    return { kind: 'tool-call', toolName: tool.name, toolKind: 'custom', input: freeformInput(tool, scenario) };
  const properties = (tool.parameters?.properties ?? {}) as Record<string, JsonObject>;
  const required = Array.isArray(tool.parameters?.required) ? (tool.parameters.required as string[]) : [];
  // `input` is the one string parameter a gateway gives a translated freeform tool: it carries the raw command.
  const args = Object.fromEntries(
    required.map((name) => [
      name,
      name === 'input' && required.length === 1
        ? freeformInput(tool, scenario)
        : argumentFor(name, properties[name], scenario),
    ]),
  );
  return { kind: 'tool-call', toolName: tool.name, toolKind: 'function', input: JSON.stringify(args) };
}

/** The harmless tool this scenario would call among `tools`, if any. */
export function chooseHarmlessTool(tools: ReadonlyArray<OfferedTool>): OfferedTool | undefined {
  for (const wanted of HARMLESS_TOOLS) {
    const found = tools.find(
      (tool) => tool.kind !== 'builtin' && (tool.name === wanted || tool.name.endsWith(`__${wanted}`)),
    );
    if (found) return found;
  }
  return undefined;
}

/** Decides the scripted answer to `request` under `scenario` (see the module comment). */
export function planScriptedReply(request: WireRequestSummary, scenario: AgentScenario): ScriptedReply {
  if (request.jsonSchema) return { kind: 'text', text: JSON.stringify(sampleJsonFor(request.jsonSchema)) };
  const tool =
    scenario.mode === 'tool' && request.toolResults.length === 0 ? chooseHarmlessTool(request.tools) : undefined;
  if (tool) return callOf(tool, scenario);
  return { kind: 'text', text: `All done. ${scenario.marker}` };
}

/**
 * The request shape Codex CLI 0.169 sends for models it knows: no top-level `tools`; its tools
 * arrive in an `additional_tools` input item holding `namespace` tools whose members are `custom`
 * (grammar) and `function` tools (schemas AdditionalTools, NamespaceToolParam, CustomToolParam of
 * the OpenAI OpenAPI document).
 */

/** The lark grammar of Codex's `exec` tool (shortened; any definition is carried verbatim). */
export const EXEC_GRAMMAR = 'start: command\ncommand: /.+/s';

/** The `wait` function's parameters. */
export const WAIT_PARAMETERS = {
  type: 'object',
  properties: { ms: { type: 'number' } },
  required: ['ms'],
  additionalProperties: false,
};

/** The `spawn_agent` function's parameters (namespace `collaboration`). */
export const SPAWN_PARAMETERS = { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] };

/** The `additional_tools` input item. */
export const CODEX_TOOLS_ITEM = {
  type: 'additional_tools',
  role: 'developer',
  tools: [
    {
      type: 'namespace',
      name: 'functions',
      description: 'Default tools.',
      tools: [
        {
          type: 'custom',
          name: 'exec',
          description: 'Runs a shell command.',
          format: { type: 'grammar', syntax: 'lark', definition: EXEC_GRAMMAR },
        },
        { type: 'function', name: 'wait', description: 'Waits.', parameters: WAIT_PARAMETERS },
      ],
    },
    {
      type: 'namespace',
      name: 'collaboration',
      description: 'Sub-agents.',
      tools: [
        { type: 'function', name: 'spawn_agent', description: 'Starts a sub-agent.', parameters: SPAWN_PARAMETERS },
      ],
    },
  ],
};

/** A Codex create body: instructions, the tools item, one user message. */
export function codexBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'gw-model',
    instructions: 'You are Codex.',
    input: [
      CODEX_TOOLS_ITEM,
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List files.' }] },
    ],
    stream: true,
    ...extra,
  };
}

/**
 * Canonical tools / tool choice → Anthropic `tools` and `tool_choice` (per https://docs.anthropic.com/en/api/messages).
 */
import type { CanonicalRequest } from '../../canonical/request.ts';

/** An Anthropic custom tool definition. */
export interface AnthropicTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: Record<string, unknown>;
}

/** Anthropic `tool_choice`. */
export type AnthropicToolChoice =
  | { readonly type: 'auto' | 'any'; readonly disable_parallel_tool_use?: true }
  | { readonly type: 'tool'; readonly name: string; readonly disable_parallel_tool_use?: true }
  | { readonly type: 'none' };

/**
 * Encodes `tools` and `tool_choice`. `input_schema` is the tool's JSON Schema with `type: "object"`
 * added when missing (Anthropic requires it). Choice: auto → `auto`, required → `any`, tool →
 * `{type:"tool",name}`, none → `none`; `parallelToolCalls: false` → `disable_parallel_tool_use:
 * true` (on an `auto` choice when the client gave none). Without tools, no `tool_choice` is sent.
 */
export function encodeAnthropicTools(request: CanonicalRequest): {
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
} {
  if (!request.tools || request.tools.length === 0) return {};
  const tools = request.tools.map((tool): AnthropicTool => {
    const input_schema =
      typeof tool.parameters.type === 'string' ? tool.parameters : { type: 'object', ...tool.parameters };
    return tool.description === undefined
      ? { name: tool.name, input_schema }
      : { name: tool.name, description: tool.description, input_schema };
  });
  const noParallel = request.parallelToolCalls === false ? { disable_parallel_tool_use: true as const } : {};
  const choice = request.toolChoice;
  if (choice === undefined)
    return request.parallelToolCalls === false ? { tools, tool_choice: { type: 'auto', ...noParallel } } : { tools };
  switch (choice.type) {
    case 'auto':
      return { tools, tool_choice: { type: 'auto', ...noParallel } };
    case 'required':
      return { tools, tool_choice: { type: 'any', ...noParallel } };
    case 'tool':
      return { tools, tool_choice: { type: 'tool', name: choice.name, ...noParallel } };
    case 'none':
      return { tools, tool_choice: { type: 'none' } };
  }
}

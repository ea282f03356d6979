/**
 * Where a tool result lands in the canonical conversation when an OpenAI client sends it as a turn
 * of its own: a Chat Completions `tool` (or legacy `function`) message
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages) or a Responses
 * `function_call_output` / `custom_tool_call_output` item
 * (https://platform.openai.com/docs/api-reference/responses/create#responses_create-input).
 * Canonical tool results travel in a user turn, so a run of them makes one such turn.
 */
import type { ContentPart, ToolResultPart } from '../../canonical/request.ts';

/** A conversation turn while a decoder is still building it (its content may grow). */
export interface TurnUnderConstruction {
  readonly role: 'user' | 'assistant';
  readonly content: ContentPart[];
}

/**
 * Appends `part` to the last turn when that turn is a user turn of tool results only, else pushes
 * a new user turn `[part]`. Mutates `turns`; never throws.
 */
export function appendToolResult(turns: TurnUnderConstruction[], part: ToolResultPart): void {
  const last = turns.at(-1);
  if (last?.role === 'user' && last.content.every((p) => p.type === 'tool-result')) last.content.push(part);
  else turns.push({ role: 'user', content: [part] });
}

/**
 * The parts of `tool_choice` that Chat Completions
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice) and Responses
 * (https://platform.openai.com/docs/api-reference/responses/create#responses_create-tool_choice)
 * spell alike: the three mode strings, the rule that anything else is an object with a string
 * `type`, and the `allowed_tools` restriction that only survives translation as its mode.
 */
import type { ToolChoice } from '../../canonical/request.ts';
import type { TranslationNotes } from '../../canonical/translation-notes.ts';
import { isJsonObject, RequestFieldError } from './request-field-error.ts';

/** A `tool_choice` object whose `type` is a string; its other members are the format's own. */
export type ToolChoiceObject = Readonly<Record<string, unknown>> & { readonly type: string };

/**
 * Decodes `tool_choice`: undefined when absent or null; `"none"|"auto"|"required"` as that mode;
 * an object with a string `type` as `decodeObject` decides (the format's named and built-in
 * choices). Throws RequestFieldError (param `tool_choice`) for any other string, and for a value
 * that is neither a string nor an object with a string `type`.
 */
export function decodeOpenAiToolChoice(
  choice: unknown,
  decodeObject: (choice: ToolChoiceObject) => ToolChoice | undefined,
): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'none' || choice === 'auto' || choice === 'required') return { type: choice };
  if (typeof choice === 'string')
    throw new RequestFieldError(['tool_choice'], `expected 'none', 'auto', 'required' or an object, got '${choice}'`);
  if (!isJsonObject(choice) || typeof choice.type !== 'string')
    throw new RequestFieldError(['tool_choice'], 'expected a string or an object with a string `type`');
  return decodeObject(choice as ToolChoiceObject);
}

/**
 * An `allowed_tools` choice whose `mode` is `allowedMode`: the allowed subset cannot be expressed
 * on other APIs, so the choice keeps only its mode (`required`, else `auto`) and a refusal is noted
 * at `tool_choice`.
 */
export function allowedToolsMode(allowedMode: unknown, warnings: TranslationNotes): ToolChoice {
  const mode = allowedMode === 'required' ? 'required' : 'auto';
  warnings.refuse('tool_choice', `an allowed_tools restriction (mode '${mode}') cannot be expressed on other APIs`);
  return { type: mode };
}

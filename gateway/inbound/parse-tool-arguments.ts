/**
 * Tool-call arguments travel as JSON text in the canonical model (OpenAI style) but as a JSON
 * object in Anthropic `tool_use.input` (https://docs.anthropic.com/en/api/messages) and Gemini
 * `functionCall.args` (https://ai.google.dev/api/generate-content). Shared by both codecs.
 */

/** Result of reading arguments text: the object, and whether the text had to be replaced by `{}`. */
export interface ParsedToolArguments {
  readonly value: Record<string, unknown>;
  /** True when the text was not empty and not a JSON object (the object is then `{}`). */
  readonly replaced: boolean;
}

/**
 * Parses `arguments` JSON text into an object. Empty/blank text is `{}` (a call without arguments).
 * Invalid JSON or a non-object value (array, string, number) yields `{}` with `replaced: true`
 * so encoders can keep going; never throws.
 */
export function parseToolArguments(text: string): ParsedToolArguments {
  if (text.trim() === '') return { value: {}, replaced: false };
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return { value: parsed as Record<string, unknown>, replaced: false };
  } catch {
    // fall through: not JSON
  }
  return { value: {}, replaced: true };
}

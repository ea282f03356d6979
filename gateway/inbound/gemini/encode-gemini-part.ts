/**
 * Output blocks → Gemini response parts (https://ai.google.dev/api/generate-content): reasoning →
 * `{text, thought: true}` (+ `thoughtSignature`), text → `{text}`, tool call →
 * `{functionCall: {name, args, id}}` (+ `thoughtSignature`). Anthropic redacted reasoning has no
 * Gemini form and yields no part.
 */
import type { OutputBlock } from '../../canonical/response.ts';
import { parseToolArguments } from '../parse-tool-arguments.ts';

/** A part of a Gemini response candidate. */
export type GeminiOutputPart =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown>; id: string }; thoughtSignature?: string };

/** A functionCall part; `argumentsText` that is not a JSON object becomes `args: {}`. */
export function encodeGeminiFunctionCall(
  id: string,
  name: string,
  argumentsText: string,
  signature: string | undefined,
): GeminiOutputPart {
  const functionCall = { name, args: parseToolArguments(argumentsText).value, id };
  return signature ? { functionCall, thoughtSignature: signature } : { functionCall };
}

/** A thought part (`thought: true`), with its signature when there is one. */
export function encodeGeminiThought(text: string, signature: string | undefined): GeminiOutputPart {
  return signature ? { text, thought: true, thoughtSignature: signature } : { text, thought: true };
}

/** One block → one part, or undefined for redacted reasoning. */
export function encodeGeminiPart(block: OutputBlock): GeminiOutputPart | undefined {
  switch (block.type) {
    case 'reasoning':
      return block.redacted !== undefined ? undefined : encodeGeminiThought(block.text, block.signature);
    case 'text':
      return { text: block.text };
    case 'tool-call':
      return encodeGeminiFunctionCall(block.id, block.name, block.arguments, block.signature);
  }
}

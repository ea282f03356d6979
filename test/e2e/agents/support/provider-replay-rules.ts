/**
 * Replay rules that real providers enforce on multi-turn tool use, and that the scripted upstream
 * enforces the same way (answering 400 with the provider's error shape):
 *
 * - Anthropic, extended/adaptive thinking with tools: "you must pass thinking blocks back to the
 *   API for the last assistant message", unmodified with their signature; otherwise the API
 *   answers 400 ("a final `assistant` message must start with a thinking block").
 *   https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 * - Gemini 3: "the first functionCall part in each step of the current turn" must carry the
 *   `thoughtSignature` the model returned, else 400 INVALID_ARGUMENT.
 *   https://ai.google.dev/gemini-api/docs/thought-signatures
 * - Amazon Bedrock Converse: `toolConfig` must be given when the messages hold `toolUse` or
 *   `toolResult` blocks, and each `toolResult` must answer a `toolUse` of the previous assistant
 *   message (https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html);
 *   for Claude with thinking on (`additionalModelRequestFields.thinking`), the last assistant
 *   message with tool use must start with the `reasoningContent` block the model returned,
 *   unmodified (its text is the one its signature was issued for), signed
 *   (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html,
 *   "Extended thinking with tool use"), which Bedrock relays as a 400 ValidationException with
 *   Claude's own message. The first two messages are the Bedrock fake's
 *   (test/support/bedrock-upstream.ts).
 *
 * Signatures are opaque to clients: the fake issues random ones and accepts only those.
 */
import { randomUUID } from 'node:crypto';
import type { UpstreamProtocol } from '../../../../gateway/canonical/formats.ts';
import type { JsonObject } from './read-wire-request.ts';

/**
 * Values the Gemini docs allow in place of a real signature for calls the model did not make
 * (https://ai.google.dev/gemini-api/docs/thought-signatures, "FAQs"); Gemini CLI sends the first.
 */
const GEMINI_DUMMY_SIGNATURES: ReadonlySet<string> = new Set([
  'skip_thought_signature_validator',
  'context_engineering_is_the_way_to_go',
]);

/** The signatures one fake upstream has issued (shared by every request it answers), with the reasoning text each signs. */
export class IssuedSignatures {
  private readonly issued = new Map<string, string>();

  /** Mints and remembers a new signature (base64 text, like the providers') of the reasoning `text`. */
  mint(text = ''): string {
    const signature = Buffer.from(`sig:${randomUUID()}`).toString('base64');
    this.issued.set(signature, text);
    return signature;
  }

  /** Whether `value` is a signature this upstream issued. */
  has(value: unknown): boolean {
    return typeof value === 'string' && this.issued.has(value);
  }

  /** Whether `signature` was issued for exactly the reasoning `text` (a signature covers its text). */
  signs(signature: unknown, text: unknown): boolean {
    return typeof signature === 'string' && this.issued.get(signature) === text;
  }
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value)
    ? value.filter((item): item is JsonObject => typeof item === 'object' && item !== null)
    : [];
}

/** Whether an Anthropic request turns thinking on (`enabled` or `adaptive`). */
export function anthropicThinkingOn(body: JsonObject): boolean {
  const thinking = body.thinking as JsonObject | undefined;
  return thinking?.type === 'enabled' || thinking?.type === 'adaptive';
}

function anthropicViolation(body: JsonObject, signatures: IssuedSignatures): string | undefined {
  if (!anthropicThinkingOn(body)) return undefined;
  const messages = objects(body.messages);
  const lastAssistantIndex = messages.map((message) => message.role).lastIndexOf('assistant');
  const lastAssistant = messages[lastAssistantIndex];
  if (!lastAssistant || !Array.isArray(lastAssistant.content)) return undefined;
  const blocks = objects(lastAssistant.content);
  if (!blocks.some((block) => block.type === 'tool_use')) return undefined;
  const first = blocks[0];
  if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
    return `messages.${lastAssistantIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
  }
  if (first.type === 'thinking' && !signatures.has(first.signature))
    return `messages.${lastAssistantIndex}.content.0: Invalid \`signature\` in \`thinking\` block`;
  return undefined;
}

function geminiViolation(body: JsonObject, signatures: IssuedSignatures): string | undefined {
  const contents = objects(body.contents);
  // The current turn starts after the last user content that carries text (not only function responses).
  const turnStart = contents
    .map((content) => content.role !== 'model' && objects(content.parts).some((part) => typeof part.text === 'string'))
    .lastIndexOf(true);
  for (let index = turnStart + 1; index < contents.length; index++) {
    const content = contents[index];
    if (content?.role !== 'model') continue;
    const firstCall = objects(content.parts).find((part) => part.functionCall !== undefined);
    const signature = firstCall?.thoughtSignature;
    if (
      firstCall &&
      !signatures.has(signature) &&
      !(typeof signature === 'string' && GEMINI_DUMMY_SIGNATURES.has(signature))
    ) {
      return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String((firstCall.functionCall as JsonObject).name)}\` , position ${index + 1}.`;
    }
  }
  return undefined;
}

/** Whether a Converse request turns Claude's thinking on (`additionalModelRequestFields.thinking`). */
export function converseThinkingOn(body: JsonObject): boolean {
  const fields = body.additionalModelRequestFields as JsonObject | undefined;
  const thinking = fields?.thinking as JsonObject | undefined;
  return thinking?.type === 'enabled' || thinking?.type === 'adaptive';
}

function converseViolation(body: JsonObject, signatures: IssuedSignatures): string | undefined {
  const messages = objects(body.messages);
  const hasToolBlocks = messages.some((message) =>
    objects(message.content).some((block) => block.toolUse !== undefined || block.toolResult !== undefined),
  );
  if (hasToolBlocks && body.toolConfig === undefined)
    return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  for (const [index, message] of messages.entries()) {
    const previous = messages[index - 1];
    const uses = new Set(
      previous?.role === 'assistant'
        ? objects(previous.content).map((block) => (block.toolUse as JsonObject | undefined)?.toolUseId)
        : [],
    );
    for (const block of objects(message.content)) {
      const id = (block.toolResult as JsonObject | undefined)?.toolUseId;
      if (block.toolResult !== undefined && !uses.has(id))
        return `messages.${index}: the toolResult ${String(id)} has no toolUse in the previous assistant turn`;
    }
  }
  if (!converseThinkingOn(body)) return undefined;
  const lastAssistantIndex = messages.map((message) => message.role).lastIndexOf('assistant');
  const blocks = objects(messages[lastAssistantIndex]?.content);
  if (!blocks.some((block) => block.toolUse !== undefined)) return undefined;
  const reasoning = blocks[0]?.reasoningContent as JsonObject | undefined;
  if (!reasoning)
    return `The model returned the following errors: messages.${lastAssistantIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(Object.keys(blocks[0] ?? {})[0])}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
  const reasoningText = reasoning.reasoningText as JsonObject | undefined;
  if (reasoning.redactedContent === undefined && !signatures.signs(reasoningText?.signature, reasoningText?.text))
    return `The model returned the following errors: messages.${lastAssistantIndex}.content.0: Invalid \`signature\` in \`thinking\` block`;
  return undefined;
}

/**
 * The provider's 400 message if `body` (a `format` generation request) breaks a replay rule
 * above, else undefined. Formats without such a rule always pass.
 */
export function replayRuleViolation(
  format: UpstreamProtocol,
  body: JsonObject,
  signatures: IssuedSignatures,
): string | undefined {
  if (format === 'anthropic-messages') return anthropicViolation(body, signatures);
  if (format === 'gemini') return geminiViolation(body, signatures);
  if (format === 'bedrock-converse') return converseViolation(body, signatures);
  return undefined;
}

/**
 * The provider's JSON error body for a 400 with `message` (Bedrock: the restJson1 error body
 * `{"message": …}`, https://smithy.io/2.0/aws/protocols/aws-restjson1-protocol.html#operation-error-serialization).
 */
export function invalidRequestBody(format: UpstreamProtocol, message: string): string {
  if (format === 'bedrock-converse') return JSON.stringify({ message });
  if (format === 'anthropic-messages')
    return JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } });
  if (format === 'gemini') return JSON.stringify({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
  return JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } });
}

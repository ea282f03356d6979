/**
 * Decodes an Anthropic Messages request body (https://docs.anthropic.com/en/api/messages) — and the
 * `count_tokens` body (https://docs.anthropic.com/en/api/messages-count-tokens) — into a CanonicalRequest. Never throws: bad input yields
 * `{ ok: false, message, param }` naming the field path.
 */
import type { CanonicalMessage, CanonicalRequest, DecodeResult } from '../../canonical/request.ts';
import {
  anthropicRequestSchema,
  readPlainAnthropicRequest,
  type AnthropicMessage,
  type AnthropicRequestBody,
} from './anthropic-request-schema.ts';
import { decodeAnthropicContent } from './decode-anthropic-content.ts';
import {
  decodeAnthropicOutputFormat,
  decodeAnthropicReasoning,
  decodeAnthropicToolChoice,
  decodeAnthropicTools,
} from './decode-anthropic-options.ts';
import { describeZodError } from '../describe-zod-error.ts';
import { decodedWith, TranslationNotes } from '../../canonical/translation-notes.ts';
import { readPromptCacheMarks } from './read-prompt-cache-marks.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Fields accepted by the API but not translated; their presence is reported as a warning. */
/** Fields that bring in Anthropic-hosted capabilities: refused when translated. */
const PLATFORM_FIELDS = ['mcp_servers', 'container'] as const;

/** Top-level `system` (string or text blocks) joined with "\n\n". `cache_control` is read apart (readPromptCacheMarks). */
function systemText(system: AnthropicRequestBody['system']): string[] {
  if (system === undefined || system === null) return [];
  if (typeof system === 'string') return system === '' ? [] : [system];
  return system.map((block) => block.text).filter((text) => text !== '');
}

/** Splits messages into canonical turns and extra system text (from `role: "system"` messages). */
function decodeMessages(
  messages: ReadonlyArray<AnthropicMessage>,
  warnings: TranslationNotes,
): { turns: CanonicalMessage[]; system: string[] } {
  const turns: CanonicalMessage[] = [];
  const system: string[] = [];
  messages.forEach((message, i) => {
    const where = `messages.${i}.content`;
    const content = decodeAnthropicContent(message.content, where, warnings);
    if (message.role !== 'system') {
      turns.push({ role: message.role, content });
      return;
    }
    for (const part of content) {
      if (part.type === 'text') system.push(part.text);
      else warnings.refuse(where, `a ${part.type} part cannot be carried in a system message`);
    }
  });
  return { turns, system };
}

/**
 * The first `tool_result` block whose `tool_use_id` names no `tool_use` block of an earlier
 * message, as a refusal naming its path and id (the Messages API refuses it too:
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks).
 */
function findOrphanToolResult(
  messages: ReadonlyArray<AnthropicMessage>,
): { message: string; param: string } | undefined {
  const calls = new Set<string>();
  for (const [i, message] of messages.entries()) {
    if (typeof message.content === 'string') continue;
    for (const [j, block] of message.content.entries()) {
      if (block.type === 'tool_use') calls.add(block.id);
      else if (block.type === 'tool_result' && !calls.has(block.tool_use_id)) {
        const param = `messages.${i}.content.${j}.tool_use_id`;
        return {
          param,
          message: `${param}: unexpected tool_use_id '${block.tool_use_id}' in a tool_result block: no tool_use block with that id comes earlier in the conversation. Each tool_result block must answer a tool_use block of an earlier assistant message.`,
        };
      }
    }
  }
  return undefined;
}

function decodeOptions(
  body: AnthropicRequestBody,
  request: Mutable<CanonicalRequest>,
  warnings: TranslationNotes,
): void {
  if (body.tools && body.tools.length > 0) request.tools = decodeAnthropicTools(body.tools, warnings);
  if (body.tool_choice) Object.assign(request, decodeAnthropicToolChoice(body.tool_choice));
  const reasoning = decodeAnthropicReasoning(body.thinking, body.output_config, warnings);
  if (reasoning) request.reasoning = reasoning;
  const responseFormat = decodeAnthropicOutputFormat(body.output_config, warnings);
  if (responseFormat) request.responseFormat = responseFormat;
  if (body.metadata?.user_id) request.user = body.metadata.user_id;
  for (const field of PLATFORM_FIELDS) {
    if (body[field] !== undefined && body[field] !== null)
      warnings.refuse(field, 'it brings in capabilities hosted by Anthropic');
  }
  // Context editing only trims what the model sees; without it the full conversation is sent.
  if (body.context_management !== undefined && body.context_management !== null)
    warnings.drop('context_management: context editing is not applied on other APIs; the full conversation is sent');
}

function decodeSampling(body: AnthropicRequestBody, request: Mutable<CanonicalRequest>): void {
  if (typeof body.max_tokens === 'number') request.maxOutputTokens = body.max_tokens;
  if (typeof body.temperature === 'number') request.temperature = body.temperature;
  if (typeof body.top_p === 'number') request.topP = body.top_p;
  if (typeof body.top_k === 'number') request.topK = body.top_k;
  if (body.stop_sequences && body.stop_sequences.length > 0) request.stopSequences = body.stop_sequences;
}

/**
 * Decodes `POST /v1/messages`. `max_tokens` may be absent (then `maxOutputTokens` stays undefined
 * and the gateway applies its default); when present it must be an integer ≥ 1. A tool result
 * whose call is not in the conversation is refused (findOrphanToolResult).
 */
export function decodeAnthropicRequest(body: unknown): DecodeResult<CanonicalRequest> {
  let data = readPlainAnthropicRequest(body);
  if (!data) {
    const parsed = anthropicRequestSchema.safeParse(body);
    if (!parsed.success) return { ok: false, ...describeZodError(parsed.error) };
    data = parsed.data;
  }
  const orphan = findOrphanToolResult(data.messages);
  if (orphan) return { ok: false, ...orphan };
  const warnings = new TranslationNotes();
  const { turns, system } = decodeMessages(data.messages, warnings);
  const systemParts = [...systemText(data.system), ...system];
  const request: Mutable<CanonicalRequest> = {
    clientFormat: 'anthropic-messages',
    model: data.model,
    stream: data.stream === true,
    messages: turns,
  };
  if (systemParts.length > 0) request.system = systemParts.join('\n\n');
  const marks = readPromptCacheMarks(body);
  if (marks) request.promptCacheMarks = marks;
  decodeSampling(data, request);
  decodeOptions(data, request, warnings);
  return decodedWith(request, warnings);
}

/**
 * Decodes `POST /v1/messages/count_tokens` (https://docs.anthropic.com/en/api/messages-count-tokens): same shape minus generation parameters.
 * The result has `stream: false` and no `maxOutputTokens`.
 */
export function decodeAnthropicCountTokensRequest(body: unknown): DecodeResult<CanonicalRequest> {
  const decoded = decodeAnthropicRequest(body);
  if (!decoded.ok) return decoded;
  const { maxOutputTokens: _ignored, ...rest } = decoded.value;
  const value: CanonicalRequest = { ...rest, stream: false };
  return decoded.warnings === undefined ? { ok: true, value } : { ok: true, value, warnings: decoded.warnings };
}

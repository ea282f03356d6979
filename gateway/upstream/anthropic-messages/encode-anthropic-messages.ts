/**
 * Canonical conversation → Anthropic `messages` (per https://docs.anthropic.com/en/api/messages): consecutive
 * same-role turns merged, `tool_result` blocks first in their user message, empty turns dropped.
 */
import type { CanonicalMessage, ContentPart, PromptCacheMarks, PromptCacheTtl } from '../../canonical/request.ts';
import {
  encodeAnthropicFile,
  encodeAnthropicImage,
  encodeAnthropicReasoning,
  encodeAnthropicToolResult,
  encodeAnthropicToolUse,
  type AnthropicRequestBlock,
} from './encode-anthropic-content.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** One Anthropic request message. */
export interface AnthropicRequestMessage {
  readonly role: 'user' | 'assistant';
  readonly content: AnthropicRequestBlock[];
}

/** Options of `encodeAnthropicMessages`. */
export interface EncodeAnthropicMessagesOptions {
  /** The upstream validates thinking signatures (true Anthropic): unsigned reasoning is dropped. */
  readonly strictThinkingSignatures: boolean;
  /** The client's prompt-cache breakpoints: marked turns get `cache_control` on their last block. */
  readonly promptCacheMarks?: PromptCacheMarks;
}

function encodePart(
  part: ContentPart,
  role: CanonicalMessage['role'],
  path: string,
  options: EncodeAnthropicMessagesOptions,
  warnings: TranslationNotes,
): AnthropicRequestBlock | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'image':
      return encodeAnthropicImage(part);
    case 'file':
      return encodeAnthropicFile(part, path, warnings);
    case 'reasoning':
      if (role === 'assistant') return encodeAnthropicReasoning(part, options.strictThinkingSignatures, path, warnings);
      warnings.refuse(path, 'reasoning in a user turn cannot be sent to Anthropic Messages');
      return undefined;
    case 'tool-call':
      if (role === 'assistant') return encodeAnthropicToolUse(part, path, warnings);
      warnings.refuse(path, 'a tool call in a user turn cannot be sent to Anthropic Messages');
      return undefined;
    case 'tool-result':
      if (role === 'user') return encodeAnthropicToolResult(part);
      warnings.refuse(path, 'a tool result in an assistant turn cannot be sent to Anthropic Messages');
      return undefined;
  }
}

/** Anthropic requires `tool_result` blocks before any other block of their user message. */
function toolResultsFirst(blocks: AnthropicRequestBlock[]): AnthropicRequestBlock[] {
  const results = blocks.filter((b) => b.type === 'tool_result');
  return results.length === 0 || results.length === blocks.length
    ? blocks
    : [...results, ...blocks.filter((b) => b.type !== 'tool_result')];
}

/**
 * Encodes the canonical messages. Parts that cannot be sent are dropped with a warning naming
 * their path (`messages.3.content.1`); a turn left with no blocks is dropped (with a warning) and
 * its neighbours merge if they now share a role.
 */
/**
 * The `cache_control` of a breakpoint with lifetime `ttl`
 * (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#1-hour-cache-duration).
 */
export function cacheControlOf(ttl: PromptCacheTtl): Record<string, string> {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/** Puts the breakpoint on the last block of a turn that may carry one (thinking blocks cannot). */
function markLastCacheableBlock(blocks: AnthropicRequestBlock[], ttl: PromptCacheTtl): void {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i] as AnthropicRequestBlock;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    blocks[i] = { ...block, cache_control: cacheControlOf(ttl) };
    return;
  }
}

export function encodeAnthropicMessages(
  messages: ReadonlyArray<CanonicalMessage>,
  options: EncodeAnthropicMessagesOptions,
  warnings: TranslationNotes,
): AnthropicRequestMessage[] {
  const out: { role: CanonicalMessage['role']; content: AnthropicRequestBlock[] }[] = [];
  const cacheAfter = new Map((options.promptCacheMarks?.messages ?? []).map((mark) => [mark.index, mark.ttl]));
  messages.forEach((message, m) => {
    const blocks: AnthropicRequestBlock[] = [];
    message.content.forEach((part, p) => {
      const block = encodePart(part, message.role, `messages.${m}.content.${p}`, options, warnings);
      if (block) blocks.push(block);
    });
    if (blocks.length === 0) {
      if (message.content.length > 0) warnings.drop(`messages.${m}: nothing left to send in this turn; dropped`);
      return;
    }
    const ttl = cacheAfter.get(m);
    if (ttl) markLastCacheableBlock(blocks, ttl);
    const last = out[out.length - 1];
    if (last?.role === message.role) last.content.push(...blocks);
    else out.push({ role: message.role, content: blocks });
  });
  return out.map((message) =>
    message.role === 'user' ? { role: 'user', content: toolResultsFirst(message.content) } : message,
  );
}

/**
 * The prompt-cache breakpoints of an Anthropic Messages body: where `cache_control` marks a block
 * (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#how-to-implement-prompt-caching),
 * with its lifetime (`ttl: "1h"`, else 5 minutes). The body's schema strips `cache_control` from
 * the blocks it decodes, so the marks are read from the body as sent, once it has passed that
 * schema: a mark on any system block marks the system prompt, on any tool the tool definitions, on
 * any block of a message that turn (the longest lifetime when a part holds several). Messages of
 * role `system` are folded into the system prompt, so turn indices count the other messages only.
 */
import type { PromptCacheMarks, PromptCacheTtl } from '../../canonical/request.ts';

/** The breakpoints of `body` (a Messages body its schema accepted), or undefined when it marks none. */
export function readPromptCacheMarks(body: unknown): PromptCacheMarks | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { system, tools, messages } = body as Record<string, unknown>;
  const marked: Array<{ index: number; ttl: PromptCacheTtl }> = [];
  let systemTtl = markOf(system);
  let turn = 0;
  for (const message of Array.isArray(messages) ? messages : []) {
    const record = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
    const ttl = markOf(record.content);
    if (record.role === 'system') {
      systemTtl = longest(systemTtl, ttl);
      continue;
    }
    if (ttl) marked.push({ index: turn, ttl });
    turn++;
  }
  const toolsTtl = markOf(tools);
  if (!systemTtl && !toolsTtl && marked.length === 0) return undefined;
  return { ...(systemTtl ? { system: systemTtl } : {}), ...(toolsTtl ? { tools: toolsTtl } : {}), messages: marked };
}

/** The longest lifetime marked on the blocks of `blocks` (an array), or undefined without a mark. */
function markOf(blocks: unknown): PromptCacheTtl | undefined {
  if (!Array.isArray(blocks)) return undefined;
  let ttl: PromptCacheTtl | undefined;
  for (const block of blocks) {
    if (typeof block !== 'object' || block === null) continue;
    const control = (block as Record<string, unknown>).cache_control;
    if (typeof control !== 'object' || control === null) continue;
    ttl = longest(ttl, (control as Record<string, unknown>).ttl === '1h' ? '1h' : '5m');
  }
  return ttl;
}

function longest(a: PromptCacheTtl | undefined, b: PromptCacheTtl | undefined): PromptCacheTtl | undefined {
  return a === '1h' || b === '1h' ? '1h' : (a ?? b);
}

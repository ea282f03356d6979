/**
 * Prompt-cache affinity keys read from what real clients send (bodies decoded by the gateway's own
 * codecs), and PromptCacheAffinity's pins over the memory store: hit, moved, new, lifetimes by
 * provider and for one-hour caches, and a store outage routed without affinity.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import type { InboundCodec } from '../../../gateway/inbound/inbound-codec.ts';
import { anthropicMessagesCodec } from '../../../gateway/inbound/anthropic-messages/anthropic-messages-codec.ts';
import { geminiCodec } from '../../../gateway/inbound/gemini/gemini-codec.ts';
import { openaiChatCodec } from '../../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import { openaiResponsesCodec } from '../../../gateway/inbound/openai-responses/openai-responses-codec.ts';
import {
  affinityKeyOf,
  PromptCacheAffinity,
  PROMPT_CACHE_LIFETIME_MS,
  type AffinityKeyInput,
} from '../../../gateway/routing/prompt-cache-affinity.ts';
import { createMemoryAffinityStore } from '../../../infra/state-store/memory/memory-affinity-store.ts';
import type { AffinityStore } from '../../../schemas/state-store/affinity-store.ts';
import { StateStoreUnavailableError } from '../../../schemas/state-store/state-store-unavailable.ts';

function decoded(codec: InboundCodec, body: Record<string, unknown>, hints = {}): CanonicalRequest {
  const result = codec.decodeRequest(body, hints);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function input(
  codec: InboundCodec,
  body: Record<string, unknown>,
  headers: AffinityKeyInput['headers'] = {},
  keyId = 'key_a',
  hints = {},
): AffinityKeyInput {
  return { keyId, request: decoded(codec, body, hints), rawBody: body, headers };
}

const SYSTEM = 'You are a coding agent. '.repeat(50);
const TOOLS = [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: {} } }];

/** An Anthropic Messages turn of one conversation: shared system and tools, a first message, and a growing history. */
function claudeTurn(first: string, turns: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [{ role: 'user', content: first }];
  for (let i = 1; i < turns; i++)
    messages.push({ role: 'assistant', content: `answer ${i}` }, { role: 'user', content: `follow-up ${i}` });
  return { model: 'claude-sonnet-4-5', max_tokens: 1024, system: SYSTEM, tools: TOOLS, messages, ...extra };
}

describe('affinityKeyOf', () => {
  it('keeps every turn of a conversation on one key from its stable prefix, and two conversations apart', () => {
    const first = affinityKeyOf(input(anthropicMessagesCodec, claudeTurn('fix the bug in parser.ts', 1)));
    const fifth = affinityKeyOf(input(anthropicMessagesCodec, claudeTurn('fix the bug in parser.ts', 5)));
    const other = affinityKeyOf(input(anthropicMessagesCodec, claudeTurn('write a README', 5)));
    expect(first.source).toBe('prefix');
    expect(fifth.key).toBe(first.key);
    expect(other.key).not.toBe(first.key);
    expect(first.key).toMatch(/^[0-9a-f]{40}$/);
  });

  it("reads Claude Code's session header before the prefix, and the same session under another key apart", () => {
    const headers = { 'x-claude-code-session-id': '1f0c2b9e-5c0e-4a51-9d3c-6a3f0d6b2e11' };
    const a = affinityKeyOf(input(anthropicMessagesCodec, claudeTurn('one', 1), headers));
    const b = affinityKeyOf(input(anthropicMessagesCodec, claudeTurn('another first message', 3), headers));
    const otherCaller = affinityKeyOf(input(anthropicMessagesCodec, claudeTurn('one', 1), headers, 'key_b'));
    expect(a.source).toBe('agent_session');
    expect(b.key).toBe(a.key);
    expect(otherCaller.key).not.toBe(a.key);
  });

  it("reads Codex's prompt_cache_key on the Responses API, before its session_id header", () => {
    const body = { model: 'gpt-5-codex', input: 'hi', prompt_cache_key: 'conv-77', stream: true };
    const key = affinityKeyOf(input(openaiResponsesCodec, body, { session_id: 'sess-1' }));
    expect(key.source).toBe('prompt_cache_key');
    const sessionOnly = affinityKeyOf(
      input(openaiResponsesCodec, { model: 'gpt-5-codex', input: 'hi' }, { session_id: 'sess-1' }),
    );
    expect(sessionOnly.source).toBe('agent_session');
  });

  it('prefers the gateway header, then end-user ids (safety_identifier, user, metadata.user_id)', () => {
    const chat = {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      user: 'u-1',
      safety_identifier: 's-1',
    };
    expect(affinityKeyOf(input(openaiChatCodec, chat, { 'x-tollgate-affinity-key': 'mine' })).source).toBe('header');
    const bySafety = affinityKeyOf(input(openaiChatCodec, chat));
    const byUser = affinityKeyOf(input(openaiChatCodec, { ...chat, safety_identifier: undefined }));
    expect(bySafety.source).toBe('end_user');
    expect(byUser.key).not.toBe(bySafety.key);
    const claude = claudeTurn('x', 1, { metadata: { user_id: 'user_abc_account__session_42' } });
    expect(affinityKeyOf(input(anthropicMessagesCodec, claude)).source).toBe('end_user');
  });

  it('reads a Gemini cachedContent name', () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], cachedContent: 'cachedContents/abc' };
    const request = { ...decodedOrPlain(body), model: 'gemini-2.5-pro' };
    const key = affinityKeyOf({ keyId: 'key_a', request, rawBody: body, headers: {} });
    expect(key.source).toBe('cached_content');
  });

  it('marks requests asking for a one-hour cache', () => {
    const oneHour = claudeTurn('x', 1, {
      system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral', ttl: '1h' } }],
    });
    expect(affinityKeyOf(input(anthropicMessagesCodec, oneHour)).longCache).toBe(true);
    expect(affinityKeyOf(input(anthropicMessagesCodec, claudeTurn('x', 1))).longCache).toBe(false);
    const retention = { model: 'gpt-5', input: 'hi', prompt_cache_retention: '24h' };
    expect(affinityKeyOf(input(openaiResponsesCodec, retention)).longCache).toBe(true);
  });
});

/** Gemini bodies name their model in the URL: decode with the hint, or fall back to a plain request when the codec refuses the test's field. */
function decodedOrPlain(body: Record<string, unknown>): CanonicalRequest {
  const result = geminiCodec.decodeRequest(
    { ...body, cachedContent: undefined },
    { model: 'gemini-2.5-pro', stream: false },
  );
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

describe('PromptCacheAffinity', () => {
  const key = affinityKeyOf(input(anthropicMessagesCodec, claudeTurn('task', 1)));

  it('tells new, then hit, then moved, and re-pins to the channel that served', async () => {
    const store = createMemoryAffinityStore();
    const affinity = new PromptCacheAffinity({ store });
    const first = await affinity.lookup(key);
    expect(first.state).toBe('none');
    expect(await affinity.remember(first, { channelId: 'a', provider: 'anthropic' })).toBe('new');
    await Promise.resolve();
    const second = await affinity.lookup(key);
    expect(second).toMatchObject({ state: 'found', pin: { channelId: 'a' } });
    expect(await affinity.remember(second, { channelId: 'a', provider: 'anthropic' })).toBe('hit');
    expect(await affinity.remember(second, { channelId: 'b', provider: 'anthropic', credentialId: 'k2' })).toBe(
      'moved',
    );
    await Promise.resolve();
    expect(await store.get(key.key)).toEqual({ channelId: 'b', credentialId: 'k2' });
  });

  it("pins for the provider's cache lifetime, an hour for one-hour caches, or the configured ttl", () => {
    const affinity = new PromptCacheAffinity({ store: createMemoryAffinityStore() });
    expect(affinity.ttlFor(key, 'anthropic')).toBe(300_000);
    expect(affinity.ttlFor(key, 'openai')).toBe(PROMPT_CACHE_LIFETIME_MS.openai);
    expect(affinity.ttlFor(key, 'moonshot')).toBe(300_000);
    expect(affinity.ttlFor({ ...key, longCache: true }, 'anthropic')).toBe(3_600_000);
    expect(new PromptCacheAffinity({ store: createMemoryAffinityStore(), ttlMs: 42_000 }).ttlFor(key, 'openai')).toBe(
      42_000,
    );
  });

  it('routes without affinity while the store is unavailable, and never throws', async () => {
    const down: AffinityStore = {
      get: () => Promise.reject(new StateStoreUnavailableError('affinity store (Redis)', 'unreachable', 0)),
      put: () => Promise.reject(new StateStoreUnavailableError('affinity store (Redis)', 'unreachable', 0)),
      close: async () => {},
    };
    const logged: string[] = [];
    const log = { debug: (_: object, m: string) => logged.push(m), warn: (_: object, m: string) => logged.push(m) };
    const affinity = new PromptCacheAffinity({ store: down, log });
    const lookup = await affinity.lookup(key);
    expect(lookup.state).toBe('unavailable');
    expect(await affinity.remember(lookup, { channelId: 'a', provider: 'anthropic' })).toBe('off');
    const none = { state: 'none' as const, key };
    expect(await affinity.remember(none, { channelId: 'a', provider: 'anthropic' })).toBe('new');
    await new Promise((resolve) => setImmediate(resolve));
    expect(logged).toContain('affinity pin not stored');
  });
});

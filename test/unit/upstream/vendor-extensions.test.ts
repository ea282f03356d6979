import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import { TranslationNotes } from '../../../gateway/canonical/translation-notes.ts';
import { openaiChatCodec } from '../../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import { getProviderPreset } from '../../../gateway/providers/presets.ts';
import type { ProviderId } from '../../../gateway/providers/provider-preset.ts';
import { anthropicMessagesAdapter } from '../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { geminiAdapter } from '../../../gateway/upstream/gemini/gemini-adapter.ts';
import { openaiChatAdapter } from '../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import { openaiResponsesAdapter } from '../../../gateway/upstream/openai-responses/openai-responses-adapter.ts';
import type { UpstreamAdapter } from '../../../gateway/upstream/upstream-adapter.ts';
import {
  noteDroppedAnthropicBetas,
  selectVendorExtensions,
  type ExtensionTarget,
} from '../../../gateway/upstream/vendor-extensions.ts';
import type { WireFormat as UpstreamProtocol } from '../../../gateway/canonical/formats.ts';

const ADAPTERS: Record<UpstreamProtocol, UpstreamAdapter> = {
  'openai-chat': openaiChatAdapter,
  'openai-responses': openaiResponsesAdapter,
  'anthropic-messages': anthropicMessagesAdapter,
  gemini: geminiAdapter,
};

function chatRequest(body: Record<string, unknown>): CanonicalRequest {
  const decoded = openaiChatCodec.decodeRequest(
    { model: 'm', messages: [{ role: 'user', content: 'Hi' }], ...body },
    {},
  );
  if (!decoded.ok) throw new Error(decoded.message);
  return decoded.value;
}

const target = (
  protocol: UpstreamProtocol,
  provider: ProviderId = 'openai',
  protocolFields: string[] = [],
): ExtensionTarget => ({
  protocol,
  provider: getProviderPreset(provider),
  protocolFields: new Set(protocolFields),
  reservedKeys: new Set(['model', 'stream']),
});

function select(
  request: CanonicalRequest,
  extensionTarget: ExtensionTarget,
): { selected: Array<[string, unknown]>; notes: TranslationNotes } {
  const notes = new TranslationNotes();
  return { selected: selectVendorExtensions(request, extensionTarget, notes), notes };
}

/** The upstream JSON body a Chat client's request becomes on a channel of `protocol`. */
function upstreamBody(
  request: CanonicalRequest,
  protocol: UpstreamProtocol,
  provider: ProviderId,
): { body: Record<string, unknown>; notes: TranslationNotes } {
  const built = ADAPTERS[protocol].buildRequest(request, {
    baseUrl: 'http://up.example',
    apiKey: 'k',
    upstreamModel: 'up',
    provider: getProviderPreset(provider),
  });
  return { body: JSON.parse(built.request.body) as Record<string, unknown>, notes: built.notes };
}

describe('selectVendorExtensions', () => {
  it("passes every field to a channel of the client's own protocol, except the gateway's own keys", () => {
    const request: CanonicalRequest = {
      ...chatRequest({ tool_stream: true, enable_thinking: true }),
      extensions: { tool_stream: true, enable_thinking: true, vendor_x: 1, model: 'evil' },
    };
    const { selected, notes } = select(request, target('openai-chat'));
    expect(selected).toEqual([
      ['tool_stream', true],
      ['enable_thinking', true],
      ['vendor_x', 1],
    ]);
    expect(notes.dropped).toEqual(['extensions.model ignored (set by the gateway)']);
    expect(notes.uncarried).toEqual([]);
  });

  it('on another protocol: its own fields pass, hints are dropped with a note, thinking switches travel as reasoning, anything else is refused by name', () => {
    const request: CanonicalRequest = {
      ...chatRequest({ enable_thinking: true, thinking_budget: 2048 }),
      extensions: {
        service_tier: 'flex',
        seed: 7,
        tool_stream: true,
        enable_thinking: true,
        thinking_budget: 2048,
        vendor_x: 1,
      },
    };
    const { selected, notes } = select(request, target('openai-responses', 'openai', ['service_tier']));
    expect(selected).toEqual([['service_tier', 'flex']]);
    expect(notes.dropped).toEqual([
      'seed: not a field of this upstream API; dropped (a best-effort reproducibility hint)',
      'tool_stream: not a field of this upstream API; dropped (it only chooses whether tool-call arguments stream in pieces)',
    ]);
    expect(notes.uncarried).toEqual([
      { path: 'vendor_x', reason: 'a vendor field that the OpenAI openai-responses API does not accept' },
    ]);
  });

  it('refuses a thinking switch the decoder could not read as reasoning', () => {
    const request = chatRequest({ thinking: { type: 'sometimes' } });
    expect(request.reasoning).toBeUndefined();
    expect(select(request, target('gemini', 'gemini')).notes.uncarried.map((part) => part.path)).toEqual(['thinking']);
  });

  it("passes a field the provider preset accepts on that protocol (DashScope's Responses endpoint takes enable_thinking)", () => {
    const request = chatRequest({ enable_thinking: true });
    expect(select(request, target('openai-responses', 'dashscope')).selected).toEqual([['enable_thinking', true]]);
    expect(select(request, target('anthropic-messages', 'dashscope')).selected).toEqual([]);
  });

  it('notes dropped anthropic-beta flags, and nothing when there are none', () => {
    const notes = new TranslationNotes();
    noteDroppedAnthropicBetas({ ...chatRequest({}), anthropicBetas: ['a-1', 'b-2'] }, notes);
    noteDroppedAnthropicBetas(chatRequest({}), notes);
    expect(notes.dropped).toEqual([
      'anthropic-beta header (a-1,b-2): Anthropic feature flags this upstream does not take; dropped',
    ]);
  });
});

describe('a Chat client’s vendor fields on every upstream protocol', () => {
  const vendorBody = {
    thinking: { type: 'enabled', budget_tokens: 2048 },
    enable_thinking: true,
    thinking_budget: 2048,
    reasoning_split: true,
    repetition_penalty: 1.05,
    tool_stream: true,
    presence_penalty: 0.3,
    seed: 9,
  };

  it('Chat Completions channel (own protocol): forwarded unchanged', () => {
    const { body } = upstreamBody({ ...chatRequest(vendorBody), stream: false }, 'openai-chat', 'deepseek');
    expect(body).toMatchObject(vendorBody);
  });

  for (const [protocol, provider] of [
    ['openai-responses', 'openai'],
    ['anthropic-messages', 'anthropic'],
    ['gemini', 'gemini'],
  ] as const) {
    it(`${protocol} channel: no vendor field in the body; the thinking switch becomes the protocol's own reasoning control`, () => {
      const { body, notes } = upstreamBody(chatRequest(vendorBody), protocol, provider);
      for (const field of Object.keys(vendorBody))
        if (!(protocol === 'anthropic-messages' && field === 'thinking')) expect(body, field).not.toHaveProperty(field);
      expect(notes.uncarried).toEqual([]);
      if (protocol === 'anthropic-messages') expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      if (protocol === 'gemini')
        expect(body.generationConfig).toMatchObject({
          thinkingConfig: { thinkingBudget: 2048 },
          presencePenalty: 0.3,
          seed: 9,
        });
    });
  }
});

describe('Chat decoder: thinking switches as canonical reasoning', () => {
  it.each([
    [{ thinking: { type: 'enabled' } }, { enabled: true }],
    [{ thinking: { type: 'adaptive' } }, { enabled: true }],
    [{ thinking: { type: 'disabled', budget_tokens: 100 } }, { enabled: false }],
    [
      { enable_thinking: true, thinking_budget: 512 },
      { enabled: true, budgetTokens: 512 },
    ],
    [{ thinking_budget: 512 }, { enabled: true, budgetTokens: 512 }],
    [{ enable_thinking: false, thinking_budget: 512 }, { enabled: false }],
    [
      { enable_thinking: true, reasoning_effort: 'none' },
      { enabled: false, effort: 'none' },
    ],
    [{ enable_thinking: 'yes' }, undefined],
  ])('%j → %j', (body, reasoning) => {
    expect(chatRequest(body).reasoning).toEqual(reasoning);
  });
});

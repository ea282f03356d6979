/**
 * Every upstream adapter sends a passed-through body to the same URL with the same headers as the
 * request it would build from the canonical form (streamed and not), so skipping the translation
 * on the pass-through path changes nothing on the wire but the body.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import { getProviderPreset } from '../../../gateway/providers/presets.ts';
import type { ProviderId } from '../../../gateway/providers/provider-preset.ts';
import { anthropicMessagesAdapter } from '../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { geminiAdapter } from '../../../gateway/upstream/gemini/gemini-adapter.ts';
import { openaiChatAdapter } from '../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import { openaiResponsesAdapter } from '../../../gateway/upstream/openai-responses/openai-responses-adapter.ts';
import type { UpstreamAdapter } from '../../../gateway/upstream/upstream-adapter.ts';

const request = (stream: boolean): CanonicalRequest => ({
  clientFormat: 'openai-chat',
  model: 'alias',
  stream,
  maxOutputTokens: 64,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
  extensions: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
});

const cases: Array<[UpstreamAdapter, ProviderId]> = [
  [openaiChatAdapter, 'deepseek'],
  [openaiResponsesAdapter, 'openai'],
  [anthropicMessagesAdapter, 'anthropic'],
  [geminiAdapter, 'gemini'],
];

describe('passThroughTarget', () => {
  for (const [adapter, provider] of cases) {
    for (const stream of [false, true]) {
      it(`${adapter.protocol} (${provider}, ${stream ? 'streamed' : 'not streamed'}): the URL and headers of buildRequest`, () => {
        const target = {
          baseUrl: 'https://upstream.test',
          apiKey: 'sk-upstream',
          upstreamModel: 'up-model',
          provider: getProviderPreset(provider),
        };
        const built = adapter.buildRequest(request(stream), target).request;
        const passed = adapter.passThroughTarget(request(stream), target);
        expect(passed).toEqual({ url: built.url, headers: built.headers });
        expect(JSON.stringify(passed.headers)).toContain('sk-upstream');
      });
    }
  }
});

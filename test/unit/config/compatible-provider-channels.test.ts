/**
 * Channels of the compatible provider kinds and the keyless local servers at configuration: the
 * generic kinds have no default host, so their `baseUrl` is required and named when missing; a
 * local server's channel needs no key and sends no credential header.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigFile } from '../../../gateway/config/load-config.ts';
import { authHeadersFor, authSchemeFor } from '../../../gateway/providers/auth-headers.ts';
import { getProviderPreset } from '../../../gateway/providers/presets.ts';
import { resolveChannel } from '../../../gateway/routing/channel.ts';

function problemsOf(channels: unknown[]): string[] {
  try {
    parseConfigFile({ channels });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('compatible provider channels', () => {
  it.each(['openai-compatible', 'anthropic-compatible'])(
    '%s without baseUrl is refused, naming the field',
    (provider) => {
      expect(problemsOf([{ id: 'c', provider, apiKey: 'k', models: ['m'] }])).toEqual([
        `channels[0].baseUrl: is required for provider ${provider} (it has no default host)`,
      ]);
    },
  );

  it('every problem is named at once: a missing baseUrl next to another channel error', () => {
    expect(
      problemsOf([
        { id: 'c', provider: 'openai-compatible', apiKey: 'k', models: ['m'] },
        { id: 'd', provider: 'groq', apiKey: 'k', models: [] },
      ]),
    ).toEqual([
      'channels[0].baseUrl: is required for provider openai-compatible (it has no default host)',
      'channels[1].models: must serve at least one model (models or modelMap)',
    ]);
  });

  it('resolves the generic kinds at the given baseUrl with their protocol', () => {
    const config = parseConfigFile({
      channels: [
        { id: 'o', provider: 'openai-compatible', baseUrl: 'https://llm.example.com/v1/', apiKey: 'k', models: ['m'] },
        { id: 'a', provider: 'anthropic-compatible', baseUrl: 'https://llm.example.com', apiKey: 'k', models: ['m'] },
      ],
    });
    const [openai, anthropic] = config.channels.map((c) => resolveChannel(c));
    expect([openai?.protocol, openai?.baseUrl]).toEqual(['openai-chat', 'https://llm.example.com/v1']);
    expect([anthropic?.protocol, anthropic?.baseUrl]).toEqual(['anthropic-messages', 'https://llm.example.com']);
  });

  it.each([
    ['ollama', 'http://localhost:11434/v1'],
    ['vllm', 'http://localhost:8000/v1'],
    ['lmstudio', 'http://localhost:1234/v1'],
  ])('%s is accepted without a key, at its default local base URL', (provider, baseUrl) => {
    const config = parseConfigFile({ channels: [{ id: 'local', provider, models: ['m'] }] });
    const channel = resolveChannel(config.channels[0]!);
    expect(channel.apiKey).toBe('');
    expect(channel.baseUrl).toBe(baseUrl);
  });

  it('a keyless local server gets no credential header without a key, and Bearer when one is set', () => {
    const scheme = authSchemeFor(getProviderPreset('vllm'), 'openai-chat');
    expect(authHeadersFor(scheme, '')).toEqual({});
    expect(authHeadersFor(scheme, 'token-abc123')).toEqual({ authorization: 'Bearer token-abc123' });
  });

  it('a keyed provider sends its key as the preset says', () => {
    expect(authHeadersFor(authSchemeFor(getProviderPreset('groq'), 'openai-chat'), 'gsk')).toEqual({
      authorization: 'Bearer gsk',
    });
  });
});

/**
 * Cloud channels with a key pool (README "Key pools"): the credentials step keeps one credential
 * client (token cache, signer) per channel and pooled credential, so alternating credentials of
 * one channel reuse each client instead of rebuilding it on every switch; a changed key of one
 * credential rebuilds only that one. Checked with the static Azure `api-key` method (the header
 * each call carries) and a counting factory standing in for a token-caching method.
 */
import { describe, expect, it } from 'vitest';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { CloudCredentials } from '../../../../gateway/upstream/cloud-credentials/cloud-credentials.ts';
import type { UpstreamCredentialSource } from '../../../../gateway/upstream/upstream-adapter.ts';

const CALL = { url: 'https://res.openai.azure.com/openai/v1/chat/completions', headers: {}, body: '{}' };

function pooled(credentialId: string, apiKey: string, auth: 'api-key' | 'entra-id'): UpstreamCredentialSource {
  return {
    id: 'azure-pool',
    provider: getProviderPreset('azure'),
    protocol: 'openai-chat',
    apiKey,
    credentialId,
    cloud: { auth, tenantId: 't', clientId: 'c' },
  };
}

describe('cloud credentials of a key pool', () => {
  it('sends each pooled key in its own call', async () => {
    const credentials = new CloudCredentials();
    const a = await credentials.authorize(pooled('a', 'key-a', 'api-key'), CALL);
    const b = await credentials.authorize(pooled('b', 'key-b', 'api-key'), CALL);
    expect([a.headers['api-key'], b.headers['api-key']]).toEqual(['key-a', 'key-b']);
  });

  it('keeps one client per (channel, credential) across switches, rebuilding only a changed one', async () => {
    const made: string[] = [];
    const credentials = new CloudCredentials({
      'azure/entra-id': (source) => {
        made.push(`${source.credentialId}:${source.apiKey}`);
        const token = `token-${made.length}`;
        return {
          authorize: async (request) => ({ ...request, headers: { ...request.headers, authorization: token } }),
        };
      },
    });
    const tokens: string[] = [];
    for (const id of ['a', 'b', 'a', 'b', 'a'])
      tokens.push(
        String((await credentials.authorize(pooled(id, `secret-${id}`, 'entra-id'), CALL)).headers.authorization),
      );
    expect(made).toEqual(['a:secret-a', 'b:secret-b']);
    expect(tokens).toEqual(['token-1', 'token-2', 'token-1', 'token-2', 'token-1']);
    await credentials.authorize(pooled('b', 'secret-b2', 'entra-id'), CALL);
    await credentials.authorize(pooled('a', 'secret-a', 'entra-id'), CALL);
    expect(made).toEqual(['a:secret-a', 'b:secret-b', 'b:secret-b2']);
  });
});

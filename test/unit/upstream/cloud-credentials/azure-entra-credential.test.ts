/**
 * The `azure/entra-id` credential against the fake Entra tenant (test/support/azure-openai-upstream.ts):
 * it adds a bearer token for https://cognitiveservices.azure.com/.default, the library keeps the
 * token while it is fresh and asks again when it is within its refresh window (MSAL treats a
 * token expiring within five minutes as due: https://learn.microsoft.com/en-us/entra/msal/javascript/node/caching),
 * and a refused client secret becomes a failover-worthy error naming the channel, never the secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { azureEntraIdCredentials } from '../../../../gateway/upstream/cloud-credentials/azure-entra-credential.ts';
import { CloudCredentials } from '../../../../gateway/upstream/cloud-credentials/cloud-credentials.ts';
import type { UpstreamCredentialSource } from '../../../../gateway/upstream/upstream-adapter.ts';
import { startAzureOpenAiFake, type AzureOpenAiFake } from '../../../support/azure-openai-upstream.ts';

const TENANT = '72f988bf-0000-4000-8000-00000000000a';
const CLIENT = 'c0ffee00-0000-4000-8000-00000000000b';
const SECRET = 'entra-client-secret-xyz';
const CALL = { url: 'https://res.openai.azure.com/openai/v1/chat/completions', headers: {}, body: '{}' };

let fake: AzureOpenAiFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function channel(secret = SECRET): UpstreamCredentialSource {
  return {
    id: 'azure-entra',
    provider: getProviderPreset('azure'),
    protocol: 'openai-chat',
    apiKey: secret,
    cloud: { auth: 'entra-id', tenantId: TENANT, clientId: CLIENT },
  };
}

async function credentialsFor(tokenLifetimeSeconds: number): Promise<CloudCredentials> {
  fake = await startAzureOpenAiFake({
    apiKey: 'k',
    tenantId: TENANT,
    clientId: CLIENT,
    clientSecret: SECRET,
    tokenLifetimeSeconds,
  });
  return new CloudCredentials({
    'azure/entra-id': azureEntraIdCredentials({ authorityHost: fake.authorityHost, trustedCa: fake.ca }),
  });
}

describe('azure/entra-id credentials', () => {
  it('adds a bearer token and reuses it while it is fresh (one token request for many calls)', async () => {
    const credentials = await credentialsFor(3600);
    const first = await credentials.authorize(channel(), CALL);
    const second = await credentials.authorize(channel(), CALL);
    expect(first.headers.authorization).toMatch(/^Bearer fake-entra-/);
    expect(second.headers.authorization).toBe(first.headers.authorization);
    expect(fake!.tokenRequests).toHaveLength(1);
    expect(fake!.tokenRequests[0]).toMatchObject({
      grant_type: 'client_credentials',
      client_id: CLIENT,
      scope: 'https://cognitiveservices.azure.com/.default',
    });
  });

  it('asks for a new token before a short-lived one expires', async () => {
    const credentials = await credentialsFor(120);
    const first = await credentials.authorize(channel(), CALL);
    const second = await credentials.authorize(channel(), CALL);
    expect(fake!.tokenRequests).toHaveLength(2);
    expect(second.headers.authorization).not.toBe(first.headers.authorization);
  });

  it('a refused client secret is a failover-worthy channel fault that names the channel, not the secret', async () => {
    const credentials = await credentialsFor(3600);
    const failure = await credentials.authorize(channel('wrong-client-secret'), CALL).catch((e: unknown) => e);
    expect(failure).toMatchObject({ kind: 'upstream-unavailable', allowFailover: true });
    const message = (failure as Error).message;
    expect(message).toMatch(/Channel azure-entra: could not obtain a entra-id credential/);
    expect(message).toMatch(/AADSTS7000215/);
    expect(message).not.toContain('wrong-client-secret');
  });
});

/**
 * The `vertex/service-account` credential against the fake token endpoint
 * (test/support/vertex-upstream.ts): the key's `token_uri` is honoured, a bearer token is added,
 * the token is reused while fresh and traded anew before a short-lived one lapses
 * (google-auth-library refreshes within five minutes of expiry), and a refused or malformed key
 * is a failover-worthy channel fault whose message never quotes the key.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { CloudCredentials } from '../../../../gateway/upstream/cloud-credentials/cloud-credentials.ts';
import {
  vertexDefaultCredentials,
  vertexServiceAccountCredentials,
} from '../../../../gateway/upstream/cloud-credentials/google-oauth-credential.ts';
import { gaxios } from 'google-auth-library';
import type { UpstreamCredentialSource } from '../../../../gateway/upstream/upstream-adapter.ts';
import { makeServiceAccountKey, startVertexFake, type VertexFake } from '../../../support/vertex-upstream.ts';

const CALL = { url: 'https://us-east5-aiplatform.googleapis.com/v1/x', headers: {}, body: '{}' };

let fake: VertexFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function channel(apiKey: string): UpstreamCredentialSource {
  return {
    id: 'vertex-sa',
    provider: getProviderPreset('vertex'),
    protocol: 'gemini',
    apiKey,
    cloud: { auth: 'service-account', project: 'my-project', region: 'us-east5' },
  };
}

async function started(tokenLifetimeSeconds: number): Promise<{ credentials: CloudCredentials; keyJson: string }> {
  fake = await startVertexFake({ project: 'my-project', location: 'us-east5', tokenLifetimeSeconds });
  const key = makeServiceAccountKey(fake.tokenUri);
  fake.register(key);
  return {
    credentials: new CloudCredentials({ 'vertex/service-account': vertexServiceAccountCredentials() }),
    keyJson: key.json,
  };
}

describe('vertex/service-account credentials', () => {
  it("trades the key for a token at the key's token_uri and reuses it while it is fresh", async () => {
    const { credentials, keyJson } = await started(3600);
    const first = await credentials.authorize(channel(keyJson), CALL);
    const second = await credentials.authorize(channel(keyJson), CALL);
    expect(first.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(second.headers.authorization).toBe(first.headers.authorization);
    expect(fake!.grants).toEqual(['tollgate-test@my-project.iam.gserviceaccount.com']);
  });

  it('trades again before a short-lived token lapses', async () => {
    const { credentials, keyJson } = await started(120);
    const first = await credentials.authorize(channel(keyJson), CALL);
    const second = await credentials.authorize(channel(keyJson), CALL);
    expect(fake!.grants).toHaveLength(2);
    expect(second.headers.authorization).not.toBe(first.headers.authorization);
  });

  it('a key the token endpoint refuses is a failover-worthy channel fault that never quotes the key', async () => {
    const { credentials } = await started(3600);
    const stranger = makeServiceAccountKey(fake!.tokenUri, 'stranger@my-project.iam.gserviceaccount.com');
    const failure = await credentials.authorize(channel(stranger.json), CALL).catch((e: unknown) => e);
    expect(failure).toMatchObject({ kind: 'upstream-unavailable', allowFailover: true });
    const message = (failure as Error).message;
    expect(message).toMatch(/Channel vertex-sa: could not obtain a service-account credential for Google Vertex AI/);
    expect(message).toMatch(/invalid_grant/);
    expect(message).not.toContain('PRIVATE KEY');
  });

  it('a key that is not a service-account key is refused by name', async () => {
    const { credentials } = await started(3600);
    const failure = await credentials
      .authorize(channel('{"type":"authorized_user","client_secret":"s3cr3t"}'), CALL)
      .catch((e: unknown) => e);
    expect((failure as Error).message).toMatch(/not of type service_account/);
    expect((failure as Error).message).not.toContain('s3cr3t');
  });
});

describe('vertex/default-credentials', () => {
  it('adds a bearer token from Application Default Credentials (here: credentials handed to GoogleAuth)', async () => {
    fake = await startVertexFake({ project: 'my-project', location: 'us-east5' });
    const key = makeServiceAccountKey(fake.tokenUri);
    fake.register(key);
    // GoogleAuth, like the JWT client, posts grants to Google's token URL: point its transporter at the fake.
    const transporter = new gaxios.Gaxios();
    const tokenUri = new URL(fake.tokenUri);
    transporter.interceptors.request.add({
      resolved: (config) => {
        if (config.url.href === 'https://oauth2.googleapis.com/token') config.url = tokenUri;
        return Promise.resolve(config);
      },
    });
    const credentials = new CloudCredentials({
      'vertex/default-credentials': vertexDefaultCredentials({
        credentials: JSON.parse(key.json) as Record<string, string>,
        clientOptions: { transporter },
      }),
    });
    const adc = {
      ...channel(''),
      cloud: { auth: 'default-credentials' as const, project: 'my-project', region: 'us-east5' },
    };
    const first = await credentials.authorize(adc, CALL);
    const second = await credentials.authorize(adc, CALL);
    expect(first.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(second.headers.authorization).toBe(first.headers.authorization);
    expect(fake.grants).toHaveLength(1);
  });
});

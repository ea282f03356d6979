/**
 * `bedrock/sigv4` credentials: the finished call is signed by the AWS SDK's signer for service
 * `bedrock` in the channel's region (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html);
 * a second signer with the same secret must compute the same signature over what undici sends.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { awsSigV4Credentials } from '../../../../gateway/upstream/cloud-credentials/aws-sigv4-credential.ts';
import { CloudCredentials } from '../../../../gateway/upstream/cloud-credentials/cloud-credentials.ts';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const call = {
  url: 'http://127.0.0.1:8443/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse',
  headers: { 'content-type': 'application/json' },
  body: '{"messages":[]}',
};
const channel = (apiKey: string) => ({
  id: 'bedrock-1',
  provider: getProviderPreset('bedrock'),
  protocol: 'bedrock-converse' as const,
  apiKey,
  cloud: { auth: 'sigv4' as const, region: 'eu-central-1' },
});

describe('awsSigV4Credentials', () => {
  it('signs what undici sends: host from the URL, x-amz-date, the payload hash and the session token', async () => {
    const signed = await awsSigV4Credentials()(channel(`AKIDEXAMPLE:${SECRET}:session-token-1`)).authorize(call);
    expect(Object.keys(signed.headers).sort()).toEqual([
      'authorization',
      'content-type',
      'x-amz-content-sha256',
      'x-amz-date',
      'x-amz-security-token',
    ]);
    const authorization = signed.headers.authorization ?? '';
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-central-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    const amzDate = signed.headers['x-amz-date'] ?? '';
    const verifier = new SignatureV4({
      service: 'bedrock',
      region: 'eu-central-1',
      sha256: Sha256,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: SECRET, sessionToken: 'session-token-1' },
    });
    const again = await verifier.sign(
      {
        method: 'POST',
        protocol: 'http:',
        hostname: '127.0.0.1',
        port: 8443,
        path: '/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse',
        query: {},
        headers: { 'content-type': 'application/json', host: '127.0.0.1:8443' },
        body: call.body,
      },
      {
        signingDate: new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z')),
      },
    );
    expect(again.headers.authorization).toBe(authorization);
  });

  it('turns a malformed key into a failover-worthy channel fault that never shows the secret', async () => {
    const credentials = new CloudCredentials({ 'bedrock/sigv4': awsSigV4Credentials() });
    const error = await credentials.authorize(channel(SECRET), call).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).allowFailover).toBe(true);
    expect((error as GatewayError).message).toContain('bedrock-1');
    expect((error as GatewayError).message).not.toContain(SECRET);
  });

  it('signs with the default credential chain when the key is empty', async () => {
    const factory = awsSigV4Credentials({
      defaultCredentials: () => async () => ({ accessKeyId: 'AKIDCHAIN', secretAccessKey: SECRET }),
    });
    const signed = await factory(channel('')).authorize(call);
    expect(signed.headers.authorization).toContain('Credential=AKIDCHAIN/');
    expect(signed.headers['x-amz-security-token']).toBeUndefined();
  });
});

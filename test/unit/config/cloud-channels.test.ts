/**
 * Azure, Bedrock and Vertex channels at configuration: each cloud's required settings (region,
 * project, tenant and client ids, credential of the right form) are refused with every problem
 * named at once, never quoting the credential; complete channels resolve to their regional hosts
 * and cloud adapter keys.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigFile } from '../../../gateway/config/load-config.ts';
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

const SERVICE_ACCOUNT = JSON.stringify({
  type: 'service_account',
  project_id: 'acme-prod',
  client_email: 'tollgate@acme-prod.iam.gserviceaccount.com',
  private_key: '-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n',
});

describe('cloud channels', () => {
  it('names every missing setting of each cloud at once', () => {
    expect(
      problemsOf([
        { id: 'az', provider: 'azure', models: ['gpt-4o'] },
        {
          id: 'az-entra',
          provider: 'azure',
          baseUrl: 'https://acme.openai.azure.com',
          cloud: { auth: 'entra-id' },
          models: ['m'],
        },
        { id: 'br', provider: 'bedrock', apiKey: 'not-a-key-pair', models: ['m'] },
        { id: 'vx', provider: 'vertex', apiKey: 'sk-secret-looking', models: ['m'] },
      ]),
    ).toEqual([
      'channels[0].baseUrl: is required for provider azure (it has no default host)',
      'channels[0].apiKey: is required with cloud.auth api-key',
      'channels[1].cloud.tenantId: is required with cloud.auth entra-id',
      'channels[1].cloud.clientId: is required with cloud.auth entra-id',
      'channels[1].apiKey: is required with cloud.auth entra-id (the client secret)',
      'channels[2].apiKey: must be ACCESS_KEY_ID:SECRET_ACCESS_KEY or ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN with cloud.auth sigv4 (empty: the AWS default credential chain)',
      'channels[2].cloud.region: is required for bedrock channels (the AWS region, e.g. us-east-1)',
      'channels[3].apiKey: must be a service-account key file (JSON with type "service_account", client_email and private_key) with cloud.auth service-account',
      'channels[3].cloud.project: is required for vertex channels (the Google Cloud project id)',
      'channels[3].cloud.region: is required for vertex channels (the location, e.g. us-central1 or global)',
    ]);
  });

  it('refuses settings a cloud does not read, cloud settings on other providers, and reserved headers', () => {
    const problems = problemsOf([
      {
        id: 'a',
        provider: 'azure',
        baseUrl: 'https://acme.openai.azure.com',
        apiKey: 'k',
        cloud: { region: 'eastus' },
        models: ['m'],
      },
      { id: 'b', provider: 'openai', apiKey: 'k', cloud: { region: 'us-east-1' }, models: ['m'] },
      { id: 'c', provider: 'bedrock', cloud: { region: 'us-east-1', auth: 'entra-id' }, models: ['m'] },
      { id: 'd', provider: 'openrouter', apiKey: 'k', headers: { Authorization: 'Bearer x' }, models: ['m'] },
    ]);
    expect(problems).toEqual([
      'channels[0].cloud.region: is not a setting of azure channels',
      'channels[1].cloud: applies only to azure, bedrock and vertex channels',
      'channels[2].cloud.auth: must be one of sigv4, api-key for bedrock channels',
      "channels[3].headers.Authorization: 'Authorization' is set by the gateway and cannot be overridden",
    ]);
    expect(problems.join('\n')).not.toContain('Bearer x');
  });

  it('resolves complete channels to their regional hosts and cloud adapters', () => {
    const config = parseConfigFile({
      channels: [
        { id: 'az', provider: 'azure', baseUrl: 'https://acme.openai.azure.com', apiKey: 'k', models: ['gpt-4o'] },
        {
          id: 'br',
          provider: 'bedrock',
          cloud: { region: 'eu-central-1' },
          apiKey: 'AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
          models: ['anthropic.claude-sonnet-4-5'],
        },
        {
          id: 'br-claude',
          provider: 'bedrock',
          protocol: 'anthropic-messages',
          cloud: { region: 'us-west-2', auth: 'api-key' },
          apiKey: 'ABSK-bedrock-api-key',
          models: ['claude'],
        },
        {
          id: 'vx',
          provider: 'vertex',
          cloud: { project: 'acme-prod', region: 'us-central1' },
          apiKey: SERVICE_ACCOUNT,
          models: ['gemini-2.5-pro'],
        },
        {
          id: 'vx-claude',
          provider: 'vertex',
          protocol: 'anthropic-messages',
          cloud: { project: 'acme-prod', region: 'global', auth: 'default-credentials' },
          models: ['claude-sonnet-4-5'],
        },
      ],
    });
    const resolved = config.channels.map((channel) => resolveChannel(channel));
    expect(resolved.map((c) => [c.id, c.baseUrl, c.adapterKey])).toEqual([
      ['az', 'https://acme.openai.azure.com', 'azure:openai-chat'],
      ['br', 'https://bedrock-runtime.eu-central-1.amazonaws.com', 'bedrock:bedrock-converse'],
      ['br-claude', 'https://bedrock-runtime.us-west-2.amazonaws.com', 'bedrock:anthropic-messages'],
      ['vx', 'https://us-central1-aiplatform.googleapis.com', 'vertex:gemini'],
      ['vx-claude', 'https://aiplatform.googleapis.com', 'vertex:anthropic-messages'],
    ]);
  });
});

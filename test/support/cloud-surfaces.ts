/**
 * Azure OpenAI and Google Vertex AI channels on one test gateway, each cloud played by its fake
 * (test/support/azure-openai-upstream.ts, test/support/vertex-upstream.ts), for the SDK contract
 * matrices: Azure's v1 Chat surface with an api-key, its dated Chat surface and Responses with
 * Microsoft Entra ID tokens, Vertex Gemini and Vertex Claude with service-account tokens. Each
 * surface's channel serves `{surface}--{scenario}` for the replayed scenarios (`text`,
 * `tool-call`, `reasoning`); higher-tier channels whose credentials are refused (by the token
 * endpoint, by Vertex with a 401, by Azure with a 401) serve the `failover-*` models, and
 * `azure-filtered` / `azure-refused` reach Azure's content filter. The gateway logs JSON lines
 * (pino, level info) into `logLines`.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { WireFormat } from '../../gateway/canonical/formats.ts';
import { azureEntraIdCredentials } from '../../gateway/upstream/cloud-credentials/azure-entra-credential.ts';
import { startAzureOpenAiFake, type AzureOpenAiFake } from './azure-openai-upstream.ts';
import { startTestGateway, type TestGateway } from './start-gateway.ts';
import { makeServiceAccountKey, startVertexFake, type ServiceAccountKey, type VertexFake } from './vertex-upstream.ts';

/** The scenarios every surface replays. */
export const CLOUD_SCENARIOS = ['text', 'tool-call', 'reasoning'] as const;

/** The Azure fake's secrets (each ends in `s3cr3t`, so a leak is easy to spot). */
export const AZURE_SECRETS = {
  apiKey: 'azure-resource-key-s3cr3t',
  tenantId: '72f988bf-0000-4000-8000-00000000000a',
  clientId: 'c0ffee00-0000-4000-8000-00000000000b',
  clientSecret: 'entra-client-s3cr3t',
  wrongApiKey: 'azure-wrong-key-s3cr3t',
};

/** The Vertex fake's project and location. */
export const VERTEX_PROJECT = { project: 'my-project', location: 'us-east5' };

/** The surfaces under test: the channel id, and the protocol whose fixtures its fake replays. */
export const CLOUD_SURFACES_UNDER_TEST: ReadonlyArray<{ readonly id: string; readonly protocol: WireFormat }> = [
  { id: 'azure-v1-chat', protocol: 'openai-chat' },
  { id: 'azure-deployments-chat', protocol: 'openai-chat' },
  { id: 'azure-responses', protocol: 'openai-responses' },
  { id: 'vertex-gemini', protocol: 'gemini' },
  { id: 'vertex-claude', protocol: 'anthropic-messages' },
];

/** The running fakes and gateway. */
export interface CloudSurfaces {
  readonly azure: AzureOpenAiFake;
  readonly vertex: VertexFake;
  readonly serviceAccount: ServiceAccountKey;
  /** A service account the token endpoint does not know (its grants are refused). */
  readonly unknownAccount: ServiceAccountKey;
  readonly gateway: TestGateway;
  /** The gateway's log lines so far (JSON). */
  readonly logLines: string[];
  close(): Promise<void>;
}

const modelMap = (surface: string, extra: Record<string, string> = {}) => ({
  ...Object.fromEntries(CLOUD_SCENARIOS.map((s) => [`${surface}--${s}`, s])),
  ...extra,
});

/** Starts both fakes and a gateway with the channels above. */
export async function startCloudSurfaces(): Promise<CloudSurfaces> {
  const logLines: string[] = [];
  const azure = await startAzureOpenAiFake(AZURE_SECRETS);
  const vertex = await startVertexFake(VERTEX_PROJECT);
  const serviceAccount = makeServiceAccountKey(vertex.tokenUri);
  const unknownAccount = makeServiceAccountKey(vertex.tokenUri, 'revoked@my-project.iam.gserviceaccount.com');
  vertex.register(serviceAccount);
  const entra = { auth: 'entra-id', tenantId: AZURE_SECRETS.tenantId, clientId: AZURE_SECRETS.clientId };
  const vertexChannel = (id: string, protocol: WireFormat, apiKey: string, extra: Record<string, unknown>) => ({
    id,
    provider: 'vertex',
    protocol,
    baseUrl: vertex.origin,
    apiKey,
    cloud: { region: VERTEX_PROJECT.location, project: VERTEX_PROJECT.project },
    ...extra,
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const gateway = await startTestGateway(
    {
      channels: [
        {
          id: 'azure-v1-chat',
          provider: 'azure',
          protocol: 'openai-chat',
          baseUrl: `${azure.endpoint}/openai/v1`,
          apiKey: AZURE_SECRETS.apiKey,
          modelMap: modelMap('azure-v1-chat', { 'azure-filtered': 'filtered', 'azure-refused': 'content-filter' }),
        },
        {
          id: 'azure-deployments-chat',
          provider: 'azure',
          protocol: 'openai-chat',
          baseUrl: azure.endpoint,
          apiKey: AZURE_SECRETS.clientSecret,
          cloud: { ...entra, apiVersion: '2024-10-21' },
          modelMap: modelMap('azure-deployments-chat'),
        },
        {
          id: 'azure-responses',
          provider: 'azure',
          protocol: 'openai-responses',
          baseUrl: azure.endpoint,
          apiKey: AZURE_SECRETS.clientSecret,
          cloud: { ...entra, apiVersion: '2025-04-01-preview' },
          modelMap: modelMap('azure-responses'),
        },
        vertexChannel('vertex-gemini', 'gemini', serviceAccount.json, {
          modelMap: modelMap('vertex-gemini', { 'failover-expired': 'text' }),
        }),
        vertexChannel('vertex-claude', 'anthropic-messages', serviceAccount.json, {
          modelMap: modelMap('vertex-claude', { 'failover-token': 'text', 'failover-azure-key': 'text' }),
        }),
        // Higher tiers whose credentials are refused: by the token endpoint, by Vertex (401), by Azure (401).
        vertexChannel('vertex-revoked-key', 'anthropic-messages', unknownAccount.json, {
          priority: 1,
          modelMap: { 'failover-token': 'text' },
        }),
        vertexChannel('vertex-expired-token', 'gemini', serviceAccount.json, {
          priority: 1,
          modelMap: { 'failover-expired': 'unauthenticated' },
        }),
        {
          id: 'azure-wrong-key',
          provider: 'azure',
          protocol: 'openai-chat',
          baseUrl: azure.endpoint,
          apiKey: AZURE_SECRETS.wrongApiKey,
          priority: 1,
          modelMap: { 'failover-azure-key': 'text' },
        },
      ],
    },
    {
      logger: pino({ level: 'info' }, sink),
      cloudCredentialFactories: {
        'azure/entra-id': azureEntraIdCredentials({ authorityHost: azure.authorityHost, trustedCa: azure.ca }),
      },
    },
  );
  return {
    azure,
    vertex,
    serviceAccount,
    unknownAccount,
    gateway,
    logLines,
    close: async () => {
      await gateway.close();
      await azure.close();
      await vertex.close();
    },
  };
}

/**
 * A cloud between the gateway and the agent harness's scripted model: the channel of a cloud
 * provider whose fake checks what that cloud checks (credentials, paths, body rules) and then
 * forwards each call, in its protocol's own shape, to the scripted model — Amazon Bedrock's
 * InvokeModel for Claude (test/support/bedrock-upstream.ts, SigV4-signed; streamed answers
 * re-framed as Bedrock's event stream) and Google Vertex AI's Claude and Gemini endpoints
 * (test/support/vertex-upstream.ts, a service-account token from the fake's token endpoint).
 */
import type { WireFormat } from '../../../../gateway/canonical/formats.ts';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_CREDENTIALS,
  startBedrockUpstream,
} from '../../../support/bedrock-upstream.ts';
import { makeServiceAccountKey, startVertexFake } from '../../../support/vertex-upstream.ts';

/** A cloud an agent case may go through. */
export type AgentCloud = 'bedrock' | 'vertex';

/** The protocols each cloud's fake forwards to the scripted model. */
export const AGENT_CLOUD_PROTOCOLS: Readonly<Record<AgentCloud, ReadonlyArray<WireFormat>>> = {
  bedrock: ['anthropic-messages'],
  vertex: ['anthropic-messages', 'gemini'],
};

/** The Vertex fake's project and location. */
const VERTEX = { project: 'agent-project', location: 'us-east5' };

/** A running cloud fake and the channel fields (all but id and models) that reach it. */
export interface CloudAgentChannel {
  readonly channel: Readonly<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Starts `cloud`'s fake forwarding to `modelOrigin` and returns the channel that reaches it.
 * @throws Error when the cloud's fake does not forward `protocol` (AGENT_CLOUD_PROTOCOLS)
 */
export async function cloudAgentChannel(
  cloud: AgentCloud,
  protocol: WireFormat,
  modelOrigin: string,
): Promise<CloudAgentChannel> {
  if (!AGENT_CLOUD_PROTOCOLS[cloud].includes(protocol))
    throw new Error(`the ${cloud} fake does not forward ${protocol} to a scripted model`);
  if (cloud === 'bedrock') {
    const bedrock = await startBedrockUpstream({ forwardTo: modelOrigin });
    return {
      channel: {
        provider: 'bedrock',
        protocol,
        baseUrl: bedrock.origin,
        cloud: { region: BEDROCK_FAKE_REGION },
        apiKey: `${BEDROCK_TEST_CREDENTIALS.accessKeyId}:${BEDROCK_TEST_CREDENTIALS.secretAccessKey}`,
      },
      close: () => bedrock.close(),
    };
  }
  const vertex = await startVertexFake({ ...VERTEX, forwardTo: modelOrigin });
  const serviceAccount = makeServiceAccountKey(vertex.tokenUri);
  vertex.register(serviceAccount);
  return {
    channel: {
      provider: 'vertex',
      protocol,
      baseUrl: vertex.origin,
      apiKey: serviceAccount.json,
      cloud: { project: VERTEX.project, region: VERTEX.location },
    },
    close: () => vertex.close(),
  };
}

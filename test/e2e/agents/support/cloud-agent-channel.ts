/**
 * A cloud between the gateway and the agent harness's scripted model: the channel of a cloud
 * provider whose fake checks what that cloud checks (credentials, paths, body rules) and then
 * forwards each call, in its protocol's own shape, to the scripted model — Amazon Bedrock's
 * InvokeModel for Claude (streamed answers re-framed as Bedrock's event stream) and its Converse
 * and ConverseStream (answered by the scripted model in Converse itself), SigV4-signed
 * (test/support/bedrock-upstream.ts), and Google Vertex AI's Claude and Gemini endpoints
 * (test/support/vertex-upstream.ts, a service-account token from the fake's token endpoint).
 *
 * A Converse channel maps the agents' model names to Bedrock model ids with `modelMap`, as a
 * deployment would (README "Cloud channels"), to one family (ConverseModelFamily): `claude`, a
 * Claude cross-region inference profile (`us.anthropic.<name>-v1:0`, a Claude name kept, others as
 * `claude-opus-5-5`; the gateway then plans Claude's Converse fields, thinking included), or
 * `gpt-oss`, OpenAI's gpt-oss on Bedrock, a model only Converse serves
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-openai.html).
 */
import type { UpstreamProtocol } from '../../../../gateway/canonical/formats.ts';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_CREDENTIALS,
  startBedrockUpstream,
} from '../../../support/bedrock-upstream.ts';
import { makeServiceAccountKey, startVertexFake } from '../../../support/vertex-upstream.ts';

/** A cloud an agent case may go through. */
export type AgentCloud = 'bedrock' | 'vertex';

/** The protocols each cloud's fake forwards to the scripted model. */
export const AGENT_CLOUD_PROTOCOLS: Readonly<Record<AgentCloud, ReadonlyArray<UpstreamProtocol>>> = {
  bedrock: ['anthropic-messages', 'bedrock-converse'],
  vertex: ['anthropic-messages', 'gemini'],
};

/** The Bedrock model family a Converse channel maps every agent model name to (module comment). */
export type ConverseModelFamily = 'claude' | 'gpt-oss';

/** Every ConverseModelFamily, for the cases that run each. */
export const CONVERSE_MODEL_FAMILIES: ReadonlyArray<ConverseModelFamily> = ['claude', 'gpt-oss'];

/** The Bedrock model id a Converse channel of `family` serves for the agent model `name` (module comment). */
export function converseModelIdFor(name: string, family: ConverseModelFamily): string {
  if (family === 'gpt-oss') return 'openai.gpt-oss-120b-1:0';
  return `us.anthropic.${name.startsWith('claude-') ? name : 'claude-opus-5-5'}-v1:0`;
}

/** The Vertex fake's project and location. */
const VERTEX = { project: 'agent-project', location: 'us-east5' };

/** A running cloud fake and the channel fields (all but id and models) that reach it. */
export interface CloudAgentChannel {
  readonly channel: Readonly<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Starts `cloud`'s fake forwarding to `modelOrigin` and returns the channel that reaches it;
 * on a Converse channel `models` (the agent's model names) are mapped to Bedrock model ids of
 * `converseFamily` (default `claude`).
 * @throws Error when the cloud's fake does not forward `protocol` (AGENT_CLOUD_PROTOCOLS)
 */
export async function cloudAgentChannel(
  cloud: AgentCloud,
  protocol: UpstreamProtocol,
  modelOrigin: string,
  models: ReadonlyArray<string>,
  converseFamily: ConverseModelFamily = 'claude',
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
        ...(protocol === 'bedrock-converse'
          ? { modelMap: Object.fromEntries(models.map((name) => [name, converseModelIdFor(name, converseFamily)])) }
          : {}),
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

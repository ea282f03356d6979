/**
 * Contract of the fake Amazon Bedrock Runtime itself (test/support/bedrock-upstream.ts), no
 * gateway: the official SDKs pointed at it — `@aws-sdk/client-bedrock-runtime` (Converse,
 * ConverseStream, InvokeModel, InvokeModelWithResponseStream; endpoint override, static
 * credentials) and `@anthropic-ai/bedrock-sdk` (baseURL, awsAccessKey/awsSecretKey/awsRegion, and
 * a Bedrock API key) — must read every recorded answer, binary event streams included, and must
 * see the fake refuse what Bedrock refuses: a wrong secret, an unknown key id, a wrong API key,
 * an unknown Converse field, an extraneous Claude body key. So a fake that drifts from the wire
 * the SDKs speak fails here.
 */
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_API_KEY,
  BEDROCK_TEST_CREDENTIALS,
  startBedrockUpstream,
  type BedrockUpstream,
} from '../support/bedrock-upstream.ts';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
let fake: BedrockUpstream;

beforeAll(async () => {
  fake = await startBedrockUpstream();
});
afterAll(async () => {
  await fake?.close();
});

function awsClient(secretAccessKey: string = BEDROCK_TEST_CREDENTIALS.secretAccessKey, accessKeyId?: string) {
  return new BedrockRuntimeClient({
    region: BEDROCK_FAKE_REGION,
    endpoint: fake.origin,
    credentials: { accessKeyId: accessKeyId ?? BEDROCK_TEST_CREDENTIALS.accessKeyId, secretAccessKey },
    maxAttempts: 1,
    // The client's default handler speaks HTTP/2 (for bidirectional streams); the fake is HTTP/1.1.
    requestHandler: new NodeHttpHandler(),
  });
}

const converseInput = (scenario: string) => ({
  modelId: `${CLAUDE}--${scenario}`,
  system: [{ text: 'Be brief.' }],
  messages: [
    { role: 'user' as const, content: [{ text: 'What is the weather in Oslo?' }] },
    {
      role: 'assistant' as const,
      content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Oslo' } } }],
    },
    { role: 'user' as const, content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '4°C' }] } }] },
  ],
  inferenceConfig: { maxTokens: 512, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
  toolConfig: {
    tools: [
      {
        toolSpec: {
          name: 'get_weather',
          description: 'Weather of a city',
          inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      },
    ],
    toolChoice: { auto: {} },
  },
  additionalModelRequestFields: { top_k: 40 },
});

async function streamText(events: AsyncIterable<ConverseStreamOutput> | undefined) {
  let text = '';
  let reasoning = '';
  let stopReason: string | undefined;
  let inputTokens: number | undefined;
  const tools: string[] = [];
  for await (const event of events ?? []) {
    text += event.contentBlockDelta?.delta?.text ?? '';
    reasoning += event.contentBlockDelta?.delta?.reasoningContent?.text ?? '';
    if (event.contentBlockStart?.start?.toolUse?.name) tools.push(event.contentBlockStart.start.toolUse.name);
    stopReason = event.messageStop?.stopReason ?? stopReason;
    inputTokens = event.metadata?.usage?.inputTokens ?? inputTokens;
  }
  return { text, reasoning, stopReason, inputTokens, tools };
}

describe('the fake Bedrock through @aws-sdk/client-bedrock-runtime', () => {
  it('answers Converse with the recorded message and usage', async () => {
    const answer = await awsClient().send(new ConverseCommand(converseInput('tool-call')));
    expect(answer.stopReason).toBe('tool_use');
    expect(answer.output?.message?.content?.[1]?.toolUse).toEqual({
      toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
      name: 'get_weather',
      input: { city: 'Oslo' },
    });
    expect(answer.usage?.cacheWriteInputTokens).toBe(1536);
    const recorded = fake.requests.at(-1);
    expect(recorded?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0--tool-call/converse');
  });

  it('streams ConverseStream event streams the SDK decodes', async () => {
    const reasoning = await awsClient().send(new ConverseStreamCommand(converseInput('reasoning')));
    expect(await streamText(reasoning.stream)).toMatchObject({
      text: 'Hi there!',
      reasoning: 'The user greets me; answer briefly.',
      stopReason: 'end_turn',
      inputTokens: 41,
    });
    const tool = await awsClient().send(new ConverseStreamCommand(converseInput('tool-call')));
    expect((await streamText(tool.stream)).tools).toEqual(['get_weather']);
  });

  it('surfaces a stream exception as the SDK’s modeled ThrottlingException', async () => {
    const answer = await awsClient().send(new ConverseStreamCommand(converseInput('throttled')));
    await expect(streamText(answer.stream)).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('answers InvokeModel and InvokeModelWithResponseStream with Claude’s Messages body', async () => {
    const body = JSON.stringify({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const invoked = await awsClient().send(
      new InvokeModelCommand({ modelId: `${CLAUDE}--text`, body, contentType: 'application/json' }),
    );
    expect(JSON.parse(new TextDecoder().decode(invoked.body)).content[0].text).toBe('Hello! How can I help you today?');
    const streamed = await awsClient().send(
      new InvokeModelWithResponseStreamCommand({ modelId: `${CLAUDE}--text`, body, contentType: 'application/json' }),
    );
    const types: string[] = [];
    for await (const event of streamed.body ?? [])
      types.push((JSON.parse(new TextDecoder().decode(event.chunk?.bytes)) as { type: string }).type);
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('refuses a wrong secret, an unknown key id, an unknown field and an extraneous Claude key like Bedrock', async () => {
    await expect(awsClient('not-the-secret').send(new ConverseCommand(converseInput('text')))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(
      awsClient(undefined, 'AKIAUNKNOWNKEY000000').send(new ConverseCommand(converseInput('text'))),
    ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    const withUnknown = { ...converseInput('text'), tollgateUnknownField: true } as ReturnType<typeof converseInput>;
    // The SDK serialises only modelled members, so the unknown field goes in through a middleware.
    const client = awsClient();
    client.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body: string | Uint8Array; headers: Record<string, string> };
        const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
        request.body = JSON.stringify({ ...JSON.parse(text), tollgateUnknownField: true });
        delete request.headers['content-length'];
        return next(args);
      },
      { step: 'build', priority: 'high' },
    );
    await expect(client.send(new ConverseCommand(withUnknown))).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Unknown field in the request body: tollgateUnknownField',
    });
    const extraneous = JSON.stringify({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Hello' }],
      metadata: { user_id: 'u1' },
    });
    await expect(
      awsClient().send(new InvokeModelCommand({ modelId: `${CLAUDE}--text`, body: extraneous })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message:
        'Malformed input request: #: extraneous key [metadata] is not permitted, please reformat your input and try again.',
    });
  });
});

describe('the fake Bedrock through @anthropic-ai/bedrock-sdk', () => {
  const client = (options: { apiKey?: string; awsSecretKey?: string } = {}) =>
    options.apiKey === undefined
      ? new AnthropicBedrock({
          baseURL: fake.origin,
          awsRegion: BEDROCK_FAKE_REGION,
          maxRetries: 0,
          awsAccessKey: BEDROCK_TEST_CREDENTIALS.accessKeyId,
          awsSecretKey: options.awsSecretKey ?? BEDROCK_TEST_CREDENTIALS.secretAccessKey,
        })
      : new AnthropicBedrock({
          baseURL: fake.origin,
          awsRegion: BEDROCK_FAKE_REGION,
          maxRetries: 0,
          apiKey: options.apiKey,
        });
  const params = {
    model: `${CLAUDE}--tool-call`,
    max_tokens: 512,
    system: 'Be brief.',
    messages: [{ role: 'user' as const, content: 'What is the weather in Oslo?' }],
    tools: [
      {
        name: 'get_weather',
        description: 'Weather of a city',
        input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
      },
    ],
  };

  it('creates and streams messages, signed with SigV4', async () => {
    const message = await client().messages.create(params);
    expect(message.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Oslo' } });
    const streamed = await client()
      .messages.stream({ ...params, model: `${CLAUDE}--reasoning` })
      .finalMessage();
    expect(streamed.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(fake.requests.at(-1)?.operation).toBe('invoke-with-response-stream');
  });

  it('takes a Bedrock API key as a bearer token, and refuses a wrong one or a wrong secret', async () => {
    const message = await client({ apiKey: BEDROCK_TEST_API_KEY }).messages.create({
      ...params,
      model: `${CLAUDE}--text`,
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello! How can I help you today?' });
    await expect(client({ apiKey: 'ABSK-wrong' }).messages.create(params)).rejects.toMatchObject({ status: 403 });
    await expect(client({ awsSecretKey: 'wrong' }).messages.create(params)).rejects.toMatchObject({ status: 403 });
  });
});

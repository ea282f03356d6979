/**
 * Contract of the fake Bedrock Runtime's embedding models (test/support/bedrock-upstream.ts), no
 * gateway: `@aws-sdk/client-bedrock-runtime`'s InvokeModelCommand, signed with SigV4 or carrying a
 * Bedrock API key, embeds with Titan Text Embeddings v1 and v2
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html) and
 * Cohere Embed v3 and v4 (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html),
 * reads the documented answer shapes and the `x-amzn-bedrock-input-token-count` header, and sees
 * the fake refuse what Bedrock's schema check refuses (an unknown key, too many texts, a missing
 * `input_type`, a `dimensions` the model does not take) with a ValidationException, and a wrong
 * secret with InvalidSignatureException.
 */
import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_API_KEY,
  BEDROCK_TEST_CREDENTIALS,
  expectedBedrockVector,
  startBedrockUpstream,
  type BedrockUpstream,
} from '../support/bedrock-upstream.ts';
import { fakeTokenCount } from '../support/embedding-upstream.ts';

let fake: BedrockUpstream;

beforeAll(async () => {
  fake = await startBedrockUpstream();
});
afterAll(async () => {
  await fake?.close();
});

/** A client of the fake that keeps the raw response headers of its last call in `headers`. */
function awsClient(options: { secretAccessKey?: string; apiKey?: string } = {}) {
  const client = new BedrockRuntimeClient({
    region: BEDROCK_FAKE_REGION,
    endpoint: fake.origin,
    maxAttempts: 1,
    // The client's default handler speaks HTTP/2; the fake is HTTP/1.1.
    requestHandler: new NodeHttpHandler(),
    ...(options.apiKey === undefined
      ? {
          credentials: {
            accessKeyId: BEDROCK_TEST_CREDENTIALS.accessKeyId,
            secretAccessKey: options.secretAccessKey ?? BEDROCK_TEST_CREDENTIALS.secretAccessKey,
          },
        }
      : { token: { token: options.apiKey }, authSchemePreference: ['httpBearerAuth'] }),
  });
  const seen: { headers: Record<string, string> } = { headers: {} };
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      seen.headers = (result.response as { headers: Record<string, string> }).headers;
      return result;
    },
    { step: 'deserialize', priority: 'low' },
  );
  return { client, seen };
}

/** Invokes `modelId` with `body` and returns the parsed answer and the raw headers. */
async function invoke(modelId: string, body: unknown, options: { apiKey?: string } = {}) {
  const { client, seen } = awsClient(options);
  const answer = await client.send(
    new InvokeModelCommand({
      modelId,
      body: JSON.stringify(body),
      contentType: 'application/json',
      accept: 'application/json',
    }),
  );
  return {
    json: JSON.parse(new TextDecoder().decode(answer.body)) as Record<string, unknown>,
    headers: seen.headers,
  };
}

describe('Titan Text Embeddings through InvokeModelCommand', () => {
  it('v2: dimensions, normalize by default, embeddingsByType and the token count in body and header', async () => {
    const { json, headers } = await invoke('amazon.titan-embed-text-v2:0', {
      inputText: 'the quick brown fox',
      dimensions: 256,
      embeddingTypes: ['float', 'binary'],
    });
    const vector = expectedBedrockVector('the quick brown fox', 256, true);
    expect(json.embedding).toEqual(vector);
    expect(Math.hypot(...(json.embedding as number[]))).toBeCloseTo(1, 5);
    expect(json.embeddingsByType).toEqual({ float: vector, binary: vector.map((v) => (v > 0 ? 1 : 0)) });
    expect(json.inputTextTokenCount).toBe(4);
    expect(headers['x-amzn-bedrock-input-token-count']).toBe('4');
    expect(fake.requests.at(-1)).toMatchObject({
      operation: 'invoke',
      path: '/model/amazon.titan-embed-text-v2%3A0/invoke',
    });
  });

  it('v2: normalize false keeps the raw vector; 1024 values by default; embeddingsByType always', async () => {
    const { json } = await invoke('amazon.titan-embed-text-v2:0', { inputText: 'raw', normalize: false });
    expect(json.embedding).toEqual(expectedBedrockVector('raw', 1024));
    expect(json.embeddingsByType).toEqual({ float: expectedBedrockVector('raw', 1024) });
  });

  it('v1: only inputText, 1536 values, no embeddingsByType; refuses dimensions as an extraneous key', async () => {
    const { json } = await invoke('amazon.titan-embed-text-v1', { inputText: 'hello there' });
    expect(Object.keys(json).sort()).toEqual(['embedding', 'inputTextTokenCount']);
    expect((json.embedding as number[]).length).toBe(1536);
    await expect(invoke('amazon.titan-embed-text-v1', { inputText: 'hello', dimensions: 256 })).rejects.toMatchObject({
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
      message:
        'Malformed input request: #: extraneous key [dimensions] is not permitted, please reformat your input and try again.',
    });
  });

  it('refuses a dimensions value v2 does not take, an unknown key and a missing inputText', async () => {
    for (const [body, detail] of [
      [{ inputText: 'x', dimensions: 300 }, '#/dimensions: 300 is not a valid enum value'],
      [{ inputText: 'x', texts: ['x'] }, '#: extraneous key [texts] is not permitted'],
      [{ dimensions: 256 }, '#: required key [inputText] not found'],
    ] as const)
      await expect(invoke('amazon.titan-embed-text-v2:0', body)).rejects.toMatchObject({
        name: 'ValidationException',
        message: `Malformed input request: ${detail}, please reformat your input and try again.`,
      });
  });
});

describe('Cohere Embed through InvokeModelCommand', () => {
  const texts = ['first text', 'the second one', 'three'];

  it('v3: embeddings_floats without embedding_types; the token count in the header', async () => {
    const { json, headers } = await invoke('cohere.embed-english-v3', { texts, input_type: 'search_document' });
    expect(json).toMatchObject({ texts, response_type: 'embeddings_floats' });
    expect(typeof json.id).toBe('string');
    expect(json.embeddings).toEqual(texts.map((t) => expectedBedrockVector(t, 1024)));
    expect(headers['x-amzn-bedrock-input-token-count']).toBe(
      String(texts.reduce((sum, t) => sum + fakeTokenCount(t), 0)),
    );
  });

  it('v4 with a Bedrock API key: embeddings_by_type, output_dimension, a geography prefix', async () => {
    const { json } = await invoke(
      'us.cohere.embed-v4:0',
      { texts, input_type: 'search_query', embedding_types: ['float', 'int8'], output_dimension: 256, truncate: 'END' },
      { apiKey: BEDROCK_TEST_API_KEY },
    );
    expect(json.response_type).toBe('embeddings_by_type');
    const embeddings = json.embeddings as { float: number[][]; int8: number[][] };
    expect(embeddings.float).toEqual(texts.map((t) => expectedBedrockVector(t, 256)));
    expect(embeddings.int8).toHaveLength(3);
    expect(embeddings.int8[0]).toHaveLength(256);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${BEDROCK_TEST_API_KEY}`);
  });

  it('refuses more than 96 texts, a missing input_type, output_dimension on v3 and an unknown key', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        'cohere.embed-multilingual-v3',
        { texts: Array.from({ length: 97 }, (_, i) => `t${i}`), input_type: 'clustering' },
        '#/texts: expected maximum item count: 96, found: 97',
      ],
      ['cohere.embed-english-v3', { texts }, '#: required key [input_type] not found'],
      [
        'cohere.embed-english-v3',
        { texts, input_type: 'search_query', output_dimension: 256 },
        '#: extraneous key [output_dimension] is not permitted',
      ],
      [
        'cohere.embed-v4:0',
        { texts, input_type: 'search_query', model: 'x' },
        '#: extraneous key [model] is not permitted',
      ],
      [
        'cohere.embed-v4:0',
        { texts, input_type: 'search_query', output_dimension: 100 },
        '#/output_dimension: 100 is not a valid enum value',
      ],
    ];
    for (const [model, body, detail] of cases)
      await expect(invoke(model, body)).rejects.toMatchObject({
        name: 'ValidationException',
        message: `Malformed input request: ${detail}, please reformat your input and try again.`,
      });
  });

  it('refuses a wrong secret and a wrong API key before reading the body', async () => {
    const { client } = awsClient({ secretAccessKey: 'not-the-secret' });
    await expect(
      client.send(
        new InvokeModelCommand({
          modelId: 'cohere.embed-english-v3',
          body: JSON.stringify({ texts, input_type: 'search_query' }),
          contentType: 'application/json',
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
    await expect(
      invoke('cohere.embed-english-v3', { texts, input_type: 'search_query' }, { apiKey: 'ABSK-wrong' }),
    ).rejects.toMatchObject({ name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 403 } });
  });
});

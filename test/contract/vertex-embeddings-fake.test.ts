/**
 * Contract of the fake Vertex AI's text embeddings (test/support/vertex-upstream.ts), no gateway:
 * `@google/genai` in Vertex mode, whose `models.embedContent` calls
 * `publishers/google/models/{model}:predict` for `text-embedding-*` and `gemini-embedding-001`
 * (node_modules/@google/genai: `embedContentInternal`, `tIsVertexEmbedContentModel`), with its
 * token from the fake's token endpoint through the service account made here. The SDK must read
 * the fake's `predictions` (values and statistics) and see it refuse what Vertex refuses: more
 * instances than the model takes in a call, a token it did not issue
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api).
 */
import { GoogleGenAI } from '@google/genai';
import { gaxios } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedVector } from '../support/embedding-upstream.ts';
import {
  makeServiceAccountKey,
  startVertexFake,
  type ServiceAccountKey,
  type VertexFake,
} from '../support/vertex-upstream.ts';

const PROJECT = 'my-project';
const LOCATION = 'us-central1';
let fake: VertexFake;
let key: ServiceAccountKey;

beforeAll(async () => {
  fake = await startVertexFake({ project: PROJECT, location: LOCATION });
  key = makeServiceAccountKey(fake.tokenUri);
  fake.register(key);
});
afterAll(async () => fake?.close());

/** A Gaxios sending Google's token grants (always to https://oauth2.googleapis.com/token) to the fake. */
function toFakeTokenEndpoint(): gaxios.Gaxios {
  const transporter = new gaxios.Gaxios();
  transporter.interceptors.request.add({
    resolved: (config) => {
      if (config.url.href === 'https://oauth2.googleapis.com/token') config.url = new URL(fake.tokenUri);
      return Promise.resolve(config);
    },
  });
  return transporter;
}

const client = (location = LOCATION) =>
  new GoogleGenAI({
    vertexai: true,
    project: PROJECT,
    location,
    httpOptions: { baseUrl: fake.origin },
    googleAuthOptions: {
      credentials: JSON.parse(key.json) as Record<string, string>,
      scopes: ['https://www.googleapis.com/auth/cloud-platform'],
      clientOptions: { transporter: toFakeTokenEndpoint() },
    },
  });

const lastBody = () => JSON.parse(fake.requests.at(-1)!.body) as Record<string, unknown>;

describe('@google/genai in Vertex mode: models.embedContent against the fake :predict', () => {
  it('embeds several contents with outputDimensionality, taskType and title; reads values and statistics', async () => {
    const answer = await client().models.embedContent({
      model: 'text-embedding-005',
      contents: ['the first document', 'second'],
      config: { outputDimensionality: 16, taskType: 'RETRIEVAL_DOCUMENT', title: 'Docs', autoTruncate: true },
    });
    expect(answer.embeddings?.map((e) => e.values)).toEqual([
      expectedVector('the first document', 16),
      expectedVector('second', 16),
    ]);
    expect(answer.embeddings?.map((e) => e.statistics)).toEqual([
      { tokenCount: 3, truncated: false },
      { tokenCount: 1, truncated: false },
    ]);
    expect(answer.metadata).toEqual({ billableCharacterCount: 'thefirstdocumentsecond'.length });
    const last = fake.requests.at(-1)!;
    expect(last.path).toBe(
      `/v1beta1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/text-embedding-005:predict`,
    );
    expect(last.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(lastBody()).toEqual({
      instances: [
        { content: 'the first document', task_type: 'RETRIEVAL_DOCUMENT', title: 'Docs' },
        { content: 'second', task_type: 'RETRIEVAL_DOCUMENT', title: 'Docs' },
      ],
      parameters: { outputDimensionality: 16, autoTruncate: true },
    });
  });

  it('gemini-embedding-001 also goes to :predict, its full length by default', async () => {
    const answer = await client().models.embedContent({ model: 'gemini-embedding-001', contents: 'one text' });
    expect(answer.embeddings?.[0]?.values).toEqual(expectedVector('one text', 3072));
    expect(fake.requests.at(-1)?.path).toMatch(/gemini-embedding-001:predict$/);
  });

  it('refuses more instances than the model takes in one call (gemini-embedding-001: one, others: 250)', async () => {
    await expect(
      client().models.embedContent({ model: 'gemini-embedding-001', contents: ['a', 'b'] }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('INVALID_ARGUMENT') });
    const many = Array.from({ length: 251 }, (_, i) => `text ${i}`);
    await expect(
      client().models.embedContent({
        model: 'text-embedding-005',
        contents: many,
        config: { outputDimensionality: 4 },
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('maximum of 250') });
    const most = await client().models.embedContent({
      model: 'text-embedding-005',
      contents: many.slice(0, 250),
      config: { outputDimensionality: 4 },
    });
    expect(most.embeddings).toHaveLength(250);
  });

  it('refuses a task type Vertex does not know, a title without RETRIEVAL_DOCUMENT and a too large outputDimensionality', async () => {
    for (const config of [
      { taskType: 'SUMMARIZE' },
      { taskType: 'RETRIEVAL_QUERY', title: 'A title' },
      { outputDimensionality: 769 },
    ])
      await expect(
        client().models.embedContent({ model: 'text-embedding-005', contents: 'x', config }),
      ).rejects.toMatchObject({ status: 400 });
  });

  it('a token the fake did not issue is refused 401, another location 403, an unknown model 404', async () => {
    const forged = await fetch(
      `${fake.origin}/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/text-embedding-005:predict`,
      {
        method: 'POST',
        headers: { authorization: 'Bearer ya29.forged', 'content-type': 'application/json' },
        body: JSON.stringify({ instances: [{ content: 'x' }] }),
      },
    );
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    await expect(
      client('europe-west4').models.embedContent({ model: 'text-embedding-005', contents: 'x' }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(client().models.embedContent({ model: 'text-embedding-999', contents: 'x' })).rejects.toMatchObject({
      status: 404,
    });
  });
});

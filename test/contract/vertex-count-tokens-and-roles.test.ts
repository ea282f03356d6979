/**
 * Vertex AI channels beyond generation: the Anthropic and Gemini SDKs' token counts reach Vertex's
 * own count endpoints (Claude's `count-tokens:rawPredict`, Gemini's `:countTokens`) through the
 * gateway, and a Gemini REST body whose contents carry no `role` (the Gemini API defaults it to
 * `user`; Vertex refuses it) is translated rather than passed through, so it is answered.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudSurfaces, type CloudSurfaces } from '../support/cloud-surfaces.ts';
import { TEST_KEY } from '../support/start-gateway.ts';

let surfaces: CloudSurfaces;

beforeAll(async () => {
  surfaces = await startCloudSurfaces();
});

afterAll(async () => {
  await surfaces?.close();
});

describe('Vertex token counts and Gemini roles', () => {
  it("counts Claude tokens with Vertex's count-tokens:rawPredict", async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: surfaces.gateway.origin, maxRetries: 0 });
    const before = surfaces.vertex.requests.length;
    const counted = await client.messages.countTokens({
      model: 'vertex-claude--text',
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });
    expect(counted.input_tokens).toBe(11); // the fake's answer, not the gateway's estimate
    const calls = surfaces.vertex.requests.slice(before).map((r) => r.path);
    expect(calls).toEqual([
      '/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict',
    ]);
  });

  it("counts Gemini tokens with Vertex's :countTokens", async () => {
    const client = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: surfaces.gateway.origin } });
    const before = surfaces.vertex.requests.length;
    const counted = await client.models.countTokens({ model: 'vertex-gemini--text', contents: 'How many tokens?' });
    expect(counted.totalTokens).toBe(9);
    expect(surfaces.vertex.requests.slice(before).map((r) => r.path)).toEqual([
      '/v1/projects/my-project/locations/us-east5/publishers/google/models/text:countTokens',
    ]);
  });

  it('answers a Gemini body whose contents have no role, naming the role on Vertex', async () => {
    const before = surfaces.vertex.requests.length;
    const response = await fetch(`${surfaces.gateway.origin}/v1beta/models/vertex-gemini--text:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'Say hello' }] }] }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { candidates: Array<{ content: { parts: Array<{ text?: string }> } }> };
    expect(answer.candidates[0]?.content.parts.map((p) => p.text ?? '').join('')).not.toBe('');
    const sent = JSON.parse(surfaces.vertex.requests[before]!.body) as { contents: Array<{ role?: string }> };
    expect(sent.contents.map((c) => c.role)).toEqual(['user']);
  });
});

/**
 * The Vertex AI surfaces over the Gemini and Anthropic adapters: publisher-model URLs of the
 * channel's project and location (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference,
 * https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude), the
 * Claude body without `model` and with `anthropic_version`, roles on every Gemini content, token
 * counts, no credential header from the adapter, and Vertex's errors classified.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import { openaiChatCodec } from '../../../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { geminiAdapter } from '../../../../gateway/upstream/gemini/gemini-adapter.ts';
import { openaiChatAdapter } from '../../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import type { UpstreamTarget } from '../../../../gateway/upstream/upstream-adapter.ts';
import { vertexAnthropicSurface } from '../../../../gateway/upstream/vertex-ai/vertex-anthropic-surface.ts';
import { vertexGeminiSurface } from '../../../../gateway/upstream/vertex-ai/vertex-gemini-surface.ts';

const gemini = vertexGeminiSurface(geminiAdapter);
const claude = vertexAnthropicSurface(anthropicMessagesAdapter);

function request(stream = false): CanonicalRequest {
  const decoded = openaiChatCodec.decodeRequest(
    {
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      ...(stream ? { stream: true } : {}),
    },
    {},
  );
  if (!decoded.ok) throw new Error(decoded.message);
  return decoded.value;
}

function target(
  upstreamModel: string,
  region = 'us-east5',
  baseUrl = `https://${region}-aiplatform.googleapis.com`,
): UpstreamTarget {
  return {
    baseUrl,
    apiKey: '{"type":"service_account"}',
    upstreamModel,
    provider: getProviderPreset('vertex'),
    cloud: { project: 'my-project', region },
  };
}

describe('vertex:gemini', () => {
  it('generateContent and streamGenerateContent?alt=sse on the publisher model of the project and location', () => {
    const built = gemini.buildRequest(request(), target('gemini-2.5-flash', 'us-central1'));
    expect(built.request.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    const streamed = gemini.passThroughTarget(
      request(true),
      target('models/gemini-2.5-flash', 'global', 'https://aiplatform.googleapis.com/v1/'),
    );
    expect(streamed.url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });

  it('every content has a role; no credential header is set by the adapter', () => {
    const built = gemini.buildRequest(request(), target('gemini-2.5-flash'));
    const body = JSON.parse(built.request.body) as { contents: Array<{ role?: string }>; systemInstruction: unknown };
    expect(body.contents.every((c) => c.role === 'user' || c.role === 'model')).toBe(true);
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    const names = Object.keys(built.request.headers).map((n) => n.toLowerCase());
    expect(names).not.toContain('authorization');
    expect(names).not.toContain('x-goog-api-key');
  });

  it('counts tokens with the flat Vertex CountTokensRequest', () => {
    const call = gemini.buildCountTokensRequest!(request(), target('gemini-2.5-flash'));
    expect(call.url).toMatch(/publishers\/google\/models\/gemini-2\.5-flash:countTokens$/);
    expect(Object.keys(JSON.parse(call.body) as object).sort()).toEqual(['contents', 'systemInstruction']);
    expect(gemini.decodeCountTokensResponse!({ totalTokens: 7, totalBillableCharacters: 20 })).toBe(7);
  });

  it('a project-less channel is a channel fault, not a 500', () => {
    const noProject = { ...target('gemini-2.5-flash'), cloud: { region: 'us-central1' } };
    expect(() => gemini.buildRequest(request(), noProject)).toThrow(
      expect.objectContaining({ kind: 'upstream-unavailable', allowFailover: true }),
    );
  });

  it('only wraps the gemini adapter', () => {
    expect(() => vertexGeminiSurface(openaiChatAdapter)).toThrow(/wraps the gemini adapter/);
  });
});

describe('vertex:anthropic-messages', () => {
  it('rawPredict / streamRawPredict, body without model and with anthropic_version, no anthropic-version header', () => {
    const built = claude.buildRequest(request(), target('claude-sonnet-4-5@20250929'));
    expect(built.request.url).toBe(
      'https://us-east5-aiplatform.googleapis.com/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    );
    const body = JSON.parse(built.request.body) as Record<string, unknown>;
    expect(body.model).toBeUndefined();
    expect(body.anthropic_version).toBe('vertex-2023-10-16');
    expect(body.max_tokens).toBe(4096);
    expect(Object.keys(built.request.headers).map((n) => n.toLowerCase())).not.toContain('anthropic-version');
    const streamed = claude.buildRequest(request(true), target('claude-sonnet-4-5@20250929'));
    expect(streamed.request.url).toMatch(/:streamRawPredict$/);
    expect(JSON.parse(streamed.request.body)).toMatchObject({ stream: true });
  });

  it('counts tokens at count-tokens:rawPredict with the model in the body', () => {
    const call = claude.buildCountTokensRequest!(request(), target('claude-sonnet-4-5@20250929'));
    expect(call.url).toMatch(/publishers\/anthropic\/models\/count-tokens:rawPredict$/);
    expect(JSON.parse(call.body)).toMatchObject({
      model: 'claude-sonnet-4-5@20250929',
      anthropic_version: 'vertex-2023-10-16',
    });
  });
});

describe('Vertex errors', () => {
  const rpc = (code: number, status: string, message: string) => JSON.stringify({ error: { code, message, status } });

  it('401 UNAUTHENTICATED and 403 PERMISSION_DENIED are channel faults with failover', () => {
    for (const surface of [gemini, claude]) {
      const unauthenticated = surface.classifyError(
        401,
        rpc(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.'),
        {},
      );
      expect(unauthenticated).toMatchObject({ kind: 'upstream-rejected', status: 502, allowFailover: true });
      expect(unauthenticated.message).toMatch(/Vertex AI refused the channel's credentials/);
      const denied = surface.classifyError(
        403,
        rpc(403, 'PERMISSION_DENIED', "Permission 'aiplatform.endpoints.predict' denied on resource"),
        {},
      );
      expect(denied).toMatchObject({ status: 502, allowFailover: true, code: 'PERMISSION_DENIED' });
    }
  });

  it('429 RESOURCE_EXHAUSTED is rate-limited; an Anthropic model error keeps its classification', () => {
    const limited = claude.classifyError(429, rpc(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded'), {});
    expect(limited).toMatchObject({ kind: 'upstream-rate-limited', status: 429 });
    const invalid = claude.classifyError(
      400,
      JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large' } }),
      {},
    );
    expect(invalid).toMatchObject({ kind: 'upstream-rejected', status: 400, allowFailover: false });
  });
});

/**
 * The Azure OpenAI surface over the OpenAI adapters: where calls go on the v1 and the dated
 * surface (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/api-version-lifecycle,
 * https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference), that no credential header
 * is set by the adapter, that Azure's prompt-annotation stream chunk does not start the message,
 * and how Azure's error answers are classified.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import { openaiChatCodec } from '../../../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import type { CloudSettings } from '../../../../gateway/providers/provider-preset.ts';
import { azureOpenAiSurface } from '../../../../gateway/upstream/azure-openai/azure-openai-surface.ts';
import { azureResourceEndpoint } from '../../../../gateway/upstream/shared/azure-openai-urls.ts';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { openaiChatAdapter } from '../../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import { openaiResponsesAdapter } from '../../../../gateway/upstream/openai-responses/openai-responses-adapter.ts';
import type { UpstreamTarget } from '../../../../gateway/upstream/upstream-adapter.ts';

const chat = azureOpenAiSurface(openaiChatAdapter);
const responses = azureOpenAiSurface(openaiResponsesAdapter);

function request(stream = false): CanonicalRequest {
  const decoded = openaiChatCodec.decodeRequest(
    { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], ...(stream ? { stream: true } : {}) },
    {},
  );
  if (!decoded.ok) throw new Error(decoded.message);
  return decoded.value;
}

function target(baseUrl: string, cloud?: CloudSettings): UpstreamTarget {
  return {
    baseUrl,
    apiKey: 'azure-secret-key',
    upstreamModel: 'my gpt-4o',
    provider: getProviderPreset('azure'),
    ...(cloud ? { cloud } : {}),
  };
}

describe('Azure OpenAI URLs', () => {
  it.each([
    'https://res.openai.azure.com',
    'https://res.openai.azure.com/',
    'https://res.openai.azure.com/openai',
    'https://res.openai.azure.com/openai/v1/',
  ])('%s is the resource endpoint https://res.openai.azure.com', (baseUrl) => {
    expect(azureResourceEndpoint(baseUrl)).toBe('https://res.openai.azure.com');
  });

  it('v1 surface: /openai/v1/chat/completions and /openai/v1/responses, the deployment as model, no api-version', () => {
    const built = chat.buildRequest(request(), target('https://res.cognitiveservices.azure.com/openai/v1'));
    expect(built.request.url).toBe('https://res.cognitiveservices.azure.com/openai/v1/chat/completions');
    expect(JSON.parse(built.request.body).model).toBe('my gpt-4o');
    const viaResponses = responses.buildRequest(request(), target('https://res.openai.azure.com'));
    expect(viaResponses.request.url).toBe('https://res.openai.azure.com/openai/v1/responses');
    expect(JSON.parse(viaResponses.request.body).model).toBe('my gpt-4o');
  });

  it('dated surface: the deployment in the Chat path and api-version as a query; Responses at /openai/responses', () => {
    const cloud = { apiVersion: '2024-10-21' };
    const built = chat.buildRequest(request(true), target('https://res.openai.azure.com', cloud));
    expect(built.request.url).toBe(
      'https://res.openai.azure.com/openai/deployments/my%20gpt-4o/chat/completions?api-version=2024-10-21',
    );
    expect(JSON.parse(built.request.body)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const viaResponses = responses.passThroughTarget(
      request(),
      target('https://res.openai.azure.com', { apiVersion: '2025-04-01-preview' }),
    );
    expect(viaResponses.url).toBe('https://res.openai.azure.com/openai/responses?api-version=2025-04-01-preview');
  });

  it("cloud.apiVersion v1 or preview stays on the v1 surface (preview with Azure's api-version=preview)", () => {
    expect(chat.buildRequest(request(), target('https://res.openai.azure.com', { apiVersion: 'v1' })).request.url).toBe(
      'https://res.openai.azure.com/openai/v1/chat/completions',
    );
    expect(
      responses.buildRequest(request(), target('https://res.openai.azure.com', { apiVersion: 'preview' })).request.url,
    ).toBe('https://res.openai.azure.com/openai/v1/responses?api-version=preview');
  });

  it('sets no credential header (the credentials step adds api-key or a bearer token)', () => {
    const built = chat.buildRequest(request(), target('https://res.openai.azure.com'));
    const names = Object.keys(built.request.headers).map((n) => n.toLowerCase());
    expect(names).not.toContain('authorization');
    expect(names).not.toContain('api-key');
    expect(JSON.stringify(built.request)).not.toContain('azure-secret-key');
  });

  it('a base URL that is no URL is a channel fault, not a 500', () => {
    expect(() => chat.buildRequest(request(), target('res.openai.azure.com'))).toThrow(
      expect.objectContaining({ kind: 'upstream-unavailable', allowFailover: true }),
    );
  });

  it('only wraps the OpenAI protocols', () => {
    expect(() => azureOpenAiSurface(anthropicMessagesAdapter)).toThrow(/openai-chat and openai-responses/);
  });
});

describe('Azure OpenAI streams', () => {
  it("Azure's prompt-annotation chunk does not start the message; the filter stop reason arrives", () => {
    const decoder = chat.createStreamDecoder({
      provider: getProviderPreset('azure'),
      upstreamModel: 'my gpt-4o',
      request: request(true),
    });
    const annotation = {
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [
        { prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' } } },
      ],
    };
    expect(decoder.push({ data: JSON.stringify(annotation) })).toEqual([]);
    const first = decoder.push({
      data: JSON.stringify({
        id: 'chatcmpl-1',
        model: 'gpt-4o-2024-11-20',
        object: 'chat.completion.chunk',
        created: 1,
        choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
      }),
    });
    expect(first[0]).toMatchObject({ type: 'message-start', messageId: 'chatcmpl-1', model: 'gpt-4o-2024-11-20' });
    decoder.push({
      data: JSON.stringify({
        id: 'chatcmpl-1',
        model: 'gpt-4o-2024-11-20',
        object: 'chat.completion.chunk',
        created: 1,
        choices: [{ index: 0, delta: {}, finish_reason: 'content_filter' }],
      }),
    });
    const end = decoder.push({ data: '[DONE]' });
    expect(end.at(-1)).toMatchObject({ type: 'message-end', finishReason: { unified: 'content-filter' } });
  });
});

describe('Azure OpenAI errors', () => {
  it('a content-filter refusal is a 400 content_filter error of the request, no failover', () => {
    const body = JSON.stringify({
      error: {
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { hate: { filtered: true } } },
      },
    });
    const error = chat.classifyError(400, body, {});
    expect(error).toMatchObject({
      kind: 'upstream-rejected',
      status: 400,
      code: 'content_filter',
      param: 'prompt',
      allowFailover: false,
    });
    expect(error.message).toMatch(/content filter/);
  });

  it('a 401 (bad key, expired token) is a channel fault with failover and a clear message', () => {
    const body = JSON.stringify({
      error: {
        code: '401',
        message:
          'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
      },
    });
    const error = responses.classifyError(401, body, {});
    expect(error).toMatchObject({ kind: 'upstream-rejected', status: 502, allowFailover: true, retryable: false });
    expect(error.message).toMatch(/refused the channel's credentials/);
  });

  it('a missing deployment or unsupported api-version is a channel fault; a 429 keeps its retry-after', () => {
    const missing = chat.classifyError(
      404,
      JSON.stringify({
        error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' },
      }),
      {},
    );
    expect(missing).toMatchObject({ status: 502, allowFailover: true, code: 'upstream_misconfigured' });
    const version = chat.classifyError(
      400,
      JSON.stringify({ error: { code: 'BadRequest', message: 'API version not supported' } }),
      {},
    );
    expect(version).toMatchObject({ status: 502, allowFailover: true });
    const limited = chat.classifyError(
      429,
      JSON.stringify({ error: { code: '429', message: 'Requests have exceeded token rate limit.' } }),
      { 'retry-after': '6' },
    );
    expect(limited).toMatchObject({ kind: 'upstream-rate-limited', retryAfterMs: 6000 });
  });
});

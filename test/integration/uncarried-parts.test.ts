/**
 * A part the gateway cannot carry to another protocol is refused with a 400 that names it, in the
 * client's own error format, and nothing is sent upstream; the same request still passes through
 * to a channel of the client's own protocol, and when a model has both kinds of channel the one
 * that can carry the request serves it.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFormat as UpstreamProtocol } from '../../gateway/canonical/formats.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';

let upstream: FixtureUpstream;
let gateway: TestGateway;

function channel(id: string, protocol: UpstreamProtocol, model: string, priority = 0): Record<string, unknown> {
  const providers: Record<UpstreamProtocol, string> = {
    'openai-chat': 'deepseek',
    'openai-responses': 'openai',
    'anthropic-messages': 'anthropic',
    gemini: 'gemini',
  };
  const provider = providers[protocol];
  return {
    id,
    provider,
    protocol,
    baseUrl: upstream.baseUrl(protocol),
    apiKey: 'k',
    priority,
    models: [model],
    modelMap: { [model]: 'text' },
  };
}

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  const channels = [
    channel('chat', 'openai-chat', 'via-chat'),
    channel('responses', 'openai-responses', 'via-responses'),
    channel('anthropic', 'anthropic-messages', 'via-anthropic'),
    channel('gemini', 'gemini', 'via-gemini'),
    // One model on two channels: the chat channel is preferred, the Responses one is the fallback.
    channel('mixed-chat', 'openai-chat', 'mixed', 10),
    channel('mixed-responses', 'openai-responses', 'mixed', 0),
  ];
  gateway = await startTestGateway({ channels });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function post(
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const response = await request(`${gateway.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, body: await response.body.json() };
}

const openai = { authorization: `Bearer ${TEST_KEY}` };
const anthropic = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };
const gemini = { 'x-goog-api-key': TEST_KEY };

function responsesBody(model: string): Record<string, unknown> {
  return {
    model,
    input: 'Find the news',
    tools: [
      { type: 'file_search', vector_store_ids: ['vs_1'] },
      { type: 'function', name: 'f', parameters: { type: 'object', properties: {} } },
    ],
  };
}

describe('parts the gateway cannot carry', () => {
  it('Responses: a built-in tool is refused on a chat channel, naming it, with nothing sent upstream', async () => {
    const before = upstream.requests.length;
    const answer = await post('/v1/responses', openai, responsesBody('via-chat'));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      type: 'invalid_request_error',
      param: 'tools.0',
      code: 'unsupported_parameter',
    });
    expect(answer.body.error.message).toContain("tools.0: built-in tool type 'file_search'");
    expect(answer.body.error.message).toContain('OpenAI Chat Completions');
    expect(upstream.requests.length).toBe(before);
    const outcome = gateway.outcomes.at(-1);
    expect(outcome).toMatchObject({ status: 'failed', httpStatus: 400, errorKind: 'invalid-request', attempts: 0 });
  });

  it('Responses: the same request passes through unchanged to an OpenAI Responses channel', async () => {
    const answer = await post('/v1/responses', openai, responsesBody('via-responses'));
    expect(answer.status).toBe(200);
    const sent = JSON.parse(upstream.requests.at(-1)?.body ?? '{}');
    expect(sent.tools[0]).toEqual({ type: 'file_search', vector_store_ids: ['vs_1'] });
  });

  it('Responses: with a chat and a Responses channel for one model, the Responses channel serves it', async () => {
    const answer = await post('/v1/responses', openai, responsesBody('mixed'));
    expect(answer.status).toBe(200);
    expect(upstream.requests.at(-1)?.protocol).toBe('openai-responses');
    expect(gateway.outcomes.at(-1)).toMatchObject({
      status: 'completed',
      channelId: 'mixed-responses',
      attempts: 1,
      failovers: [],
    });
  });

  it('Anthropic: a server tool is refused on a Gemini channel in Anthropic’s error shape', async () => {
    const body = {
      model: 'via-gemini',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    };
    const answer = await post('/v1/messages', anthropic, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(answer.body.error.message).toContain('tools.0: server tool "web_search_20250305"');
  });

  it('Gemini: googleSearch is refused on an Anthropic channel in Gemini’s error shape', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [{ googleSearch: {} }] };
    const answer = await post('/v1beta/models/via-anthropic:generateContent', gemini, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(answer.body.error.message).toContain("tools.0: googleSearch is Gemini's built-in tooling");
  });

  it('Chat: audio output is refused on an Anthropic channel; a part refused by the upstream builder is named too', async () => {
    const audio = await post('/v1/chat/completions', openai, {
      model: 'via-anthropic',
      messages: [{ role: 'user', content: 'hi' }],
      audio: { voice: 'alloy', format: 'wav' },
      modalities: ['text', 'audio'],
    });
    expect(audio.status).toBe(400);
    expect(audio.body.error.param).toBe('audio');
    const stops = await post('/v1/chat/completions', openai, {
      model: 'via-responses',
      messages: [{ role: 'user', content: 'hi' }],
      stop: ['END'],
    });
    expect(stops.status).toBe(400);
    expect(stops.body.error.message).toContain('the OpenAI Responses API has no stop sequences');
  });

  it('a safe drop is not refused: Anthropic cache_control and context_management reach a chat channel as a normal request', async () => {
    const body = {
      model: 'via-chat',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
    };
    const answer = await post('/v1/messages', anthropic, body);
    expect(answer.status).toBe(200);
  });
});

/**
 * Idle client streams get the format's own keep-alive (https://html.spec.whatwg.org/multipage/server-sent-events.html: a comment line is ignored): a `: ping`
 * comment for OpenAI formats, `event: ping` for Anthropic, a bare blank line for Gemini — and the
 * official SDKs still parse the stream.
 */
import { createServer, type Server } from 'node:http';
import { GoogleGenAI } from '@google/genai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream } from '../../gateway/mock/mock-upstream-server.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';

let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let gateway: TestGateway;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startTestGateway(
    { channels: [{ id: 'slow', provider: 'mock', protocol: 'openai-chat', models: ['slow'] }] },
    { mockBaseUrl: mock.baseUrl, keepAliveMs: 40 },
  );
});

afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

const SLOW_PROMPT = 'tell me slowly [mock:slow=150]';

describe('keep-alives on idle streams', () => {
  it.each([
    [
      '/v1/chat/completions',
      { authorization: `Bearer ${TEST_KEY}` },
      { model: 'slow', stream: true, messages: [{ role: 'user', content: SLOW_PROMPT }] },
      ': ping\n\n',
    ],
    [
      '/v1/messages',
      { 'x-api-key': TEST_KEY },
      { model: 'slow', stream: true, max_tokens: 100, messages: [{ role: 'user', content: SLOW_PROMPT }] },
      'event: ping\ndata: {"type":"ping"}\n\n',
    ],
  ])('%s carries its keep-alive frame', async (path, headers, body, frame) => {
    const response = await request(`${gateway.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    expect(response.statusCode).toBe(200);
    // Anthropic streams already carry one ping after message_start; keep-alives add more.
    expect(text.split(frame).length - 1).toBeGreaterThanOrEqual(2);
  });

  it('Gemini gets bare blank lines, never comments, and the SDK reads the whole answer', async () => {
    const raw = await request(`${gateway.origin}/v1beta/models/slow:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ parts: [{ text: SLOW_PROMPT }] }] }),
    });
    const text = await raw.body.text();
    expect(text).not.toMatch(/^:/m);
    expect(text).toMatch(/\n\n\n/);
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin } });
    let answer = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'slow', contents: SLOW_PROMPT }))
      answer += chunk.text ?? '';
    expect(answer).toBe(`Mock reply to: ${SLOW_PROMPT}`);
  });
});

describe('keep-alives on the pass-through path', () => {
  it('never land inside an upstream event that arrives in two pieces', async () => {
    const first =
      'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\ndata: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choi';
    const rest =
      'ces":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\ndata: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\ndata: [DONE]\n\n';
    const splitUpstream: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(first);
        setTimeout(() => res.end(rest), 300);
      });
    });
    await new Promise<void>((resolve) => splitUpstream.listen(0, '127.0.0.1', resolve));
    const port = (splitUpstream.address() as { port: number }).port;
    const passThrough = await startTestGateway(
      {
        channels: [
          {
            id: 'split',
            provider: 'deepseek',
            protocol: 'openai-chat',
            baseUrl: `http://127.0.0.1:${port}/v1`,
            apiKey: 'k',
            models: ['split'],
          },
        ],
      },
      { keepAliveMs: 40 },
    );
    try {
      const response = await request(`${passThrough.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
        body: JSON.stringify({
          model: 'split',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      // The half event is held until its end arrives; keep-alives may fill the wait, between whole events only.
      const text = await response.body.text();
      expect(text.replaceAll(': ping\n\n', '')).toBe(first + rest);
      expect(text.split(': ping\n\n').every((piece) => piece === '' || piece.endsWith('\n\n'))).toBe(true);
    } finally {
      await passThrough.close();
      await new Promise<void>((resolve) => splitUpstream.close(() => resolve()));
    }
  });
});

/**
 * Runs the encoder's SSE through the official `openai` SDK (v6) chat stream helper via a loopback
 * server (https://github.com/openai/openai-node/blob/master/src/lib/ChatCompletionStream.ts: the helper requires role, index/id/type/name on the
 * first tool-call fragment and a finish_reason).
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import { openaiChatCodec } from '../../../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import { makeContext, serveSse, toolResponse, type SseServer } from '../openai-responses/openai-test-fixtures.ts';

let server: SseServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('Chat stream through openai SDK ChatCompletionStream', () => {
  it('finalChatCompletion() has the text, the tool call, the finish reason and the usage', async () => {
    const raw = { model: 'gw-model', messages: [], stream: true, stream_options: { include_usage: true } };
    const encoder = openaiChatCodec.createStreamEncoder(makeContext(raw));
    server = await serveSse(
      encoder.keepAlive() +
        responseToStreamEvents(toolResponse, 4)
          .map((e) => encoder.encode(e))
          .join(''),
    );
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL, maxRetries: 0 });
    const stream = client.chat.completions.stream({
      model: 'gw-model',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      stream_options: { include_usage: true },
    });
    const reasoning: string[] = [];
    stream.on('chunk', (chunk) => {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined;
      if (delta?.reasoning_content !== undefined) reasoning.push(delta.reasoning_content);
    });
    const final = await stream.finalChatCompletion();
    const choice = final.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBe('Checking.');
    expect(choice?.message.tool_calls).toMatchObject([
      { id: 'call_7Hk2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(reasoning.join('')).toBe('Need the weather.');
    expect(final.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 58, total_tokens: 178 });
    expect(server.bodies[0]).toMatchObject({ stream: true });
  });
});

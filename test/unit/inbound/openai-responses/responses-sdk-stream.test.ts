/**
 * Runs the encoder's SSE through the official `openai` SDK (v6) Responses stream helper, via a
 * loopback server (the helper validates event order, ids and indices:
 * https://github.com/openai/openai-node/blob/master/src/lib/responses/ResponseStream.ts).
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { openaiResponsesCodec } from '../../../../gateway/inbound/openai-responses/openai-responses-codec.ts';
import { makeContext, serveSse, textResponse, toolResponse, type SseServer } from './openai-test-fixtures.ts';

let server: SseServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(events: StreamEvent[]): Promise<OpenAI> {
  const encoder = openaiResponsesCodec.createStreamEncoder(
    makeContext({ model: 'gw-model', input: 'hi', stream: true }),
  );
  server = await serveSse(events.map((e) => encoder.encode(e)).join('') + encoder.keepAlive());
  return new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL, maxRetries: 0 });
}

describe('Responses stream through openai SDK ResponseStream', () => {
  it('finalResponse() has the text and usage', async () => {
    const client = await clientFor(responseToStreamEvents(textResponse, 2));
    const deltas: string[] = [];
    const stream = client.responses
      .stream({ model: 'gw-model', input: 'hi' })
      .on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas.join('')).toBe('Hello!');
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe('Hello!');
    expect(final.usage).toMatchObject({
      input_tokens: 9,
      output_tokens: 2,
      total_tokens: 11,
      input_tokens_details: { cached_tokens: 4 },
    });
  });

  it('finalResponse() has the reasoning summary and the function call', async () => {
    const client = await clientFor(responseToStreamEvents(toolResponse, 5));
    const final = await client.responses.stream({ model: 'gw-model', input: 'hi' }).finalResponse();
    expect(final.output.map((o) => o.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(final.output[0]).toMatchObject({
      summary: [{ type: 'summary_text', text: 'Need the weather.' }],
      encrypted_content: 'sig-1',
    });
    expect(final.output[2]).toMatchObject({
      type: 'function_call',
      call_id: 'call_7Hk2',
      name: 'get_weather',
      arguments: '{"city":"Oslo"}',
    });
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(40);
  });

  it('a mid-stream error rejects with an APIError carrying the message', async () => {
    const events = responseToStreamEvents(textResponse).slice(0, 3);
    const client = await clientFor([
      ...events,
      { type: 'error', error: new GatewayError('upstream-timeout', 'Upstream timed out') },
    ]);
    const failure = await client.responses
      .stream({ model: 'gw-model', input: 'hi' })
      .finalResponse()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).message).toMatch(/Upstream timed out/);
  });
});

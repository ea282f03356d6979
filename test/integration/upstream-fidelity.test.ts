/**
 * What reaches an upstream is what that API accepts. Official SDKs call the gateway, whose channels
 * point at the strict fake upstream (it refuses unknown top-level fields and orphan tool results
 * as the real APIs do):
 * - the Anthropic SDK's `anthropic-beta` header (as Claude Code sends it) reaches a true Anthropic
 *   channel as a header, and no upstream body on any protocol, streamed or not;
 * - a tool result whose call is not in the conversation is refused by the gateway in each client
 *   format with a 400 naming the call, before anything is sent upstream — for a translated request,
 *   a pass-through one, and a Responses chain built from a stored response.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFormat as UpstreamProtocol } from '../../gateway/canonical/formats.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';

/** The betas Claude Code sends on every request. */
const CLAUDE_CODE_BETAS = [
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14',
];

let upstream: FixtureUpstream;
let gateway: TestGateway;

const CHANNELS: ReadonlyArray<{ id: string; provider: string; protocol: UpstreamProtocol }> = [
  { id: 'chat', provider: 'openai', protocol: 'openai-chat' },
  { id: 'responses', provider: 'openai', protocol: 'openai-responses' },
  { id: 'anthropic', provider: 'anthropic', protocol: 'anthropic-messages' },
  { id: 'compat-anthropic', provider: 'deepseek', protocol: 'anthropic-messages' },
  { id: 'gemini', provider: 'gemini', protocol: 'gemini' },
];

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  const channels = CHANNELS.map(({ id, provider, protocol }) => ({
    id,
    provider,
    protocol,
    baseUrl: upstream.baseUrl(protocol),
    apiKey: 'upstream-secret',
    models: [`via-${id}`],
    modelMap: { [`via-${id}`]: 'text', [`via-${id}-tool`]: 'tool-call' },
  }));
  gateway = await startTestGateway({ channels });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const anthropic = (): Anthropic => new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
const openai = (): OpenAI => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
const gemini = (): GoogleGenAI => new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin } });

describe('the anthropic-beta header', () => {
  for (const { id, protocol } of CHANNELS) {
    for (const stream of [false, true]) {
      it(`reaches the ${id} channel (${protocol}) ${id === 'anthropic' ? 'as a header' : 'nowhere'} and no body, ${stream ? 'streamed' : 'not streamed'}`, async () => {
        const before = upstream.requests.length;
        const params = {
          model: `via-${id}`,
          max_tokens: 64,
          betas: CLAUDE_CODE_BETAS,
          messages: [{ role: 'user' as const, content: 'Hello' }],
        };
        if (stream) {
          const events = await anthropic().beta.messages.create({ ...params, stream: true });
          for await (const _event of events) void _event;
        } else {
          const message = await anthropic().beta.messages.create(params);
          expect(message.content.length).toBeGreaterThan(0);
        }
        const sent = upstream.requests.slice(before);
        expect(sent).toHaveLength(1);
        const [request] = sent;
        expect(request?.protocol).toBe(protocol);
        expect(request?.body).not.toMatch(/anthropic-beta|claude-code-20250219|interleaved-thinking/);
        if (id === 'anthropic') expect(request?.headers['anthropic-beta']).toBe(CLAUDE_CODE_BETAS.join(','));
        else expect(request?.headers['anthropic-beta']).toBeUndefined();
      });
    }
  }

  it('a translated request with a tool round trip carries no beta either (Claude Code through Chat Completions)', async () => {
    const before = upstream.requests.length;
    await anthropic().beta.messages.create({
      model: 'via-chat',
      max_tokens: 64,
      betas: CLAUDE_CODE_BETAS,
      tools: [
        {
          name: 'Read',
          description: 'Reads a file',
          input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
        },
      ],
      messages: [
        { role: 'user', content: 'Read note.txt' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'note.txt' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'secret-42' }] },
      ],
    });
    const [request] = upstream.requests.slice(before);
    expect(request?.body).toContain('secret-42');
    expect(request?.body).not.toContain('anthropic-beta');
  });
});

/** The refusal an SDK call ends with (fails the test when the call succeeds). */
async function refusalOf(call: Promise<unknown>): Promise<{ status: number; error: any }> {
  try {
    await call;
  } catch (error) {
    const apiError = error as { status?: number; error?: unknown; message?: string };
    return { status: apiError.status ?? 0, error: apiError.error ?? apiError.message };
  }
  throw new Error('the gateway answered instead of refusing');
}

describe('a tool result whose call is not in the conversation', () => {
  for (const { id } of CHANNELS) {
    it(`Chat Completions client → ${id}: 400 naming the call id, nothing sent upstream`, async () => {
      const before = upstream.requests.length;
      const refused = await refusalOf(
        openai().chat.completions.create({
          model: `via-${id}`,
          messages: [
            { role: 'user', content: 'Read note.txt' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: 'call_1', content: 'one' },
            { role: 'tool', tool_call_id: 'call_orphan', content: 'two' },
          ],
        }),
      );
      expect(refused.status).toBe(400);
      expect(refused.error).toMatchObject({ type: 'invalid_request_error', param: 'messages.3.tool_call_id' });
      expect(refused.error.message).toContain(
        "'call_orphan' is not the id of a tool call made earlier in the conversation",
      );
      expect(upstream.requests.length).toBe(before);
    });

    it(`Responses client → ${id}: 400 naming the call id, nothing sent upstream`, async () => {
      const before = upstream.requests.length;
      const refused = await refusalOf(
        openai().responses.create({
          model: `via-${id}`,
          input: [
            { role: 'user', content: 'Read note.txt' },
            { type: 'function_call_output', call_id: 'call_orphan', output: 'two' },
          ],
        }),
      );
      expect(refused.status).toBe(400);
      expect(refused.error).toMatchObject({ type: 'invalid_request_error', param: 'input.1.call_id' });
      expect(refused.error.message).toContain('No tool call found for function call output with call_id call_orphan');
      expect(upstream.requests.length).toBe(before);
    });

    it(`Anthropic client → ${id}: 400 naming the tool_use_id, nothing sent upstream`, async () => {
      const before = upstream.requests.length;
      const refused = await refusalOf(
        anthropic().messages.create({
          model: `via-${id}`,
          max_tokens: 64,
          messages: [
            { role: 'user', content: 'Read note.txt' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 'toolu_1', content: 'one' },
                { type: 'tool_result', tool_use_id: 'toolu_orphan', content: 'two' },
              ],
            },
          ],
        }),
      );
      expect(refused.status).toBe(400);
      expect(refused.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(refused.error.error.message).toContain(
        "messages.2.content.1.tool_use_id: unexpected tool_use_id 'toolu_orphan'",
      );
      expect(upstream.requests.length).toBe(before);
    });

    it(`Gemini client → ${id}: 400 INVALID_ARGUMENT naming the function, nothing sent upstream`, async () => {
      const before = upstream.requests.length;
      const refused = await refusalOf(
        gemini().models.generateContent({
          model: `via-${id}`,
          contents: [
            { role: 'user', parts: [{ text: 'Read note.txt' }] },
            { role: 'model', parts: [{ functionCall: { name: 'read', args: {} } }] },
            {
              role: 'user',
              parts: [
                { functionResponse: { name: 'read', response: { ok: 1 } } },
                { functionResponse: { name: 'write', response: { ok: 2 } } },
              ],
            },
          ],
        }),
      );
      expect(refused.status).toBe(400);
      expect(String(refused.error)).toContain('INVALID_ARGUMENT');
      expect(String(refused.error)).toContain(
        "contents.2.parts.1.functionResponse.name: no functionCall named 'write'",
      );
      expect(upstream.requests.length).toBe(before);
    });
  }

  it('Responses chain from a stored response: the stored turns count, an unknown call id is refused', async () => {
    const first = await openai().responses.create({
      model: 'via-chat-tool',
      input: 'What is the weather?',
      store: true,
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: false,
        },
      ],
    });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call?.type).toBe('function_call');
    if (call?.type !== 'function_call') return;
    const answered = await openai().responses.create({
      model: 'via-chat',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    expect(answered.status).toBe('completed');
    const before = upstream.requests.length;
    const refused = await refusalOf(
      openai().responses.create({
        model: 'via-chat',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: 'call_elsewhere', output: 'sunny' }],
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.error.message).toContain('call_id call_elsewhere');
    expect(upstream.requests.length).toBe(before);
  });
});

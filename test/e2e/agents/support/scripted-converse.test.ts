/**
 * The scripted model speaks Amazon Bedrock's Converse as Bedrock does, checked with the official
 * `@aws-sdk/client-bedrock-runtime` pointed at the Bedrock fake (test/support/bedrock-upstream.ts),
 * which checks the SigV4 signature and the Converse body and forwards to the scripted upstream:
 * ConverseCommand and ConverseStreamCommand read its tool call, its final text, Claude's signed
 * reasoning (when `additionalModelRequestFields.thinking` is on), its usage and stop reasons
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html),
 * and see its replay refusals as Bedrock's ValidationException.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type ContentBlock,
  type ConverseStreamOutput,
  type Message,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_CREDENTIALS,
  startBedrockUpstream,
  type BedrockUpstream,
} from '../../../support/bedrock-upstream.ts';
import type { AgentScenario } from './plan-scripted-reply.ts';
import { startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.ts';

const CLAUDE = 'us.anthropic.claude-opus-5-5-v1:0';
const scenario: AgentScenario = { mode: 'tool', marker: 'MARKER-CONVERSE', notePath: '/tmp/ws/note.txt' };
const toolConfig = {
  tools: [
    {
      toolSpec: {
        name: 'Read',
        description: 'Reads a file',
        inputSchema: {
          json: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
        },
      },
    },
  ],
};
const question: Message = { role: 'user', content: [{ text: 'Read note.txt' }] };

let model: ScriptedUpstream;
let bedrock: BedrockUpstream;
let client: BedrockRuntimeClient;

beforeAll(async () => {
  model = await startScriptedUpstream(scenario);
  bedrock = await startBedrockUpstream({ forwardTo: model.origin });
  client = new BedrockRuntimeClient({
    region: BEDROCK_FAKE_REGION,
    endpoint: bedrock.origin,
    credentials: BEDROCK_TEST_CREDENTIALS,
    maxAttempts: 1,
    // The client's default handler speaks HTTP/2 (for bidirectional streams); the fake is HTTP/1.1.
    requestHandler: new NodeHttpHandler(),
  });
});
afterAll(async () => {
  client?.destroy();
  await bedrock?.close();
  await model?.close();
});

/** The assistant message a ConverseStream answer streams, with its stop reason and usage. */
async function collectStream(events: AsyncIterable<ConverseStreamOutput> | undefined) {
  const blocks: ContentBlock[] = [];
  let text = '';
  let toolInput = '';
  let tool: { toolUseId?: string; name?: string } | undefined;
  let reasoning = '';
  let signature = '';
  let stopReason: string | undefined;
  let usage: unknown;
  for await (const event of events ?? []) {
    if (event.contentBlockStart?.start?.toolUse) tool = event.contentBlockStart.start.toolUse;
    const delta = event.contentBlockDelta?.delta;
    text += delta?.text ?? '';
    toolInput += delta?.toolUse?.input ?? '';
    reasoning += delta?.reasoningContent?.text ?? '';
    signature += delta?.reasoningContent?.signature ?? '';
    if (event.messageStop) stopReason = event.messageStop.stopReason;
    if (event.metadata) usage = event.metadata.usage;
  }
  if (reasoning !== '') blocks.push({ reasoningContent: { reasoningText: { text: reasoning, signature } } });
  if (text !== '') blocks.push({ text });
  if (tool)
    blocks.push({
      toolUse: { toolUseId: tool.toolUseId, name: tool.name, input: JSON.parse(toolInput) as Record<string, never> },
    });
  return { message: { role: 'assistant', content: blocks } as Message, stopReason, usage, reasoning, signature };
}

function toolResultFor(message: Message | undefined, text: string): Message {
  const toolUseId = message?.content?.find((block) => block.toolUse)?.toolUse?.toolUseId;
  return { role: 'user', content: [{ toolResult: { toolUseId, content: [{ text }] } }] };
}

describe('scripted model through the Bedrock fake, read by @aws-sdk/client-bedrock-runtime', () => {
  it('Converse: a tool call, then the final text once the tool result is in', async () => {
    const first = await client.send(new ConverseCommand({ modelId: CLAUDE, messages: [question], toolConfig }));
    expect(first.stopReason).toBe('tool_use');
    expect(first.usage).toEqual({ inputTokens: 21, outputTokens: 7, totalTokens: 28 });
    expect(first.metrics?.latencyMs).toBeGreaterThan(0);
    const call = first.output?.message?.content?.[0]?.toolUse;
    expect(call).toMatchObject({ name: 'Read', input: { file_path: scenario.notePath } });
    expect(call?.toolUseId).toMatch(/^tooluse_/);

    const second = await client.send(
      new ConverseCommand({
        modelId: CLAUDE,
        messages: [question, first.output!.message!, toolResultFor(first.output?.message, 'secret-7')],
        toolConfig,
      }),
    );
    expect(second.stopReason).toBe('end_turn');
    expect(second.output?.message).toEqual({ role: 'assistant', content: [{ text: 'All done. MARKER-CONVERSE' }] });
    const lastExchange = model.exchanges.at(-1);
    expect(lastExchange?.format).toBe('bedrock-converse');
    expect(lastExchange?.summary).toMatchObject({ model: CLAUDE, stream: false, toolResults: ['secret-7'] });
  });

  it('ConverseStream with Claude thinking: signed reasoning, a streamed tool call, and the replay it requires', async () => {
    const thinking = { thinking: { type: 'enabled', budget_tokens: 1024 } };
    const first = await collectStream(
      (
        await client.send(
          new ConverseStreamCommand({
            modelId: CLAUDE,
            messages: [question],
            toolConfig,
            additionalModelRequestFields: thinking,
          }),
        )
      ).stream,
    );
    expect(first.stopReason).toBe('tool_use');
    expect(first.usage).toEqual({ inputTokens: 21, outputTokens: 7, totalTokens: 28 });
    expect(first.reasoning).not.toBe('');
    expect(first.signature).not.toBe('');
    expect(first.message.content?.at(-1)?.toolUse).toMatchObject({
      name: 'Read',
      input: { file_path: scenario.notePath },
    });

    const replay = (assistant: Message) =>
      new ConverseStreamCommand({
        modelId: CLAUDE,
        messages: [question, assistant, toolResultFor(assistant, 'secret-8')],
        toolConfig,
        additionalModelRequestFields: thinking,
      });
    const answer = await collectStream((await client.send(replay(first.message))).stream);
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.message.content?.at(-1)).toEqual({ text: 'All done. MARKER-CONVERSE' });
    expect(model.exchanges.at(-1)?.summary).toMatchObject({ stream: true, toolResults: ['secret-8'] });

    const withoutReasoning = { ...first.message, content: first.message.content?.filter((b) => !b.reasoningContent) };
    await expect(client.send(replay(withoutReasoning))).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/must start with a thinking block/) as unknown,
    });
    const forged: Message = {
      ...first.message,
      content: [
        { reasoningContent: { reasoningText: { text: first.reasoning, signature: 'forged' } } },
        ...(withoutReasoning.content ?? []),
      ],
    };
    await expect(client.send(replay(forged))).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/Invalid `signature`/) as unknown,
    });
    const edited: Message = {
      ...first.message,
      content: [
        { reasoningContent: { reasoningText: { text: `${first.reasoning} (edited)`, signature: first.signature } } },
        ...(withoutReasoning.content ?? []),
      ],
    };
    await expect(client.send(replay(edited))).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('the Bedrock fake refuses, before the model, a blank text block and a message without content', async () => {
    const before = model.exchanges.length;
    const blank = new ConverseCommand({
      modelId: CLAUDE,
      messages: [{ role: 'user', content: [{ text: 'Hi' }, { text: ' \n' }] }],
    });
    await expect(client.send(blank)).rejects.toMatchObject({
      name: 'ValidationException',
      message:
        'The text field in the ContentBlock object at messages.0.content.1 is blank. Add text to the text field, and try again.',
    });
    const empty = new ConverseCommand({ modelId: CLAUDE, messages: [question, { role: 'assistant', content: [] }] });
    await expect(client.send(empty)).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/^The content field in the Message object at messages\.1 is empty/) as unknown,
    });
    expect(model.exchanges.length).toBe(before);
  });

  it('a non-Claude model answers without reasoning, streamed as ConverseStream events', async () => {
    const answer = await collectStream(
      (
        await client.send(
          new ConverseStreamCommand({
            modelId: 'openai.gpt-oss-120b-1:0',
            messages: [{ role: 'user', content: [{ text: 'Say hello' }] }],
          }),
        )
      ).stream,
    );
    expect(answer).toMatchObject({
      stopReason: 'end_turn',
      reasoning: '',
      message: { content: [{ text: 'All done. MARKER-CONVERSE' }] },
    });
  });
});

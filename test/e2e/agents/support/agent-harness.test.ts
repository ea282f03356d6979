/**
 * The agent matrix's own parts must be able to fail: the checker flags a dropped tool, a non-2xx
 * answer, a missing tool result and a missing marker; the request reader sees Codex's
 * `additional_tools` and namespaces; the scripted model calls a tool only when it should.
 */
import { describe, expect, it } from 'vitest';
import { checkAgentRun } from './check-agent-run.ts';
import { planScriptedReply, sampleJsonFor, type AgentScenario } from './plan-scripted-reply.ts';
import { IssuedSignatures, replayRuleViolation } from './provider-replay-rules.ts';
import { generationFormatOf, readWireRequest } from './read-wire-request.ts';
import type { AgentRunRecord } from './run-agent-case.ts';
import type { UpstreamExchange } from './scripted-upstream.ts';

const scenario: AgentScenario = { mode: 'tool', marker: 'MARKER-1', notePath: '/tmp/ws/note.txt' };

function anthropicBody(tools: string[], toolResult?: string): Record<string, unknown> {
  const messages: unknown[] = [{ role: 'user', content: 'read it' }];
  if (toolResult !== undefined)
    messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: toolResult }] },
    );
  return {
    model: 'claude-opus-5-5',
    stream: true,
    messages,
    tools: tools.map((name) => ({
      name,
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    })),
  };
}

function upstreamOf(body: Record<string, unknown>): UpstreamExchange {
  const summary = readWireRequest('anthropic-messages', '/v1/messages', body);
  return {
    method: 'POST',
    path: '/v1/messages',
    format: 'anthropic-messages',
    body,
    summary,
    reply: planScriptedReply(summary, scenario),
    status: 200,
  };
}

function healthyRun(): AgentRunRecord {
  const first = anthropicBody(['Read', 'Bash']);
  const second = anthropicBody(['Read', 'Bash'], 'secret-42');
  return {
    agentCase: { agent: 'claude-code', protocol: 'anthropic-messages', model: 'default', mode: 'tool' },
    scenario,
    noteSecret: 'secret-42',
    exitCode: 0,
    timedOut: false,
    stdout: 'All done. MARKER-1',
    stderr: '',
    clientExchanges: [
      { method: 'POST', url: '/v1/messages?beta=true', body: first, status: 200, upstreamStart: 0, upstreamEnd: 1 },
      { method: 'POST', url: '/v1/messages?beta=true', body: second, status: 200, upstreamStart: 1, upstreamEnd: 2 },
    ],
    upstreamExchanges: [upstreamOf(first), upstreamOf(second)],
    outcomes: [],
    durationMs: 1,
  };
}

describe('checkAgentRun', () => {
  it('passes a healthy tool round trip', () => {
    expect(checkAgentRun(healthyRun())).toEqual([]);
  });

  it('flags a tool the upstream never saw', () => {
    const run = healthyRun();
    const trimmed = anthropicBody(['Read']);
    const upstreamExchanges = [upstreamOf(trimmed), ...run.upstreamExchanges.slice(1)];
    expect(checkAgentRun({ ...run, upstreamExchanges }).join('\n')).toMatch(/never reached the upstream: Bash/);
  });

  it('flags a non-2xx answer, a missing marker and a missing tool result', () => {
    const run = healthyRun();
    const [first] = run.clientExchanges;
    const problems = checkAgentRun({
      ...run,
      stdout: 'nothing',
      clientExchanges: [
        first!,
        {
          method: 'GET',
          url: '/v1/models',
          body: undefined,
          status: 404,
          errorBody: 'no',
          upstreamStart: 2,
          upstreamEnd: 2,
        },
      ],
      upstreamExchanges: run.upstreamExchanges.slice(0, 1),
    }).join('\n');
    expect(problems).toMatch(/lacks marker/);
    expect(problems).toMatch(/GET \/v1\/models answered 404/);
    expect(problems).toMatch(/no follow-up request carrying a tool result/);
  });
});

describe('scripted model', () => {
  it('reads Codex tools from additional_tools items and namespaces', () => {
    const body = {
      model: 'gpt-6.1-sol',
      input: [
        {
          type: 'additional_tools',
          role: 'developer',
          tools: [
            { type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec' }] },
            { type: 'namespace', name: 'clock', tools: [{ type: 'function', name: 'sleep', parameters: {} }] },
          ],
        },
      ],
      tools: [{ type: 'web_search' }],
    };
    expect(readWireRequest('openai-responses', '/v1/responses', body).tools.map((tool) => tool.name)).toEqual([
      'web_search',
      'exec',
      'clock__sleep',
    ]);
  });

  it('calls a harmless tool first, then answers with the marker once a result is present', () => {
    const call = planScriptedReply(
      readWireRequest('anthropic-messages', '/v1/messages', anthropicBody(['Write', 'Read'])),
      scenario,
    );
    expect(call).toEqual({
      kind: 'tool-call',
      toolName: 'Read',
      toolKind: 'function',
      input: JSON.stringify({ file_path: '/tmp/ws/note.txt' }),
    });
    const answer = planScriptedReply(
      readWireRequest('anthropic-messages', '/v1/messages', anthropicBody(['Read'], 'x')),
      scenario,
    );
    expect(answer).toEqual({ kind: 'text', text: 'All done. MARKER-1' });
  });

  it('reads a Converse request: model and streaming from the path, toolSpec tools, toolResult texts, the output schema', () => {
    const body = {
      messages: [
        { role: 'user', content: [{ text: 'read it' }] },
        { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'Read', input: {} } }] },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'secret-1' }, { json: { lines: 2 } }] } },
          ],
        },
      ],
      toolConfig: {
        tools: [{ toolSpec: { name: 'Read', inputSchema: { json: { type: 'object', required: ['file_path'] } } } }],
      },
      outputConfig: {
        textFormat: {
          type: 'json_schema',
          structure: { jsonSchema: { name: 'answer', schema: JSON.stringify({ type: 'object', required: ['ok'] }) } },
        },
      },
    };
    const path = '/model/us.anthropic.claude-opus-5-5-v1%3A0/converse-stream';
    expect(readWireRequest('bedrock-converse', path, body)).toEqual({
      model: 'us.anthropic.claude-opus-5-5-v1:0',
      stream: true,
      tools: [{ name: 'Read', kind: 'function', parameters: { type: 'object', required: ['file_path'] } }],
      toolResults: ['secret-1{"lines":2}'],
      jsonSchema: { type: 'object', required: ['ok'] },
    });
    expect(generationFormatOf(path)).toBe('bedrock-converse');
    expect(readWireRequest('bedrock-converse', '/model/m/converse', { messages: [] }).stream).toBe(false);
  });

  it('answers structured-output requests with JSON that meets the schema', () => {
    const schema = {
      type: 'object',
      properties: { score: { type: 'integer', minimum: 1 }, choice: { type: 'string', enum: ['flash', 'pro'] } },
      required: ['score', 'choice'],
    };
    expect(sampleJsonFor(schema)).toEqual({ score: 1, choice: 'flash' });
  });
});

describe('provider replay rules', () => {
  it('refuses an Anthropic thinking request whose last tool-using assistant turn lost its thinking block', () => {
    const signatures = new IssuedSignatures();
    const signature = signatures.mint();
    const toolUse = { type: 'tool_use', id: 't1', name: 'Read', input: {} };
    const body = (assistant: unknown[]) => ({
      thinking: { type: 'adaptive' },
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: assistant },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
      ],
    });
    expect(replayRuleViolation('anthropic-messages', body([toolUse]), signatures)).toMatch(
      /must start with a thinking block/,
    );
    expect(
      replayRuleViolation(
        'anthropic-messages',
        body([{ type: 'thinking', thinking: 'p', signature: 'forged' }, toolUse]),
        signatures,
      ),
    ).toMatch(/Invalid `signature`/);
    expect(
      replayRuleViolation(
        'anthropic-messages',
        body([{ type: 'thinking', thinking: 'p', signature }, toolUse]),
        signatures,
      ),
    ).toBeUndefined();
  });

  it('refuses Converse tool blocks without toolConfig and a toolResult without its toolUse in the previous assistant turn', () => {
    const signatures = new IssuedSignatures();
    const messages = (useId: string) => [
      { role: 'user', content: [{ text: 'go' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: useId, name: 'Read', input: {} } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'x' }] } }] },
    ];
    const toolConfig = { tools: [{ toolSpec: { name: 'Read', inputSchema: { json: { type: 'object' } } } }] };
    expect(replayRuleViolation('bedrock-converse', { messages: messages('tooluse_1') }, signatures)).toMatch(
      /toolConfig field must be defined/,
    );
    expect(
      replayRuleViolation('bedrock-converse', { messages: messages('tooluse_2'), toolConfig }, signatures),
    ).toMatch(/toolResult tooluse_1 has no toolUse/);
    expect(
      replayRuleViolation('bedrock-converse', { messages: messages('tooluse_1'), toolConfig }, signatures),
    ).toBeUndefined();
  });

  it('refuses a Gemini function call of the current turn without its thought signature, accepting the documented dummy', () => {
    const signatures = new IssuedSignatures();
    const body = (thoughtSignature?: string) => ({
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'read_file', args: {} }, ...(thoughtSignature ? { thoughtSignature } : {}) }],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: {} } }] },
      ],
    });
    expect(replayRuleViolation('gemini', body(), signatures)).toMatch(/missing a thought_signature/);
    expect(replayRuleViolation('gemini', body(signatures.mint()), signatures)).toBeUndefined();
    expect(replayRuleViolation('gemini', body('skip_thought_signature_validator'), signatures)).toBeUndefined();
  });
});

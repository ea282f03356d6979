/**
 * Codex's tools (an `additional_tools` input item with namespace, custom and function tools, plus
 * top-level custom/namespace tools) reach every translated upstream body under their canonical
 * names, and replayed custom tool calls round-trip (https://platform.openai.com/docs/guides/function-calling#custom-tools).
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import { openaiResponsesCodec } from '../../../../gateway/inbound/openai-responses/openai-responses-codec.ts';
import { qualifiedToolName } from '../../../../gateway/inbound/openai-responses/responses-tool-names.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { geminiAdapter } from '../../../../gateway/upstream/gemini/gemini-adapter.ts';
import { openaiChatAdapter } from '../../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';
import type { UpstreamTarget } from '../../../../gateway/upstream/upstream-adapter.ts';
import { codexBody, EXEC_GRAMMAR, SPAWN_PARAMETERS, WAIT_PARAMETERS } from './codex-tools-fixture.ts';

function decodeOk(body: unknown): CanonicalRequest {
  const result = openaiResponsesCodec.decodeRequest(body, {});
  if (!result.ok) throw new Error(`expected ok, got ${result.message}`);
  return result.value;
}

const target = (provider: 'deepseek' | 'anthropic' | 'gemini', baseUrl: string): UpstreamTarget => ({
  baseUrl,
  apiKey: 'k',
  upstreamModel: 'up',
  provider: getProviderPreset(provider),
});

function upstreamBodies(request: CanonicalRequest): Record<string, any> {
  return {
    chat: JSON.parse(
      openaiChatAdapter.buildRequest(request, target('deepseek', 'https://api.deepseek.com/v1')).request.body,
    ),
    anthropic: JSON.parse(
      anthropicMessagesAdapter.buildRequest(request, target('anthropic', 'https://api.anthropic.com')).request.body,
    ),
    gemini: JSON.parse(
      geminiAdapter.buildRequest(request, target('gemini', 'https://generativelanguage.googleapis.com')).request.body,
    ),
  };
}

const TOP_LEVEL_TOOLS = [
  { type: 'custom', name: 'apply_patch', description: 'Applies a patch.', format: { type: 'text' } },
  {
    type: 'namespace',
    name: 'mcp',
    description: 'MCP tools.',
    tools: [{ type: 'custom', name: 'note', format: { type: 'grammar', syntax: 'regex', definition: '[a-z]+' } }],
  },
];
const EXPECTED_NAMES = ['apply_patch', 'mcp__note', 'exec', 'wait', 'collaboration__spawn_agent'];

describe('Codex tools on translated paths', () => {
  it('decodes every offered tool, top-level first, additional_tools after, the item itself not a message', () => {
    const request = decodeOk(codexBody({ tools: TOP_LEVEL_TOOLS }));
    expect(request.tools?.map((t) => t.name)).toEqual(EXPECTED_NAMES);
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'List files.' }] }]);
    expect(request.system).toBe('You are Codex.');
    const exec = request.tools?.find((t) => t.name === 'exec');
    expect(exec?.parameters).toMatchObject({
      type: 'object',
      properties: { input: { type: 'string' } },
      required: ['input'],
    });
    expect(exec?.description).toContain('Runs a shell command.');
    expect(exec?.description).toContain('lark');
    expect(exec?.description).toContain(EXEC_GRAMMAR);
    expect(request.tools?.find((t) => t.name === 'apply_patch')?.description).toBe('Applies a patch.');
    expect(request.tools?.find((t) => t.name === 'wait')?.parameters).toEqual(WAIT_PARAMETERS);
    expect(request.tools?.find((t) => t.name === 'collaboration__spawn_agent')?.parameters).toEqual(SPAWN_PARAMETERS);
  });

  it('offers every tool to Chat, Anthropic and Gemini upstreams under the canonical names', () => {
    const bodies = upstreamBodies(decodeOk(codexBody({ tools: TOP_LEVEL_TOOLS })));
    expect(bodies.chat.tools.map((t: any) => t.function.name)).toEqual(EXPECTED_NAMES);
    expect(bodies.chat.tools[2].function.parameters.required).toEqual(['input']);
    expect(bodies.anthropic.tools.map((t: any) => t.name)).toEqual(EXPECTED_NAMES);
    expect(bodies.anthropic.tools[2].description).toContain(EXEC_GRAMMAR);
    expect(bodies.gemini.tools.flatMap((t: any) => t.functionDeclarations.map((d: any) => d.name))).toEqual(
      EXPECTED_NAMES,
    );
  });

  it('replays custom_tool_call / custom_tool_call_output and namespaced function_call history', () => {
    const history = [
      {
        type: 'custom_tool_call',
        id: 'ctc_1',
        call_id: 'call_a',
        name: 'exec',
        input: 'ls -la\n',
        status: 'completed',
      },
      { type: 'custom_tool_call_output', call_id: 'call_a', output: 'README.md' },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_b',
        namespace: 'collaboration',
        name: 'spawn_agent',
        arguments: '{"task":"t"}',
        status: 'completed',
      },
      { type: 'function_call_output', call_id: 'call_b', output: 'started' },
    ];
    const body = codexBody();
    const request = decodeOk({ ...body, input: [...(body.input as unknown[]), ...history] });
    expect(request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 'call_a', name: 'exec', arguments: JSON.stringify({ input: 'ls -la\n' }) }],
      },
      {
        role: 'user',
        content: [{ type: 'tool-result', toolCallId: 'call_a', toolName: 'exec', content: 'README.md' }],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 'call_b', name: 'collaboration__spawn_agent', arguments: '{"task":"t"}' }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool-result', toolCallId: 'call_b', toolName: 'collaboration__spawn_agent', content: 'started' },
        ],
      },
    ]);
    const anthropic = upstreamBodies(request).anthropic;
    expect(anthropic.messages[1].content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'exec', input: { input: 'ls -la\n' } },
    ]);
  });

  it('qualifies, escapes and truncates names deterministically to ^[a-zA-Z0-9_-]{1,64}$', () => {
    expect(qualifiedToolName('functions', 'exec')).toBe('exec');
    expect(qualifiedToolName(undefined, 'exec')).toBe('exec');
    expect(qualifiedToolName('collaboration', 'spawn_agent')).toBe('collaboration__spawn_agent');
    const escaped = qualifiedToolName('my.server', 'read file');
    expect(escaped).toMatch(/^my_server__read_file_[0-9a-f]{8}$/);
    expect(qualifiedToolName('my.server', 'read file')).toBe(escaped);
    expect(qualifiedToolName('my_server', 'read_file')).not.toBe(escaped);
    const long = qualifiedToolName('n'.repeat(40), 'x'.repeat(40));
    expect(long).toMatch(/^[a-zA-Z0-9_-]{64}$/);
    expect(qualifiedToolName('n'.repeat(40), 'x'.repeat(41))).not.toBe(long);
  });

  it('refuses duplicate canonical names, naming the path; names a built-in tool inside a namespace as a part it cannot carry', () => {
    const dup = codexBody({ tools: [{ type: 'function', name: 'exec' }] });
    expect(openaiResponsesCodec.decodeRequest(dup, {})).toMatchObject({
      ok: false,
      param: 'input.0.tools.0.tools.0.name',
    });
    const inner = codexBody({
      tools: [{ type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'file_search' }] }],
    });
    expect(openaiResponsesCodec.decodeRequest(inner, {})).toMatchObject({
      ok: true,
      uncarried: [
        {
          path: 'tools.0.tools.0',
          reason: "built-in tool type 'file_search' runs inside OpenAI's platform and has no equivalent elsewhere",
        },
      ],
    });
  });
});

/**
 * CanonicalRequest → Amazon Bedrock Converse / ConverseStream HTTP call
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html,
 * https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html).
 * The call carries no credential: the channel's credentials step signs it (SigV4) or adds its
 * Bedrock API key after it is built (gateway/upstream/cloud-credentials/).
 */
import type { CanonicalRequest, ToolChoice } from '../../canonical/request.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';
import type { BuiltUpstreamRequest, UpstreamCallTarget, UpstreamTarget } from '../upstream-adapter.ts';
import { bedrockModelPathSegment } from '../shared/bedrock-model-path.ts';
import { noteDroppedAnthropicBetas, selectVendorExtensions } from '../vendor-extensions.ts';
import { encodeConverseMessages, type ConverseRequestMessage } from './encode-converse-messages.ts';
import { converseModelFamily, type ConverseModelFamily } from './converse-model-family.ts';
import { planConverseReasoning } from './plan-converse-reasoning.ts';

/** Output room (tokens) beside a Claude thinking budget when neither the client nor the preset set a cap. */
const FALLBACK_MAX_TOKENS = 4096;

/** Body keys the gateway sets itself; no extension may set them (and Converse takes no other top-level field). */
const RESERVED_KEYS: ReadonlySet<string> = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'additionalModelRequestFields',
  'outputConfig',
]);

/** `POST {baseUrl}/model/{modelId}/converse` (or `/converse-stream`), JSON, no credential header. */
export function converseCallTarget(request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget {
  const operation = request.stream ? 'converse-stream' : 'converse';
  return {
    url: `${target.baseUrl}/model/${bedrockModelPathSegment(target.upstreamModel)}/${operation}`,
    headers: { 'content-type': 'application/json' },
  };
}

/**
 * `toolConfig` (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html):
 * each tool as `toolSpec {name, description, inputSchema: {json}}` (with `type: "object"` added
 * when the schema lacks a type); choice auto → `{auto: {}}`, required → `{any: {}}`, tool →
 * `{tool: {name}}`. Converse has no `none` choice: without tool blocks in the history the tools
 * are left out (the model cannot call what it is not shown); with them (Converse then requires a
 * toolConfig) they are sent without a choice and the drop is noted. `parallelToolCalls: false`
 * has no Converse field and is dropped with a note.
 */
function encodeToolConfig(
  request: CanonicalRequest,
  messages: ReadonlyArray<ConverseRequestMessage>,
  notes: TranslationNotes,
): Record<string, unknown> | undefined {
  if (!request.tools || request.tools.length === 0) return undefined;
  const choice: ToolChoice | undefined = request.toolChoice;
  const historyHasTools = messages.some((m) => m.content.some((b) => 'toolUse' in b || 'toolResult' in b));
  if (choice?.type === 'none' && !historyHasTools) return undefined;
  const tools = request.tools.map((tool) => {
    const json = typeof tool.parameters.type === 'string' ? tool.parameters : { type: 'object', ...tool.parameters };
    return {
      toolSpec: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: { json },
      },
    };
  });
  if (request.parallelToolCalls === false)
    notes.drop('parallel_tool_calls: Amazon Bedrock Converse has no switch for parallel tool calls; dropped');
  switch (choice?.type) {
    case undefined:
    case 'auto':
      return choice ? { tools, toolChoice: { auto: {} } } : { tools };
    case 'required':
      return { tools, toolChoice: { any: {} } };
    case 'tool':
      return { tools, toolChoice: { tool: { name: choice.name } } };
    case 'none':
      notes.drop(
        'tool_choice none: Amazon Bedrock Converse has no "none" choice and needs the tools while the history holds tool calls; sent without a choice',
      );
      return { tools };
  }
}

/**
 * `top_k` by family: Claude reads `top_k` and Nova `inferenceConfig.topK` from
 * `additionalModelRequestFields`
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html, "additionalModelRequestFields");
 * other families: dropped with a note.
 */
function topKFields(
  topK: number | undefined,
  family: ConverseModelFamily,
  notes: TranslationNotes,
): Record<string, unknown> {
  if (topK === undefined) return {};
  if (family === 'anthropic') return { top_k: topK };
  if (family === 'nova') return { inferenceConfig: { topK } };
  notes.drop('top_k: not a Converse field for this model on Amazon Bedrock; dropped');
  return {};
}

/**
 * Claude's extended-thinking restrictions on a built body (mutated in place), as on Anthropic's
 * API (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html):
 * a forced tool choice or a continued tool turn without its thinking block leaves thinking off;
 * otherwise `temperature`, `topP` and `top_k` that thinking does not allow are dropped.
 */
function reconcileClaudeThinking(body: Record<string, unknown>, notes: TranslationNotes): void {
  const fields = body.additionalModelRequestFields as Record<string, unknown> | undefined;
  if (fields?.thinking === undefined) return;
  const toolChoice = (body.toolConfig as { toolChoice?: Record<string, unknown> } | undefined)?.toolChoice;
  const messages = body.messages as ConverseRequestMessage[];
  const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant');
  const lacksThinking =
    lastAssistant !== undefined &&
    lastAssistant.content.some((b) => 'toolUse' in b) &&
    !('reasoningContent' in (lastAssistant.content[0] ?? {}));
  if (lacksThinking || (toolChoice !== undefined && !('auto' in toolChoice))) {
    delete fields.thinking;
    notes.drop(
      lacksThinking
        ? 'reasoning: the tool-use turn being continued carries no thinking block, which Claude requires while thinking is on; thinking not enabled for this request'
        : 'reasoning: thinking cannot be combined with a forced tool choice on Claude; thinking not enabled',
    );
    if (Object.keys(fields).length === 0) delete body.additionalModelRequestFields;
    return;
  }
  const config = body.inferenceConfig as Record<string, unknown> | undefined;
  if (config?.temperature !== undefined && config.temperature !== 1) {
    delete config.temperature;
    notes.drop('temperature: must be 1 while thinking is enabled; dropped');
  }
  if (typeof config?.topP === 'number' && config.topP < 0.95) {
    delete config.topP;
    notes.drop('top_p: must be at least 0.95 while thinking is enabled; dropped');
  }
  if (fields.top_k !== undefined) {
    delete fields.top_k;
    notes.drop('top_k: not allowed while thinking is enabled; dropped');
  }
}

/** `outputConfig.textFormat` for a JSON-schema answer (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_OutputConfig.html). */
function encodeOutputConfig(request: CanonicalRequest, notes: TranslationNotes): Record<string, unknown> | undefined {
  const format = request.responseFormat;
  if (format?.type === 'json-object')
    notes.refuse(
      'response_format',
      'JSON mode without a schema is not supported by Amazon Bedrock Converse (give a json_schema)',
    );
  if (format?.type !== 'json-schema') return undefined;
  const jsonSchema = {
    schema: JSON.stringify(format.schema),
    name: format.name,
    ...(format.description === undefined ? {} : { description: format.description }),
  };
  return { textFormat: { type: 'json_schema', structure: { jsonSchema } } };
}

/** A Converse cache checkpoint (https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html). */
const CACHE_POINT = Object.freeze({ cachePoint: Object.freeze({ type: 'default' }) });

/**
 * Where the client's prompt-cache breakpoints (CanonicalRequest.promptCacheMarks, from Anthropic
 * `cache_control`) become Converse `cachePoint` blocks. Bedrock caches prompts for Claude
 * (system, messages and tools) and Amazon Nova (system and messages)
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html, "Supported models,
 * regions, and limits"); for other models, and for Nova's tools, the marks are dropped with a note:
 * without them the request is answered the same, only without the cache discount. A cache point
 * has Bedrock's default lifetime: a one-hour mark is cached for that default.
 */
function cachePointsFor(
  request: CanonicalRequest,
  family: ConverseModelFamily,
  notes: TranslationNotes,
): { system: boolean; tools: boolean; messages: ReadonlySet<number> } {
  const marks = request.promptCacheMarks;
  if (!marks) return { system: false, tools: false, messages: new Set() };
  if (family === 'other') {
    notes.drop('cache_control: this Amazon Bedrock model has no prompt caching; cache points dropped');
    return { system: false, tools: false, messages: new Set() };
  }
  if ([marks.system, marks.tools, ...marks.messages.map((mark) => mark.ttl)].includes('1h'))
    notes.drop('cache_control ttl 1h: a Bedrock cache point has one lifetime (5 minutes); cached for that');
  const tools = marks.tools !== undefined && family === 'anthropic' && (request.tools?.length ?? 0) > 0;
  if (marks.tools !== undefined && family === 'nova')
    notes.drop('cache_control on tools: Amazon Nova caches system and messages only on Bedrock; dropped');
  return {
    system: marks.system !== undefined && request.system !== undefined && request.system !== '',
    tools,
    messages: new Set(marks.messages.map((mark) => mark.index)),
  };
}

/**
 * Builds the JSON body: `system` (one text block, then a cache point when the client marked one:
 * cachePointsFor), `messages`, `inferenceConfig` (maxTokens,
 * temperature, topP, stopSequences), `toolConfig`, `additionalModelRequestFields` (reasoning and
 * `top_k` by family) and `outputConfig`. Dropped with a note: `user`, `metadata`, the
 * `anthropic-beta` header; extensions are dropped or refused by vendor-extensions.ts (no client
 * speaks Converse, so no client field is a Converse field). Returns the body and its notes.
 */
export function buildConverseBody(
  request: CanonicalRequest,
  target: UpstreamTarget,
): { body: Record<string, unknown>; notes: TranslationNotes } {
  const notes = new TranslationNotes();
  const modelId = target.upstreamModel;
  const family = converseModelFamily(modelId);
  const plan = planConverseReasoning(
    request.reasoning,
    modelId,
    family,
    request.maxOutputTokens,
    target.provider.quirks.defaultMaxTokens ?? FALLBACK_MAX_TOKENS,
    notes,
  );
  const cachePoints = cachePointsFor(request, family, notes);
  const messages = encodeConverseMessages(request.messages, family, notes, cachePoints.messages);
  const body: Record<string, unknown> = {};
  if (request.system !== undefined && request.system !== '')
    body.system = cachePoints.system ? [{ text: request.system }, CACHE_POINT] : [{ text: request.system }];
  body.messages = messages;
  const inference: Record<string, unknown> = {};
  if (plan.maxTokens !== undefined) inference.maxTokens = plan.maxTokens;
  if (request.temperature !== undefined) inference.temperature = request.temperature;
  if (request.topP !== undefined) inference.topP = request.topP;
  if (request.stopSequences && request.stopSequences.length > 0) inference.stopSequences = [...request.stopSequences];
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  const toolConfig = encodeToolConfig(request, messages, notes);
  if (toolConfig)
    body.toolConfig = cachePoints.tools
      ? { ...toolConfig, tools: [...(toolConfig.tools as unknown[]), CACHE_POINT] }
      : toolConfig;
  const additional = { ...plan.additionalFields, ...topKFields(request.topK, family, notes) };
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;
  const outputConfig = encodeOutputConfig(request, notes);
  if (outputConfig) body.outputConfig = outputConfig;
  if (plan.claudeThinking) reconcileClaudeThinking(body, notes);
  if (request.user !== undefined) notes.drop('user: Amazon Bedrock Converse has no end-user field; dropped');
  if (request.metadata && Object.keys(request.metadata).length > 0)
    notes.drop('metadata: Amazon Bedrock Converse request metadata only tags invocation logs; dropped');
  noteDroppedAnthropicBetas(request, notes);
  const extensionTarget = {
    protocol: 'bedrock-converse' as const,
    provider: target.provider,
    protocolFields: new Set<string>(),
    reservedKeys: RESERVED_KEYS,
  };
  for (const [key, value] of selectVendorExtensions(request, extensionTarget, notes)) body[key] = value;
  return { body, notes };
}

/** The full Converse (or ConverseStream) call with the notes of the translation. */
export function buildConverseRequest(request: CanonicalRequest, target: UpstreamTarget): BuiltUpstreamRequest {
  const { body, notes } = buildConverseBody(request, target);
  return { request: { ...converseCallTarget(request, target), body: JSON.stringify(body) }, notes };
}

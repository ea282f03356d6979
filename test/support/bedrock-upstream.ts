/**
 * A fake Amazon Bedrock Runtime for tests, on a free loopback port: Converse, ConverseStream,
 * InvokeModel and InvokeModelWithResponseStream
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html)
 * replaying recorded answers byte for byte: `test/fixtures/upstream/bedrock-converse/<scenario>.(json|eventstream)`
 * for Converse, `anthropic-messages/<scenario>.json` and `bedrock-invoke/<scenario>.eventstream`
 * for Claude through InvokeModel (the event streams are built from the documented events by
 * test/fixtures/upstream/bedrock-converse/build-event-streams.ts).
 *
 * The scenario is the model id in the URL after its last `--` (so `us.anthropic.claude-…--text`
 * is a Claude id that answers `text`), or the whole id. `fail-<status>` answers that status with
 * a Bedrock error; `hang` never answers.
 *
 * Like Bedrock it refuses, before any scenario, with the restJson1 error shape (status,
 * `x-amzn-ErrorType: <Name>:http://internal.amazon.com/coral/...`, `{"message": …}`,
 * https://smithy.io/2.0/aws/protocols/aws-restjson1-protocol.html#operation-error-serialization):
 * - a call without valid credentials, 403: a SigV4 signature is recomputed with the known test
 *   secret of its access key id (service `bedrock`, the fake's region) — an unknown key id is
 *   `UnrecognizedClientException`, a signature that does not match `InvalidSignatureException`
 *   (https://docs.aws.amazon.com/IAM/latest/UserGuide/signature-v4-troubleshooting.html); a bearer
 *   token must be the known Bedrock API key
 *   (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html);
 * - a Converse body with a field the API does not define, or tool blocks without `toolConfig`, or
 *   a tool result whose tool use is not in the previous assistant turn: 400 `ValidationException`;
 *   so is a message without content blocks ("The content field in the Message object at
 *   messages.N is empty. Add a ContentBlock object to the content field and try again.") and a
 *   `text` block that is empty or only whitespace ("The text field in the ContentBlock object at
 *   messages.N.content.M is blank. Add text to the text field, and try again."), in Bedrock's
 *   words as its Converse answers them;
 * - an InvokeModel Claude body with a key Bedrock does not take or without `anthropic_version`:
 *   400 `ValidationException` "Malformed input request: #: extraneous key [k] is not permitted" /
 *   "required key [anthropic_version] not found" (Bedrock's JSON-schema check of the model body;
 *   the value itself is not checked, as @anthropic-ai/bedrock-sdk sends its client's
 *   `anthropic-version` there).
 * Message texts other than those quoted are the fake's own; the shape is Bedrock's.
 *
 * Embedding models through InvokeModel, with deterministic vectors (`expectedVector` of
 * test/support/embedding-upstream.ts; Titan's `normalize` scales them to unit length) and the input
 * tokens (whitespace-separated words, `fakeTokenCount`) in the body where the model family reports
 * them and in the `x-amzn-bedrock-input-token-count` header
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html, Response
 * Syntax):
 * - Titan Text Embeddings (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html):
 *   `amazon.titan-embed-text-v2:0` takes `{inputText, dimensions?, normalize?, embeddingTypes?}`
 *   (dimensions 256, 512 or 1024, the default; normalize defaults to true; embeddingTypes of
 *   `float`, `binary`) and answers `{embedding, embeddingsByType, inputTextTokenCount}`
 *   (`embeddingsByType` always, with `float` at least); `amazon.titan-embed-text-v1` takes only
 *   `inputText` and answers `{embedding, inputTextTokenCount}` (1536 values).
 * - Cohere Embed (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html,
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed-v3.html,
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed-v4.html):
 *   `cohere.embed-english-v3` and `cohere.embed-multilingual-v3` (1024 values) take `{texts (at most
 *   96, each at most 2048 characters), input_type (required), truncate?, embedding_types?}`;
 *   `cohere.embed-v4:0` (1536 values) also `output_dimension` (256, 512, 1024, 1536) and
 *   `max_tokens`. The answer is `{id, embeddings: [[…]], texts, response_type: "embeddings_floats"}`,
 *   or with `embedding_types` `{…, embeddings: {float: [[…]], int8: …}, response_type:
 *   "embeddings_by_type"}`. Bedrock serves no streamed answer of an embedding model.
 * A body the model's JSON schema refuses — an extraneous or missing key, a value outside its enum,
 * more than 96 texts — is a 400 `ValidationException` "Malformed input request: …", the wording of
 * Bedrock's schema check quoted above; the part after the colon is the fake's own. The fake embeds
 * texts only (Cohere `images`/`inputs` are refused by name). A model id may carry a geography
 * prefix (`us.`, `eu.`, `apac.`, `global.`) and the `--<scenario>` suffix (`fail-<status>`, `hang`).
 *
 * With `forwardTo` (a scripted model speaking the Messages API and Converse, for the coding-agent
 * tests), an accepted generation call is answered by that model instead of a fixture:
 * - InvokeModel: the body goes to `{forwardTo}/v1/messages` with `model` put back, `stream` set
 *   for the streamed operation and `anthropic_version`/`anthropic_beta` taken out (the betas as
 *   the `anthropic-beta` header), and a streamed answer is re-framed as Bedrock does it — one
 *   `chunk` event per Anthropic event but `ping`, its payload `{"bytes": <base64 of the event's JSON>}`;
 * - Converse and ConverseStream: the body goes unchanged to the same operation's path on
 *   `forwardTo` (`/model/{modelId}/converse` or `/converse-stream`), which answers in Converse
 *   itself; its bytes (JSON, or the event stream) come back unchanged, as they arrive.
 * The scripted model's 400 (a broken replay rule) comes back as Bedrock's ValidationException
 * with the model's message.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { createParser } from 'eventsource-parser';
import { expectedVector, fakeTokenCount } from './embedding-upstream.ts';
import { FIXTURE_ROOT } from './fixture-upstream.ts';

/** The fake's region (SigV4 credential scope). */
export const BEDROCK_FAKE_REGION = 'us-east-1';

/** Test credentials the fake knows: access key id → secret access key. */
export const BEDROCK_TEST_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
} as const;

/** The Bedrock API key the fake accepts as a bearer token. */
export const BEDROCK_TEST_API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLXRlc3Qta2V5';

/** One request the fake received. */
export interface RecordedBedrockRequest {
  readonly operation: BedrockOperation;
  readonly modelId: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A Bedrock Runtime operation the fake serves. */
export type BedrockOperation = 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream';

/** A running fake. */
export interface BedrockUpstream {
  /** `http://127.0.0.1:PORT`: the channel's baseUrl, and the SDKs' endpoint. */
  readonly origin: string;
  readonly requests: RecordedBedrockRequest[];
  close(): Promise<void>;
}

/** Top-level members of ConverseRequest / ConverseStreamRequest (modelId is in the URL). */
const CONVERSE_FIELDS = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'guardrailConfig',
  'additionalModelRequestFields',
  'promptVariables',
  'additionalModelResponseFieldPaths',
  'requestMetadata',
  'performanceConfig',
  'serviceTier',
  'outputConfig',
]);

/** Top-level keys of the Claude Messages body on Bedrock (model-parameters-anthropic-claude-messages-request-response.html). */
const INVOKE_CLAUDE_FIELDS = new Set([
  'anthropic_version',
  'anthropic_beta',
  'max_tokens',
  'system',
  'messages',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'stop_sequences',
  'thinking',
  'output_config',
  'context_management',
]);

class BedrockRefusal extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}

function refuse(res: ServerResponse, refusal: BedrockRefusal): void {
  res
    .writeHead(refusal.status, {
      'content-type': 'application/json',
      'x-amzn-requestid': randomUUID(),
      'x-amzn-errortype': `${refusal.errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    })
    .end(JSON.stringify({ message: refusal.message }));
}

/** The SigV4 date `20250101T000000Z` as a Date. */
function parseAmzDate(value: string): Date {
  const iso = value.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
  return new Date(iso);
}

/** Checks the request's SigV4 signature or Bedrock API key; throws a BedrockRefusal (403) otherwise. */
async function checkCredentials(req: IncomingMessage, body: string): Promise<void> {
  const authorization = req.headers.authorization ?? '';
  if (authorization.startsWith('Bearer ')) {
    if (authorization.slice('Bearer '.length) === BEDROCK_TEST_API_KEY) return;
    throw new BedrockRefusal(
      403,
      'UnrecognizedClientException',
      'Invalid API Key format: Must start with pre-defined prefix',
    );
  }
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match) throw new BedrockRefusal(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const [, accessKeyId, , region, service, signedHeaders = '', signature] = match;
  if (accessKeyId !== BEDROCK_TEST_CREDENTIALS.accessKeyId)
    throw new BedrockRefusal(
      403,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
    );
  if (region !== BEDROCK_FAKE_REGION || service !== 'bedrock')
    throw new BedrockRefusal(
      403,
      'InvalidSignatureException',
      `Credential should be scoped to a valid region and to the correct service. (${region}/${service})`,
    );
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) headers[name] = String(req.headers[name] ?? '');
  const sessionToken = req.headers['x-amz-security-token'];
  const signer = new SignatureV4({
    service: 'bedrock',
    region: BEDROCK_FAKE_REGION,
    sha256: Sha256,
    applyChecksum: false,
    credentials: {
      ...BEDROCK_TEST_CREDENTIALS,
      ...(typeof sessionToken === 'string' ? { sessionToken } : {}),
    },
  });
  const url = new URL(req.url ?? '/', 'http://fake');
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const expected = await signer.sign(
    { method: req.method ?? 'POST', protocol: 'http:', hostname: 'fake', path: url.pathname, query, headers, body },
    {
      signingDate: parseAmzDate(amzDate),
      unsignableHeaders: new Set(),
      signableHeaders: new Set(Object.keys(headers)),
    },
  );
  const recomputed = /Signature=([0-9a-f]{64})/.exec(String(expected.headers.authorization))?.[1];
  if (recomputed !== signature)
    throw new BedrockRefusal(
      403,
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
}

type ConverseBlock = Record<string, unknown>;

/**
 * A `cachePoint` block is `{ type: "default" }` and nothing else
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html); one
 * cannot open a message, the system prompt or the tools, since it marks the end of a prefix.
 */
function checkCachePoints(where: string, blocks: unknown): void {
  if (!Array.isArray(blocks)) return;
  blocks.forEach((block: Record<string, unknown>, i) => {
    if (!('cachePoint' in block)) return;
    const point = block.cachePoint as Record<string, unknown> | undefined;
    if (Object.keys(block).length !== 1 || point?.type !== 'default' || Object.keys(point).length !== 1)
      throw new BedrockRefusal(400, 'ValidationException', `${where}.${i}.cachePoint: type must be "default"`);
    if (i === 0)
      throw new BedrockRefusal(
        400,
        'ValidationException',
        `${where}.${i}: a cache point must follow the content it caches`,
      );
  });
}

/** Converse's own validation of the body (see the module comment). */
function checkConverseBody(body: Record<string, unknown>): void {
  for (const key of Object.keys(body))
    if (!CONVERSE_FIELDS.has(key))
      throw new BedrockRefusal(400, 'ValidationException', `Unknown field in the request body: ${key}`);
  checkCachePoints('system', body.system);
  checkCachePoints('toolConfig.tools', (body.toolConfig as { tools?: unknown } | undefined)?.tools);
  const messages = (body.messages ?? []) as Array<{ role: string; content: ConverseBlock[] }>;
  const hasToolBlocks = messages.some((m) => m.content.some((b) => 'toolUse' in b || 'toolResult' in b));
  if (hasToolBlocks && body.toolConfig === undefined)
    throw new BedrockRefusal(
      400,
      'ValidationException',
      'The toolConfig field must be defined when using toolUse and toolResult content blocks.',
    );
  messages.forEach((message, m) => {
    checkCachePoints(`messages.${m}.content`, message.content);
    if (message.content.length === 0)
      throw new BedrockRefusal(
        400,
        'ValidationException',
        `The content field in the Message object at messages.${m} is empty. Add a ContentBlock object to the content field and try again.`,
      );
    message.content.forEach((block, b) => {
      if (typeof block.text === 'string' && block.text.trim() === '')
        throw new BedrockRefusal(
          400,
          'ValidationException',
          `The text field in the ContentBlock object at messages.${m}.content.${b} is blank. Add text to the text field, and try again.`,
        );
    });
    const results = message.content.flatMap((b) =>
      b.toolResult ? [(b.toolResult as { toolUseId: string }).toolUseId] : [],
    );
    if (results.length === 0) return;
    const previous = messages[m - 1];
    const uses = new Set(
      previous?.role === 'assistant'
        ? previous.content.flatMap((b) => (b.toolUse ? [(b.toolUse as { toolUseId: string }).toolUseId] : []))
        : [],
    );
    for (const id of results)
      if (!uses.has(id))
        throw new BedrockRefusal(
          400,
          'ValidationException',
          `messages.${m}: the toolResult ${id} has no toolUse in the previous assistant turn`,
        );
  });
}

/** Bedrock's JSON-schema check of a Claude Messages body. */
function checkInvokeBody(body: Record<string, unknown>): void {
  for (const key of Object.keys(body))
    if (!INVOKE_CLAUDE_FIELDS.has(key))
      throw new BedrockRefusal(
        400,
        'ValidationException',
        `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`,
      );
  if (typeof body.anthropic_version !== 'string')
    throw new BedrockRefusal(
      400,
      'ValidationException',
      'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.',
    );
}

/** An embedding model the fake serves through InvokeModel: its family, body keys, default and accepted vector lengths. */
interface BedrockEmbeddingModel {
  readonly family: 'titan' | 'cohere';
  readonly keys: ReadonlySet<string>;
  readonly defaultDimensions: number;
  /** Values of `dimensions` (Titan) or `output_dimension` (Cohere v4) the schema takes; empty: the key is not taken. */
  readonly dimensions: ReadonlyArray<number>;
}

const COHERE_V3_KEYS = ['texts', 'images', 'input_type', 'truncate', 'embedding_types'];

/** The embedding models of the fake, by base model id (model-parameters-titan-embed-text.html, model-parameters-embed*.html). */
const EMBEDDING_MODELS: Readonly<Record<string, BedrockEmbeddingModel>> = {
  'amazon.titan-embed-text-v1': {
    family: 'titan',
    keys: new Set(['inputText']),
    defaultDimensions: 1536,
    dimensions: [],
  },
  'amazon.titan-embed-text-v2:0': {
    family: 'titan',
    keys: new Set(['inputText', 'dimensions', 'normalize', 'embeddingTypes']),
    defaultDimensions: 1024,
    dimensions: [256, 512, 1024],
  },
  'cohere.embed-english-v3': {
    family: 'cohere',
    keys: new Set(COHERE_V3_KEYS),
    defaultDimensions: 1024,
    dimensions: [],
  },
  'cohere.embed-multilingual-v3': {
    family: 'cohere',
    keys: new Set(COHERE_V3_KEYS),
    defaultDimensions: 1024,
    dimensions: [],
  },
  'cohere.embed-v4:0': {
    family: 'cohere',
    keys: new Set([...COHERE_V3_KEYS, 'inputs', 'output_dimension', 'max_tokens']),
    defaultDimensions: 1536,
    dimensions: [256, 512, 1024, 1536],
  },
};

/** Most texts of one Cohere Embed call, and most characters of one text (model-parameters-embed.html). */
const COHERE_MAX_TEXTS = 96;
const COHERE_MAX_TEXT_CHARACTERS = 2048;
const COHERE_INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering', 'image']);
const COHERE_EMBEDDING_TYPES = new Set(['float', 'int8', 'uint8', 'binary', 'ubinary']);

/** The embedding model of a model id (geography prefix and `--scenario` suffix ignored), or undefined. */
function embeddingModelOf(modelId: string): BedrockEmbeddingModel | undefined {
  const base = modelId.split('--')[0]?.replace(/^(us|eu|apac|global)\./, '') ?? '';
  return EMBEDDING_MODELS[base];
}

/** A 400 ValidationException in the words of Bedrock's JSON-schema check of a model body. */
function malformed(detail: string): BedrockRefusal {
  return new BedrockRefusal(
    400,
    'ValidationException',
    `Malformed input request: ${detail}, please reformat your input and try again.`,
  );
}

/**
 * The vector the fake answers for `text`: `expectedVector(text, dimensions)`, scaled to unit length
 * (each value a float32) when `normalize` is true, as Titan v2 does by default.
 */
export function expectedBedrockVector(text: string, dimensions: number, normalize = false): number[] {
  const vector = expectedVector(text, dimensions);
  if (!normalize) return vector;
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return vector.map((value) => Math.fround(value / length));
}

/** Cohere's packed binary embedding: one bit per value (1 when positive), eight to a byte, as uint8 or int8 (minus 128). */
function packedBits(vector: ReadonlyArray<number>, signed: boolean): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < vector.length; i += 8) {
    let byte = 0;
    for (let bit = 0; bit < 8; bit++) byte = (byte << 1) | ((vector[i + bit] ?? 0) > 0 ? 1 : 0);
    bytes.push(signed ? byte - 128 : byte);
  }
  return bytes;
}

/** One vector in each asked Cohere embedding type. */
function cohereTypes(vector: ReadonlyArray<number>, types: ReadonlyArray<string>): Record<string, number[]> {
  const byType: Record<string, number[]> = {};
  for (const type of types) {
    if (type === 'float') byType.float = [...vector];
    else if (type === 'int8') byType.int8 = vector.map((v) => Math.round(v * 254));
    else if (type === 'uint8') byType.uint8 = vector.map((v) => Math.round((v + 0.5) * 255));
    else byType[type] = packedBits(vector, type === 'binary');
  }
  return byType;
}

/** A list of strings from `allowed`, else the ValidationException naming `key`. */
function enumList(body: Record<string, unknown>, key: string, allowed: ReadonlySet<string>): string[] | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) throw malformed(`#/${key}: expected a non-empty array`);
  value.forEach((item, index) => {
    if (typeof item !== 'string' || !allowed.has(item))
      throw malformed(`#/${key}/${index}: ${JSON.stringify(item)} is not a valid enum value`);
  });
  return value as string[];
}

/** Refuses a key the model's schema does not have. */
function checkKeys(body: Record<string, unknown>, model: BedrockEmbeddingModel): void {
  for (const key of Object.keys(body))
    if (!model.keys.has(key)) throw malformed(`#: extraneous key [${key}] is not permitted`);
}

/** A Titan Text Embeddings answer, or the refusal of its body. */
function titanAnswer(body: Record<string, unknown>, model: BedrockEmbeddingModel): { answer: unknown; tokens: number } {
  checkKeys(body, model);
  const text = body.inputText;
  if (text === undefined) throw malformed('#: required key [inputText] not found');
  if (typeof text !== 'string') throw malformed('#/inputText: expected type: String');
  if (text.length === 0) throw malformed('#/inputText: expected minLength: 1, actual: 0');
  const asked = body.dimensions;
  if (asked !== undefined && (typeof asked !== 'number' || !model.dimensions.includes(asked)))
    throw malformed(`#/dimensions: ${JSON.stringify(asked)} is not a valid enum value`);
  if (body.normalize !== undefined && typeof body.normalize !== 'boolean')
    throw malformed('#/normalize: expected type: Boolean');
  const types = enumList(body, 'embeddingTypes', new Set(['float', 'binary'])) ?? ['float'];
  const dimensions = typeof asked === 'number' ? asked : model.defaultDimensions;
  const v2 = model.dimensions.length > 0;
  const vector = expectedBedrockVector(text, dimensions, v2 && body.normalize !== false);
  const tokens = fakeTokenCount(text);
  if (!v2) return { answer: { embedding: vector, inputTextTokenCount: tokens }, tokens };
  const embeddingsByType: Record<string, number[]> = {};
  if (types.includes('float')) embeddingsByType.float = vector;
  if (types.includes('binary')) embeddingsByType.binary = vector.map((v) => (v > 0 ? 1 : 0));
  return { answer: { embedding: vector, embeddingsByType, inputTextTokenCount: tokens }, tokens };
}

/** A Cohere Embed answer, or the refusal of its body. */
function cohereAnswer(
  body: Record<string, unknown>,
  model: BedrockEmbeddingModel,
): { answer: unknown; tokens: number } {
  checkKeys(body, model);
  if (body.images !== undefined || body.inputs !== undefined)
    throw malformed('#: this fake embeds `texts` only (images and inputs are not served)');
  const texts = body.texts;
  if (texts === undefined) throw malformed('#: required key [texts] not found');
  if (!Array.isArray(texts)) throw malformed('#/texts: expected type: JSONArray');
  if (texts.length > COHERE_MAX_TEXTS)
    throw malformed(`#/texts: expected maximum item count: ${COHERE_MAX_TEXTS}, found: ${texts.length}`);
  texts.forEach((text, index) => {
    if (typeof text !== 'string') throw malformed(`#/texts/${index}: expected type: String`);
    if (text.length > COHERE_MAX_TEXT_CHARACTERS)
      throw malformed(`#/texts/${index}: expected maxLength: ${COHERE_MAX_TEXT_CHARACTERS}, actual: ${text.length}`);
  });
  if (body.input_type === undefined) throw malformed('#: required key [input_type] not found');
  if (typeof body.input_type !== 'string' || !COHERE_INPUT_TYPES.has(body.input_type))
    throw malformed(`#/input_type: ${JSON.stringify(body.input_type)} is not a valid enum value`);
  if (body.truncate !== undefined && !['NONE', 'START', 'END'].includes(body.truncate as string))
    throw malformed(`#/truncate: ${JSON.stringify(body.truncate)} is not a valid enum value`);
  const asked = body.output_dimension;
  if (asked !== undefined && (typeof asked !== 'number' || !model.dimensions.includes(asked)))
    throw malformed(`#/output_dimension: ${JSON.stringify(asked)} is not a valid enum value`);
  const types = enumList(body, 'embedding_types', COHERE_EMBEDDING_TYPES);
  const dimensions = typeof asked === 'number' ? asked : model.defaultDimensions;
  const vectors = (texts as string[]).map((text) => expectedBedrockVector(text, dimensions));
  const tokens = (texts as string[]).reduce((sum, text) => sum + fakeTokenCount(text), 0);
  const common = { id: randomUUID(), texts };
  if (!types) return { answer: { ...common, embeddings: vectors, response_type: 'embeddings_floats' }, tokens };
  const embeddings: Record<string, number[][]> = {};
  for (const type of types) embeddings[type] = vectors.map((vector) => cohereTypes(vector, [type])[type] ?? []);
  return { answer: { ...common, embeddings, response_type: 'embeddings_by_type' }, tokens };
}

/** Answers an accepted InvokeModel call of an embedding model (module comment), or throws its refusal. */
function answerEmbedding(res: ServerResponse, model: BedrockEmbeddingModel, body: Record<string, unknown>): void {
  const { answer, tokens } = model.family === 'titan' ? titanAnswer(body, model) : cohereAnswer(body, model);
  res.writeHead(200, {
    'content-type': 'application/json',
    'x-amzn-requestid': randomUUID(),
    'x-amzn-bedrock-invocation-latency': '87',
    'x-amzn-bedrock-input-token-count': String(tokens),
  });
  res.end(JSON.stringify(answer));
}

function fixture(folder: string, scenario: string, ext: string): Buffer | undefined {
  const path = `${FIXTURE_ROOT}${folder}/${scenario}.${ext}`;
  return existsSync(path) ? readFileSync(path) : undefined;
}

/** What the fake serves beyond the fixtures. */
export interface BedrockFakeOptions {
  /**
   * Answer generation calls from this origin (`http://127.0.0.1:PORT`) instead of fixtures:
   * InvokeModel through its Messages API, Converse through its Converse paths (module comment).
   */
  readonly forwardTo?: string;
}

const eventStreamCodec = new EventStreamCodec(toUtf8, fromUtf8);

/** One InvokeModelWithResponseStream `chunk` message carrying an Anthropic stream event's JSON. */
function chunkMessage(eventJson: string): Uint8Array {
  return eventStreamCodec.encode({
    headers: {
      ':event-type': { type: 'string', value: 'chunk' },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify({ bytes: Buffer.from(eventJson, 'utf8').toString('base64') })),
  });
}

/**
 * Bedrock's refusal of a forwarded call the scripted model answered with a non-2xx status: 429
 * ThrottlingException, else 400 ValidationException, with the answer's `message` (a Converse error
 * body) or its whole text (a Messages API error body).
 */
async function forwardedRefusal(answer: Response): Promise<BedrockRefusal> {
  const text = await answer.text();
  let message = text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Not JSON: the text itself is the message.
  }
  return answer.status === 429
    ? new BedrockRefusal(429, 'ThrottlingException', message)
    : new BedrockRefusal(400, 'ValidationException', message);
}

/** Answers an accepted InvokeModel call from the Messages API at `origin` (BedrockFakeOptions.forwardTo). */
async function forwardInvoke(
  origin: string,
  modelId: string,
  streamed: boolean,
  body: Readonly<Record<string, unknown>>,
  res: ServerResponse,
): Promise<void> {
  const { anthropic_version: _version, anthropic_beta: beta, ...rest } = body;
  const answer = await fetch(`${origin}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      ...(Array.isArray(beta) && beta.length > 0 ? { 'anthropic-beta': beta.join(',') } : {}),
    },
    body: JSON.stringify({ ...rest, model: modelId, ...(streamed ? { stream: true } : {}) }),
  });
  if (!answer.ok) throw await forwardedRefusal(answer);
  if (!streamed) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() });
    res.end(await answer.text());
    return;
  }
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': randomUUID() });
  const parser = createParser({
    onEvent: (event) => {
      if (event.event !== 'ping') res.write(chunkMessage(event.data));
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(chunk, { stream: true }));
  res.end();
}

/**
 * Answers an accepted Converse or ConverseStream call from the Converse paths at `origin`
 * (BedrockFakeOptions.forwardTo): the raw body goes unchanged; the answer's bytes are passed back
 * unchanged as they arrive, with its content type.
 */
async function forwardConverse(
  origin: string,
  modelId: string,
  operation: 'converse' | 'converse-stream',
  rawBody: string,
  res: ServerResponse,
): Promise<void> {
  const answer = await fetch(`${origin}/model/${encodeURIComponent(modelId)}/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: rawBody,
  });
  if (!answer.ok) throw await forwardedRefusal(answer);
  res.writeHead(200, {
    'content-type': answer.headers.get('content-type') ?? 'application/json',
    'x-amzn-requestid': randomUUID(),
  });
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  requests: RecordedBedrockRequest[],
  options: BedrockFakeOptions,
): Promise<void> {
  const path = req.url ?? '/';
  const route = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(
    path.split('?')[0] ?? '',
  );
  if (req.method !== 'POST' || !route) {
    refuse(res, new BedrockRefusal(404, 'UnknownOperationException', `No operation at ${req.method} ${path}`));
    return;
  }
  const modelId = decodeURIComponent(route[1] ?? '');
  const operation = route[2] as BedrockOperation;
  requests.push({ operation, modelId, path, headers: req.headers, body });
  await checkCredentials(req, body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BedrockRefusal(
      400,
      'ValidationException',
      'Malformed input request, please reformat your input and try again.',
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new BedrockRefusal(400, 'ValidationException', 'The request body must be a JSON object.');
  const converse = operation === 'converse' || operation === 'converse-stream';
  const embeddingModel = converse ? undefined : embeddingModelOf(modelId);
  if (embeddingModel && operation === 'invoke-with-response-stream')
    throw new BedrockRefusal(400, 'ValidationException', 'The model is unsupported for streaming.');
  if (converse) checkConverseBody(parsed as Record<string, unknown>);
  else if (!embeddingModel) checkInvokeBody(parsed as Record<string, unknown>);
  if (options.forwardTo && converse) return forwardConverse(options.forwardTo, modelId, operation, body, res);
  if (options.forwardTo && !embeddingModel) {
    const streamedInvoke = operation === 'invoke-with-response-stream';
    await forwardInvoke(options.forwardTo, modelId, streamedInvoke, parsed as Record<string, unknown>, res);
    return;
  }
  const scenario = modelId.includes('--') ? modelId.slice(modelId.lastIndexOf('--') + 2) : modelId;
  if (scenario === 'hang') return;
  const fail = /^fail-(\d{3})$/.exec(scenario);
  if (fail) {
    const status = Number(fail[1]);
    const type =
      status === 429 ? 'ThrottlingException' : status >= 500 ? 'InternalServerException' : 'ValidationException';
    throw new BedrockRefusal(status, type, `fake upstream failure ${status}`);
  }
  if (embeddingModel) return answerEmbedding(res, embeddingModel, parsed as Record<string, unknown>);
  const streamed = operation === 'converse-stream' || operation === 'invoke-with-response-stream';
  const bytes = streamed
    ? fixture(converse ? 'bedrock-converse' : 'bedrock-invoke', scenario, 'eventstream')
    : fixture(converse ? 'bedrock-converse' : 'anthropic-messages', scenario, 'json');
  if (!bytes)
    throw new BedrockRefusal(404, 'ResourceNotFoundException', `The model ${modelId} does not exist in this fake.`);
  res.writeHead(200, {
    'content-type': streamed ? 'application/vnd.amazon.eventstream' : 'application/json',
    'x-amzn-requestid': randomUUID(),
    ...(streamed || converse
      ? {}
      : {
          'x-amzn-bedrock-invocation-latency': '1312',
          'x-amzn-bedrock-input-token-count': '0',
          'x-amzn-bedrock-output-token-count': '0',
        }),
  });
  res.end(bytes);
}

/** Starts the fake on a free loopback port (the OS picks it). */
export async function startBedrockUpstream(options: BedrockFakeOptions = {}): Promise<BedrockUpstream> {
  const requests: RecordedBedrockRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      answer(req, res, Buffer.concat(chunks).toString('utf8'), requests, options).catch((error: unknown) => {
        if (error instanceof BedrockRefusal) refuse(res, error);
        else refuse(res, new BedrockRefusal(500, 'InternalServerException', String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fake embeddings upstream answering, on one loopback port, the two embedding APIs the gateway
 * calls, as their references document them:
 * - OpenAI `POST …/embeddings` (https://platform.openai.com/docs/api-reference/embeddings/create):
 *   body `{model, input, dimensions?, encoding_format?, user?}` with `input` a string, strings,
 *   token ids or token-id arrays; answer `{object: "list", data: [{object: "embedding", index,
 *   embedding}], model, usage: {prompt_tokens, total_tokens}}`, each embedding numbers or, with
 *   `encoding_format: "base64"`, base64 of little-endian float32; errors
 *   `{error: {message, type, param, code}}` (400 `invalid_request_error`, 401 `invalid_api_key`).
 * - Gemini `POST /v1beta/models/{model}:batchEmbedContents` and `:embedContent`
 *   (https://ai.google.dev/api/embeddings): `{requests: [{model, content: {parts: [{text}]},
 *   taskType?, title?, outputDimensionality?}]}` → `{embeddings: [{values}]}`, one
 *   EmbedContentRequest → `{embedding: {values}}`; errors google.rpc.Status
 *   `{error: {code, message, status}}`; at most 100 requests per batch ("at most 100 requests can
 *   be in one batch", as the API answers).
 *
 * - Azure OpenAI (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference#embeddings):
 *   the OpenAI body at `/openai/v1/embeddings` or `/openai/deployments/{deployment}/embeddings
 *   ?api-version=…` (the deployment names the model), the resource key in the `api-key` header.
 *
 * It refuses what the real APIs refuse: unknown fields (OpenAI "Unrecognized request argument
 * supplied", Gemini "Invalid JSON payload received. Unknown name"), more inputs per call than the
 * configured limit, a `dimensions` the model does not offer, a wrong credential. Vectors are
 * deterministic: a function of the text (or token ids) and the length asked for, every value a
 * float32 so that base64 round-trips exactly (`expectedVector`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One model the fake serves: its default vector length and the lengths it accepts. */
export interface FakeEmbeddingModel {
  readonly defaultDimensions: number;
  readonly dimensions: ReadonlyArray<number>;
}

/** How a fake instance behaves. */
export interface EmbeddingUpstreamOptions {
  /** The credential required (Bearer for OpenAI, x-goog-api-key for Gemini). */
  readonly apiKey: string;
  /** Models by name; default `embed-small` (8, accepts 4 and 8) and `embed-large` (16, accepts 4, 8, 16). */
  readonly models?: Readonly<Record<string, FakeEmbeddingModel>>;
  /** Most inputs per OpenAI call (default 2048). */
  readonly maxOpenAiInputs?: number;
  /** Body field of the vector length on the OpenAI API (Mistral: `output_dimension`); default `dimensions`. */
  readonly dimensionsField?: string;
  /** Whether OpenAI `input` may hold token ids (default true). */
  readonly acceptsTokenIds?: boolean;
  /** Answer every call with this HTTP status (a failing upstream), e.g. 503. */
  readonly failStatus?: number;
  /**
   * Answer only these calls (1-based, counting every call the fake received) with `status` in the
   * API's error shape, e.g. the second call of a batch split into several (a provider failing
   * mid-batch after it has served, and charged for, the first).
   */
  readonly failingCalls?: { readonly callNumbers: ReadonlyArray<number>; readonly status: number };
  /**
   * The OpenAI path takes no credential, as a local server started without a key (Ollama, vLLM
   * without --api-key, LM Studio without "Require Authentication") ignores it; `apiKey` still
   * guards the Gemini and Azure paths.
   */
  readonly keyless?: boolean;
}

/** One call the fake received. */
export interface ReceivedEmbeddingCall {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/** A running fake. */
export interface EmbeddingUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly calls: ReceivedEmbeddingCall[];
  close(): Promise<void>;
}

const DEFAULT_MODELS: Readonly<Record<string, FakeEmbeddingModel>> = {
  'embed-small': { defaultDimensions: 8, dimensions: [4, 8] },
  'embed-large': { defaultDimensions: 16, dimensions: [4, 8, 16] },
};

/** FNV-1a of a string, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The fake's vector for `text` (or `JSON.stringify(tokenIds)`) of length `dimensions`: float32 values in [-0.5, 0.5). */
export function expectedVector(text: string, dimensions: number): number[] {
  const seed = hash(text);
  return Array.from({ length: dimensions }, (_, i) =>
    Math.fround((((seed + i * 2654435761) >>> 0) % 1000) / 1000 - 0.5),
  );
}

/** The fake's token count of a text: its whitespace-separated words (tokens). */
export function fakeTokenCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

function base64Of(vector: ReadonlyArray<number>): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `up-${hash(String(Date.now()))}` });
  response.end(JSON.stringify(body));
}

function openAiError(response: ServerResponse, status: number, message: string, param: string | null = null): void {
  send(response, status, {
    error: {
      message,
      type: status === 401 ? 'invalid_request_error' : 'invalid_request_error',
      param,
      code: status === 401 ? 'invalid_api_key' : null,
    },
  });
}

const RPC_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  503: 'UNAVAILABLE',
};

function geminiError(response: ServerResponse, status: number, message: string): void {
  send(response, status, { error: { code: status, message, status: RPC_STATUS[status] ?? 'INTERNAL' } });
}

const OPENAI_FIELDS = ['model', 'input', 'encoding_format', 'user'];

/** Serves one OpenAI `/embeddings` call. */
function serveOpenAi(options: EmbeddingUpstreamOptions, body: Record<string, unknown>, response: ServerResponse): void {
  const models = options.models ?? DEFAULT_MODELS;
  const dimensionsField = options.dimensionsField ?? 'dimensions';
  const unknown = Object.keys(body).find((field) => !OPENAI_FIELDS.includes(field) && field !== dimensionsField);
  if (unknown !== undefined) return openAiError(response, 400, `Unrecognized request argument supplied: ${unknown}`);
  const model = typeof body.model === 'string' ? models[body.model] : undefined;
  if (!model) return openAiError(response, 404, `The model \`${String(body.model)}\` does not exist`, 'model');
  const raw = body.input;
  let inputs: Array<string | number[]>;
  if (typeof raw === 'string') inputs = [raw];
  else if (Array.isArray(raw) && raw.every((item) => typeof item === 'number')) inputs = [raw];
  else if (Array.isArray(raw)) inputs = raw as Array<string | number[]>;
  else return openAiError(response, 400, "'input' is a required property", 'input');
  if (inputs.length === 0) return openAiError(response, 400, "'$.input' is invalid", 'input');
  const maxInputs = options.maxOpenAiInputs ?? 2048;
  if (inputs.length > maxInputs)
    return openAiError(response, 400, `'$.input' must have at most ${maxInputs} items, got ${inputs.length}`, 'input');
  let tokens = 0;
  const keys: string[] = [];
  for (const [index, input] of inputs.entries()) {
    if (typeof input === 'string' && input !== '') {
      tokens += fakeTokenCount(input);
      keys.push(input);
    } else if (
      Array.isArray(input) &&
      input.length > 0 &&
      input.every((n) => Number.isInteger(n)) &&
      options.acceptsTokenIds !== false
    ) {
      tokens += input.length;
      keys.push(JSON.stringify(input));
    } else return openAiError(response, 400, `'$.input[${index}]' is invalid`, 'input');
  }
  const asked = body[dimensionsField];
  if (asked !== undefined && (typeof asked !== 'number' || !model.dimensions.includes(asked)))
    return openAiError(
      response,
      400,
      `This model does not support ${dimensionsField}=${JSON.stringify(asked)}`,
      dimensionsField,
    );
  const dimensions = typeof asked === 'number' ? asked : model.defaultDimensions;
  const encoding = body.encoding_format ?? 'float';
  if (encoding !== 'float' && encoding !== 'base64')
    return openAiError(
      response,
      400,
      `'${JSON.stringify(encoding)}' is not one of ['float', 'base64']`,
      'encoding_format',
    );
  send(response, 200, {
    object: 'list',
    data: keys.map((key, index) => {
      const vector = expectedVector(key, dimensions);
      return { object: 'embedding', index, embedding: encoding === 'base64' ? base64Of(vector) : vector };
    }),
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

const GEMINI_REQUEST_FIELDS = ['model', 'content', 'taskType', 'title', 'outputDimensionality'];
const TASK_TYPES = new Set([
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
]);

/** The vector of one EmbedContentRequest, or the refusal message. */
function geminiVector(
  request: Record<string, unknown>,
  path: string,
  model: FakeEmbeddingModel,
  modelName: string,
  batch: boolean,
): number[] | string {
  const unknown = Object.keys(request).find((field) => !GEMINI_REQUEST_FIELDS.includes(field));
  if (unknown !== undefined)
    return `Invalid JSON payload received. Unknown name "${unknown}" at '${path}': Cannot find field.`;
  if (batch && request.model !== `models/${modelName}`)
    return `${path}.model: model must be models/${modelName}, the model of the batch`;
  const content = request.content as { parts?: Array<{ text?: unknown }> } | undefined;
  const parts = content?.parts;
  if (!Array.isArray(parts) || parts.length === 0) return `${path}.content: the content is empty`;
  if (parts.some((part) => typeof part.text !== 'string')) return `${path}.content.parts: only text is supported`;
  if (request.taskType !== undefined && (typeof request.taskType !== 'string' || !TASK_TYPES.has(request.taskType)))
    return `Invalid value at '${path}.task_type', ${JSON.stringify(request.taskType)}`;
  const asked = request.outputDimensionality;
  if (asked !== undefined && (typeof asked !== 'number' || !model.dimensions.includes(asked)))
    return `${path}.output_dimensionality: ${JSON.stringify(asked)} is not supported by models/${modelName}`;
  const text = parts.map((part) => part.text as string).join('\n');
  return expectedVector(text, typeof asked === 'number' ? asked : model.defaultDimensions);
}

/** Serves `:batchEmbedContents` or `:embedContent` for `modelName`. */
function serveGemini(
  options: EmbeddingUpstreamOptions,
  modelName: string,
  method: string,
  body: Record<string, unknown>,
  response: ServerResponse,
): void {
  const model = (options.models ?? DEFAULT_MODELS)[modelName];
  if (!model) return geminiError(response, 404, `models/${modelName} is not found for API version v1beta`);
  if (method === 'embedContent') {
    const vector = geminiVector(body, 'embed_content_request', model, modelName, false);
    if (typeof vector === 'string') return geminiError(response, 400, vector);
    return send(response, 200, { embedding: { values: vector } });
  }
  if (method !== 'batchEmbedContents') return geminiError(response, 404, `Unknown method ${method}`);
  const unknown = Object.keys(body).find((field) => field !== 'requests');
  if (unknown !== undefined)
    return geminiError(response, 400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0)
    return geminiError(response, 400, '* BatchEmbedContentsRequest.requests: requests must not be empty');
  if (requests.length > 100)
    return geminiError(response, 400, '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch');
  const embeddings: Array<{ values: number[] }> = [];
  for (const [index, request] of requests.entries()) {
    const vector = geminiVector(request as Record<string, unknown>, `requests[${index}]`, model, modelName, true);
    if (typeof vector === 'string') return geminiError(response, 400, vector);
    embeddings.push({ values: vector });
  }
  send(response, 200, { embeddings });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts a fake on an ephemeral loopback port. */
export async function startEmbeddingUpstream(options: EmbeddingUpstreamOptions): Promise<EmbeddingUpstream> {
  const calls: ReceivedEmbeddingCall[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const text = await readBody(request);
      const path = (request.url ?? '').split('?')[0] ?? '';
      const gemini = /^\/v1beta\/models\/([^:]+):(\w+)$/.exec(path);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return gemini ? geminiError(response, 400, 'Invalid JSON payload') : openAiError(response, 400, 'Invalid JSON');
      }
      calls.push({ path, headers: request.headers, body });
      const failStatus = options.failingCalls?.callNumbers.includes(calls.length)
        ? options.failingCalls.status
        : options.failStatus;
      if (failStatus !== undefined)
        return gemini
          ? geminiError(response, failStatus, 'The service is currently unavailable.')
          : openAiError(response, failStatus, 'The server is overloaded');
      if (gemini) {
        if (request.headers['x-goog-api-key'] !== options.apiKey)
          return geminiError(response, 400, 'API key not valid. Please pass a valid API key.');
        return serveGemini(options, decodeURIComponent(gemini[1] ?? ''), gemini[2] ?? '', body, response);
      }
      if (!path.endsWith('/embeddings')) return openAiError(response, 404, `Unknown path ${path}`);
      const azure = /^\/openai\/(v1|deployments\/([^/]+))\/embeddings$/.exec(path);
      if (path.startsWith('/openai/')) {
        // Azure OpenAI: the resource key in `api-key`; a deployment path needs `api-version` and names the model.
        if (!azure) return openAiError(response, 404, 'Resource not found');
        if (request.headers['api-key'] !== options.apiKey)
          return openAiError(response, 401, 'Access denied due to invalid subscription key or wrong API endpoint.');
        const deployment = azure[2];
        if (deployment !== undefined) {
          if (!new URLSearchParams((request.url ?? '').split('?')[1] ?? '').has('api-version'))
            return openAiError(response, 404, 'Resource not found');
          return serveOpenAi(options, { ...body, model: decodeURIComponent(deployment) }, response);
        }
        return serveOpenAi(options, body, response);
      }
      if (options.keyless !== true && request.headers.authorization !== `Bearer ${options.apiKey}`)
        return openAiError(response, 401, 'Incorrect API key provided');
      serveOpenAi(options, body, response);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

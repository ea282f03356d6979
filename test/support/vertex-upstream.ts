/**
 * A fake Google Vertex AI for tests: an OAuth 2.0 token endpoint for service accounts and the
 * publisher-model endpoints of one project, on 127.0.0.1.
 *
 * Token endpoint, `POST /token` (the JWT bearer grant,
 * https://developers.google.com/identity/protocols/oauth2/service-account#httprest): the form's
 * `assertion` must be an RS256 JWT signed by a registered service account's key (`iss` its
 * email, `aud` https://oauth2.googleapis.com/token or this endpoint, `scope` naming
 * https://www.googleapis.com/auth/cloud-platform, `exp` at most an hour after `iat`); it answers
 * `{access_token, expires_in, token_type}`, or Google's `{"error":"invalid_grant",
 * "error_description":"Invalid JWT Signature."}` (400). Service-account keys are made at test time
 * (makeServiceAccountKey; node:crypto), never committed.
 *
 * Models (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference and
 * https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude), under
 * `/v1/` or `/v1beta1/` (the version @google/genai uses):
 * - `projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`,
 *   `:streamGenerateContent?alt=sse` (a JSON array without `alt=sse`) and `:countTokens`;
 * - `projects/{p}/locations/{l}/publishers/anthropic/models/{m}:rawPredict`, `:streamRawPredict`,
 *   and `…/models/count-tokens:rawPredict`;
 * - text embeddings, `projects/{p}/locations/{l}/publishers/google/models/{m}:predict`
 *   (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api):
 *   `{instances: [{content, task_type?, title?}], parameters?: {outputDimensionality?,
 *   autoTruncate?}}` → `{predictions: [{embeddings: {values, statistics: {token_count,
 *   truncated}}}], metadata: {billableCharacterCount}}` for `text-embedding-005`,
 *   `text-embedding-004`, `text-multilingual-embedding-002` (768 values) and
 *   `gemini-embedding-001` (3072 values). Like Vertex it refuses (400 INVALID_ARGUMENT) more than
 *   250 instances a call (gemini-embedding-001: one), more than 20 000 input tokens a call, a text
 *   over 2048 tokens with `autoTruncate: false` (with it, the default, the text is cut and
 *   `truncated` is true), a `task_type` outside the documented list, a `title` without
 *   `task_type: RETRIEVAL_DOCUMENT`, an `outputDimensionality` above the model's length, and an
 *   unknown field (ESF's "Invalid JSON payload received. Unknown name"); other message texts are
 *   the fake's own. Vectors are deterministic (`expectedVector` of test/support/embedding-upstream.ts
 *   of the content), tokens are whitespace-separated words (`fakeTokenCount`), billable characters
 *   the content's non-whitespace characters (https://cloud.google.com/vertex-ai/generative-ai/pricing,
 *   "Embeddings").
 * Every call needs `Authorization: Bearer` with a live token this fake issued (else 401
 * UNAUTHENTICATED in Google's words) and the fake's project and location (else 403
 * PERMISSION_DENIED). Gemini bodies pass the Gemini request rules
 * (gateway/mock/strict-request-rules.ts) and need a `role` on every content (Vertex: "Please use a
 * valid role: user, model."); Claude bodies must carry `anthropic_version` and no `model`, then
 * pass the Messages rules. The model id picks the answer: `text`, `tool-call`, `reasoning` replay
 * test/fixtures/upstream/gemini|anthropic-messages byte for byte (a Claude id may carry a
 * `@version`); `unauthenticated` answers 401 as an expired token would; others 404 NOT_FOUND.
 */
import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { refuseLikeProvider } from '../../gateway/mock/strict-request-rules.ts';
import { expectedVector, fakeTokenCount } from './embedding-upstream.ts';
import { fixturePath } from './fixture-upstream.ts';

/** A throwaway service account: its key file's JSON and the public key the token endpoint checks. */
export interface ServiceAccountKey {
  readonly email: string;
  readonly json: string;
  readonly publicKey: KeyObject;
}

/** Makes a service-account key (RSA 2048, generated now) whose `token_uri` is `tokenUri`. */
export function makeServiceAccountKey(
  tokenUri: string,
  email = 'tollgate-test@my-project.iam.gserviceaccount.com',
): ServiceAccountKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const json = JSON.stringify({
    type: 'service_account',
    project_id: 'my-project',
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: email,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    universe_domain: 'googleapis.com',
  });
  return { email, json, publicKey };
}

/** What the fake serves. */
export interface VertexFakeOptions {
  readonly project: string;
  readonly location: string;
  /** Lifetime of issued tokens, s (default 3600). */
  readonly tokenLifetimeSeconds?: number;
  /**
   * Instead of replaying fixtures, forward each accepted model call, in its protocol's own shape,
   * to this origin (`http://127.0.0.1:PORT`, a scripted model speaking the Gemini API and the
   * Messages API): Gemini calls to `/v1beta/models/{m}:{method}`, Claude calls to `/v1/messages`
   * (or `/v1/messages/count_tokens`) with `model` put back and `anthropic_version` taken out. Its
   * answer comes back as it is.
   */
  readonly forwardTo?: string;
}

/** Sends an accepted call on to the forward origin and pipes its answer back. */
type ForwardCall = (path: string, body: Record<string, unknown>) => Promise<void>;

function forwarder(origin: string, res: ServerResponse): ForwardCall {
  return async (path, body) => {
    const answer = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    if (!answer.body) return void res.end();
    await pipeline(Readable.fromWeb(answer.body as WebReadableStream<Uint8Array>), res);
  };
}

/** One call the model endpoints received. */
export interface VertexRecordedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A running fake. */
export interface VertexFake {
  /** `http://127.0.0.1:PORT`, the channel's host (baseUrl). */
  readonly origin: string;
  /** `http://127.0.0.1:PORT/token`, for service-account keys' `token_uri`. */
  readonly tokenUri: string;
  /** Accepts grants signed by `key` from now on. */
  register(key: ServiceAccountKey): void;
  readonly requests: VertexRecordedRequest[];
  /** Token grants received (accepted or not), by `iss`. */
  readonly grants: string[];
  close(): Promise<void>;
}

const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const REPLAYED = new Set(['text', 'tool-call', 'reasoning']);

/** google.rpc.Status as Vertex sends it (https://cloud.google.com/apis/design/errors#http_mapping). */
function rpcError(res: ServerResponse, code: number, status: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code, message, status } }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function decodeSegment(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The grant's error, or undefined when the assertion is a valid JWT of a registered account. */
function grantError(assertion: string, keys: Map<string, KeyObject>, tokenUri: string): string | undefined {
  const [header, payload, signature] = assertion.split('.');
  if (!header || !payload || !signature)
    return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.';
  const claims = decodeSegment(payload);
  const key = keys.get(String(claims.iss));
  if (decodeSegment(header).alg !== 'RS256' || !key) return 'Invalid grant: account not found';
  if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url')))
    return 'Invalid JWT Signature.';
  if (claims.aud !== GOOGLE_TOKEN_URL && claims.aud !== tokenUri) return 'Invalid JWT: Failed audience check.';
  const now = Date.now() / 1000;
  const iat = Number(claims.iat);
  const exp = Number(claims.exp);
  if (!(exp > now && iat <= now + 60 && exp - iat <= 3600))
    return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.';
  if (!(typeof claims.scope === 'string' ? claims.scope : '').split(' ').includes(CLOUD_PLATFORM))
    return 'Invalid OAuth scope or ID token audience provided.';
  return undefined;
}

/** Replays `file`, or 404 NOT_FOUND for a model the fake does not serve. */
function replay(res: ServerResponse, file: string | undefined, contentType: string, model: string): void {
  if (!file)
    return rpcError(
      res,
      404,
      'NOT_FOUND',
      `Publisher Model \`${model}\` was not found or your project does not have access to it.`,
    );
  res.writeHead(200, { 'content-type': contentType }).end(readFileSync(file));
}

/** Gemini: generateContent, streamGenerateContent, countTokens. */
function answerGemini(
  res: ServerResponse,
  path: string,
  model: string,
  method: string,
  url: URL,
  body: Record<string, unknown>,
  forward: ForwardCall | undefined,
): void | Promise<void> {
  const refusal = refuseLikeProvider('gemini', path, body);
  if (refusal) return void res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
  const contents = Array.isArray(body.contents) ? (body.contents as Array<Record<string, unknown>>) : [];
  if (contents.some((content) => content.role !== 'user' && content.role !== 'model'))
    return rpcError(res, 400, 'INVALID_ARGUMENT', 'Please use a valid role: user, model.');
  if (forward) return forward(`/v1beta/models/${encodeURIComponent(model)}:${method}${url.search}`, body);
  if (method === 'countTokens')
    return void res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ totalTokens: 9, totalBillableCharacters: 30 }));
  const scenario = REPLAYED.has(model) ? model : undefined;
  if (method === 'generateContent')
    return replay(res, scenario && fixturePath('gemini', scenario, 'json'), 'application/json', model);
  if (url.searchParams.get('alt') === 'sse')
    return replay(res, scenario && fixturePath('gemini', scenario, 'sse'), 'text/event-stream', model);
  const file = scenario && fixturePath('gemini', scenario, 'sse');
  if (!file) return replay(res, undefined, '', model);
  const chunks = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunks));
}

/** Claude: rawPredict, streamRawPredict and count-tokens:rawPredict. */
function answerClaude(
  res: ServerResponse,
  model: string,
  method: string,
  body: Record<string, unknown>,
  forward: ForwardCall | undefined,
): void | Promise<void> {
  const refuse = (message: string): void =>
    void res
      .writeHead(400, { 'content-type': 'application/json' })
      .end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }));
  if (typeof body.anthropic_version !== 'string') return refuse('anthropic_version: Field required');
  const { anthropic_version: _version, ...messagesBody } = body;
  if (model === 'count-tokens') {
    if (typeof body.model !== 'string') return refuse('model: Field required');
    const refusal = refuseLikeProvider('anthropic-messages', '/v1/messages/count_tokens', messagesBody);
    if (refusal) return void res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
    if (forward) return forward('/v1/messages/count_tokens', messagesBody);
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 11 }));
  }
  if ('model' in body) return refuse('model: Extra inputs are not permitted');
  const refusal = refuseLikeProvider('anthropic-messages', '/v1/messages', { ...messagesBody, model });
  if (refusal) return void res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
  const id = model.split('@')[0] ?? '';
  const scenario = REPLAYED.has(id) ? id : undefined;
  const stream = method === 'streamRawPredict';
  if (stream !== (body.stream === true)) return refuse(`stream: must be ${stream} on :${method}`);
  if (forward) return forward('/v1/messages', { ...messagesBody, model });
  return replay(
    res,
    scenario && fixturePath('anthropic-messages', scenario, stream ? 'sse' : 'json'),
    stream ? 'text/event-stream' : 'application/json',
    model,
  );
}

/** Text-embedding models of the fake: their vector length and most instances per call (the API reference's "Request body"). */
const EMBEDDING_MODELS: Readonly<Record<string, { readonly dimensions: number; readonly maxInstances: number }>> = {
  'text-embedding-005': { dimensions: 768, maxInstances: 250 },
  'text-embedding-004': { dimensions: 768, maxInstances: 250 },
  'text-multilingual-embedding-002': { dimensions: 768, maxInstances: 250 },
  'gemini-embedding-001': { dimensions: 3072, maxInstances: 1 },
};
/** Most input tokens of one text, and of one call (text-embeddings-api, "Request body"). */
const MAX_TOKENS_PER_TEXT = 2048;
const MAX_TOKENS_PER_CALL = 20_000;
const EMBEDDING_TASK_TYPES = new Set([
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
]);
const INSTANCE_FIELDS = new Set(['content', 'task_type', 'title']);
const PARAMETER_FIELDS = new Set(['outputDimensionality', 'autoTruncate']);

/** `:predict` of a text-embedding model (module comment). */
function answerEmbeddings(res: ServerResponse, model: string, body: Record<string, unknown>): void {
  const spec = EMBEDDING_MODELS[model];
  if (!spec) return replay(res, undefined, '', model);
  const invalid = (message: string): void => rpcError(res, 400, 'INVALID_ARGUMENT', message);
  const unknown = Object.keys(body).find((field) => field !== 'instances' && field !== 'parameters');
  if (unknown !== undefined)
    return invalid(`Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
  const parameters = (body.parameters ?? {}) as Record<string, unknown>;
  if (typeof parameters !== 'object' || Array.isArray(parameters)) return invalid('parameters must be an object.');
  const unknownParameter = Object.keys(parameters).find((field) => !PARAMETER_FIELDS.has(field));
  if (unknownParameter !== undefined) return invalid(`Unknown parameter: ${unknownParameter}.`);
  const dimensions = parameters.outputDimensionality ?? spec.dimensions;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > spec.dimensions)
    return invalid(`outputDimensionality must be an integer between 1 and ${spec.dimensions} for ${model}.`);
  if (parameters.autoTruncate !== undefined && typeof parameters.autoTruncate !== 'boolean')
    return invalid('autoTruncate must be a boolean.');
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length === 0) return invalid('instances must be a non-empty list.');
  if (instances.length > spec.maxInstances)
    return invalid(
      `The number of instances (${instances.length}) exceeds the maximum of ${spec.maxInstances} per request for ${model}.`,
    );
  const predictions: unknown[] = [];
  let callTokens = 0;
  let billableCharacters = 0;
  for (const [index, raw] of instances.entries()) {
    const instance = (raw ?? {}) as Record<string, unknown>;
    const field = Object.keys(instance).find((key) => !INSTANCE_FIELDS.has(key));
    if (field !== undefined) return invalid(`instances[${index}]: unknown field ${field}.`);
    if (typeof instance.content !== 'string' || instance.content === '')
      return invalid(`instances[${index}].content must be a non-empty string.`);
    const taskType = instance.task_type;
    if (taskType !== undefined && (typeof taskType !== 'string' || !EMBEDDING_TASK_TYPES.has(taskType)))
      return invalid(`instances[${index}].task_type: ${JSON.stringify(taskType)} is not a supported task type.`);
    if (instance.title !== undefined && taskType !== 'RETRIEVAL_DOCUMENT')
      return invalid(`instances[${index}].title is only valid with task_type RETRIEVAL_DOCUMENT.`);
    const words = fakeTokenCount(instance.content);
    const truncated = words > MAX_TOKENS_PER_TEXT;
    if (truncated && parameters.autoTruncate === false)
      return invalid(
        `instances[${index}] has ${words} tokens, more than the ${MAX_TOKENS_PER_TEXT} the model takes, and autoTruncate is false.`,
      );
    const tokenCount = Math.min(words, MAX_TOKENS_PER_TEXT);
    callTokens += tokenCount;
    billableCharacters += instance.content.replace(/\s/g, '').length;
    predictions.push({
      embeddings: {
        values: expectedVector(instance.content, dimensions),
        statistics: { token_count: tokenCount, truncated },
      },
    });
  }
  if (callTokens > MAX_TOKENS_PER_CALL)
    return invalid(
      `The request has ${callTokens} input tokens, more than the ${MAX_TOKENS_PER_CALL} one request takes.`,
    );
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ predictions, metadata: { billableCharacterCount: billableCharacters } }));
}

/** Starts the fake on 127.0.0.1 (ephemeral port). */
export async function startVertexFake(options: VertexFakeOptions): Promise<VertexFake> {
  const keys = new Map<string, KeyObject>();
  const tokens = new Map<string, number>();
  const requests: VertexRecordedRequest[] = [];
  const grants: string[] = [];
  let tokenUri = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname === '/token' && req.method === 'POST') {
        const form = new URLSearchParams(raw);
        const assertion = form.get('assertion') ?? '';
        const payload = assertion.split('.')[1];
        grants.push(payload ? String(decodeSegment(payload).iss) : '');
        const problem =
          form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer'
            ? grantError(assertion, keys, tokenUri)
            : 'Invalid grant_type';
        if (problem)
          return void res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'invalid_grant', error_description: problem }));
        const lifetime = options.tokenLifetimeSeconds ?? 3600;
        const token = `ya29.fake-${randomBytes(16).toString('hex')}`;
        tokens.set(token, Date.now() + lifetime * 1000);
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: token, expires_in: lifetime, token_type: 'Bearer' }));
      }
      requests.push({ path: `${url.pathname}${url.search}`, headers: req.headers, body: raw });
      const match =
        /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens|predict|rawPredict|streamRawPredict)$/.exec(
          url.pathname,
        );
      if (req.method !== 'POST' || !match)
        return rpcError(res, 404, 'NOT_FOUND', 'The requested URL was not found on this server.');
      const [, , project, location, publisher, encodedModel, method] = match as unknown as string[];
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const expiry = bearer === undefined ? undefined : tokens.get(bearer);
      const model = decodeURIComponent(encodedModel ?? '');
      if (expiry === undefined || expiry <= Date.now() || model.startsWith('unauthenticated'))
        return rpcError(
          res,
          401,
          'UNAUTHENTICATED',
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        );
      if (
        decodeURIComponent(project ?? '') !== options.project ||
        decodeURIComponent(location ?? '') !== options.location
      )
        return rpcError(
          res,
          403,
          'PERMISSION_DENIED',
          `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}/publishers/${publisher}/models/${model}' (or it may not exist).`,
        );
      const forward = options.forwardTo === undefined ? undefined : forwarder(options.forwardTo, res);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return rpcError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      }
      if (publisher === 'google') {
        if (method === 'rawPredict' || method === 'streamRawPredict')
          return rpcError(res, 400, 'FAILED_PRECONDITION', 'rawPredict is not supported for Gemini models.');
        if (method === 'predict') return answerEmbeddings(res, model, body);
        return answerGemini(res, url.pathname, model, method ?? '', url, body, forward);
      }
      if (method !== 'rawPredict' && method !== 'streamRawPredict')
        return rpcError(res, 400, 'INVALID_ARGUMENT', `${method ?? ''} is not supported for this model.`);
      return answerClaude(res, model, method, body, forward);
    })().catch(() => rpcError(res, 500, 'INTERNAL', 'Internal error encountered.'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  tokenUri = `${origin}/token`;
  return {
    origin,
    tokenUri,
    register: (key) => void keys.set(key.email, key.publicKey),
    requests,
    grants,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

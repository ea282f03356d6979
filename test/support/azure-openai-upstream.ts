/**
 * A fake Azure OpenAI resource and a fake Microsoft Entra ID tenant for tests.
 *
 * The resource (plain HTTP on 127.0.0.1) serves the two surfaces of Azure OpenAI:
 * - v1 (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/api-version-lifecycle):
 *   `POST /openai/v1/chat/completions` and `POST /openai/v1/responses`, the deployment as the
 *   body's `model`, no `api-version` needed (`v1` and `preview` accepted, others refused);
 * - dated (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference and
 *   https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference-preview):
 *   `POST /openai/deployments/{deployment}/chat/completions?api-version=…` and
 *   `POST /openai/responses?api-version=…` (deployment as `model`). A missing `api-version` is
 *   answered 404 `Resource not found` and an unknown one 400 `API version not supported`, as Azure
 *   does.
 * Credentials (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference,
 * "Authentication"): the `api-key` header, or `Authorization: Bearer` with a token this fake's
 * Entra tenant issued and that has not expired (the v1 surface also takes the key as a bearer
 * token, as the OpenAI client sends it); anything else is answered 401 in Azure's words.
 * The deployment name picks the answer: `text`, `tool-call`, `reasoning` replay
 * test/fixtures/upstream/openai-chat|openai-responses byte for byte — Chat streams preceded by
 * Azure's prompt-annotation chunk (`choices: []`, `prompt_filter_results`;
 * https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter,
 * "Streaming") —; `content-filter` answers Azure's 400 `content_filter` refusal; `filtered`
 * answers a completion cut by the filter (`finish_reason: content_filter`); other names
 * answer 404 `DeploymentNotFound`. Bodies pass the OpenAI request rules
 * (gateway/mock/strict-request-rules.ts) first.
 *
 * The tenant (HTTPS with a throwaway certificate, as MSAL accepts only `https:` authorities)
 * serves the OpenID metadata `GET /{tenant}/v2.0/.well-known/openid-configuration` and the
 * client credentials grant `POST /{tenant}/oauth2/v2.0/token`
 * (https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-client-creds-grant-flow):
 * it checks the client id, secret and `scope=https://cognitiveservices.azure.com/.default`, and
 * answers errors as Entra does (`invalid_client` AADSTS7000215, `invalid_scope`).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import { refuseLikeProvider } from '../../gateway/mock/strict-request-rules.ts';
import { fixturePath } from './fixture-upstream.ts';
import { selfSignedCertificate } from './self-signed-certificate.ts';

/** What the fake accepts. */
export interface AzureOpenAiFakeOptions {
  /** The resource key (`api-key`). */
  readonly apiKey: string;
  /** The Entra tenant, application and its client secret. */
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Lifetime of issued tokens, s (default 3600). */
  readonly tokenLifetimeSeconds?: number;
  /** `api-version` values of the dated surface (default 2024-10-21 and 2025-04-01-preview). */
  readonly apiVersions?: readonly string[];
}

/** One call the resource received. */
export interface AzureRecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A running fake resource and tenant. */
export interface AzureOpenAiFake {
  /** The resource endpoint, `http://127.0.0.1:PORT` (a channel's baseUrl). */
  readonly endpoint: string;
  /** The tenant's authority host, `https://127.0.0.1:PORT`. */
  readonly authorityHost: string;
  /** The PEM certificate of the tenant's host (trust it to reach the authority). */
  readonly ca: string;
  readonly requests: AzureRecordedRequest[];
  /** Token requests the tenant answered (successful or not). */
  readonly tokenRequests: Array<Record<string, string>>;
  close(): Promise<void>;
}

const DEFAULT_API_VERSIONS = ['2024-10-21', '2025-04-01-preview'];
const AZURE_SCOPE = 'https://cognitiveservices.azure.com/.default';
const REPLAYED = new Set(['text', 'tool-call', 'reasoning']);

/** Azure's error envelope, `{"error":{"code","message"}}` (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference). */
function azureError(res: ServerResponse, status: number, code: string, message: string, headers = {}): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ error: { code, message } }));
}

/** Azure's prompt rating on each answer (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter). */
const SAFE = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

const PROMPT_ANNOTATION_CHUNK = `data: ${JSON.stringify({
  choices: [],
  created: 0,
  id: '',
  model: '',
  object: '',
  prompt_filter_results: [{ prompt_index: 0, content_filter_results: SAFE }],
})}\n\n`;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Issued tokens and their expiry (ms since epoch). */
type TokenBook = Map<string, number>;

/** The 401 Azure answers a missing or wrong credential with, or undefined when the call may go on. */
function refuseCredential(
  req: IncomingMessage,
  res: ServerResponse,
  options: AzureOpenAiFakeOptions,
  tokens: TokenBook,
  v1: boolean,
): boolean {
  const key = req.headers['api-key'];
  if (typeof key === 'string') {
    if (key === options.apiKey) return false;
    azureError(
      res,
      401,
      '401',
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    );
    return true;
  }
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) {
    const expiry = tokens.get(bearer);
    if ((expiry !== undefined && expiry > Date.now()) || (v1 && bearer === options.apiKey)) return false;
  }
  azureError(
    res,
    401,
    '401',
    'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.',
  );
  return true;
}

/** Replays the fixture of `deployment` for `protocol`, or answers the special deployments. */
function answerDeployment(
  res: ServerResponse,
  protocol: 'openai-chat' | 'openai-responses',
  deployment: string,
  stream: boolean,
): void {
  if (deployment === 'content-filter') {
    res.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        error: {
          message:
            "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
          type: null,
          param: 'prompt',
          code: 'content_filter',
          status: 400,
          innererror: {
            code: 'ResponsibleAIPolicyViolation',
            content_filter_result: { ...SAFE, violence: { filtered: true, severity: 'high' } },
          },
        },
      }),
    );
    return;
  }
  if (deployment === 'filtered' && protocol === 'openai-chat') {
    const completion = {
      id: 'chatcmpl-azure-filtered',
      object: 'chat.completion',
      created: 1755500000,
      model: 'gpt-4o-2024-11-20',
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: SAFE }],
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'It began', refusal: null },
          finish_reason: 'content_filter',
          content_filter_results: { ...SAFE, violence: { filtered: true, severity: 'medium' } },
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    };
    if (!stream) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    const chunk = (choices: unknown[], usage: unknown = null) =>
      `data: ${JSON.stringify({ id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model, choices, usage })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      PROMPT_ANNOTATION_CHUNK +
        chunk([{ index: 0, delta: { role: 'assistant', content: 'It began' }, finish_reason: null }]) +
        chunk([{ index: 0, delta: {}, finish_reason: 'content_filter' }]) +
        chunk([], completion.usage) +
        'data: [DONE]\n\n',
    );
    return;
  }
  const file = REPLAYED.has(deployment) ? fixturePath(protocol, deployment, stream ? 'sse' : 'json') : undefined;
  if (!file)
    return azureError(
      res,
      404,
      'DeploymentNotFound',
      'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
    );
  res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
  if (stream && protocol === 'openai-chat') res.write(PROMPT_ANNOTATION_CHUNK);
  res.end(readFileSync(file));
}

async function serveResource(
  req: IncomingMessage,
  res: ServerResponse,
  options: AzureOpenAiFakeOptions,
  tokens: TokenBook,
  requests: AzureRecordedRequest[],
): Promise<void> {
  const body = await readBody(req);
  const url = new URL(req.url ?? '/', 'http://fake');
  requests.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, headers: req.headers, body });
  const v1 = /^\/openai\/v1\/(chat\/completions|responses)$/.exec(url.pathname);
  const dated = /^\/openai\/(?:deployments\/([^/]+)\/(chat\/completions)|(responses))$/.exec(url.pathname);
  if (req.method !== 'POST' || (!v1 && !dated)) return azureError(res, 404, '404', 'Resource not found');
  const version = url.searchParams.get('api-version');
  if (v1) {
    if (version !== null && version !== 'v1' && version !== 'preview')
      return azureError(res, 400, 'BadRequest', 'API version not supported');
  } else {
    if (version === null) return azureError(res, 404, '404', 'Resource not found');
    if (!(options.apiVersions ?? DEFAULT_API_VERSIONS).includes(version))
      return azureError(res, 400, 'BadRequest', 'API version not supported');
  }
  if (refuseCredential(req, res, options, tokens, v1 !== null)) return;
  const protocol = (v1?.[1] ?? dated?.[2] ?? dated?.[3]) === 'responses' ? 'openai-responses' : 'openai-chat';
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return azureError(res, 400, 'BadRequest', 'The request body is not valid JSON.');
  }
  const refusal = refuseLikeProvider(protocol, protocol === 'openai-chat' ? '/chat/completions' : '/responses', parsed);
  if (refusal) return void res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
  const deployment = dated?.[1] ? decodeURIComponent(dated[1]) : typeof parsed.model === 'string' ? parsed.model : '';
  answerDeployment(res, protocol, deployment, parsed.stream === true);
}

/** Entra's OAuth error body (https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-client-creds-grant-flow#error-response). */
function entraError(res: ServerResponse, status: number, error: string, description: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      error,
      error_description: description,
      error_codes: [Number(/AADSTS(\d+)/.exec(description)?.[1] ?? 0)],
      timestamp: new Date().toISOString(),
      trace_id: '00000000-0000-0000-0000-000000000000',
      correlation_id: '00000000-0000-0000-0000-000000000000',
    }),
  );
}

async function serveTenant(
  req: IncomingMessage,
  res: ServerResponse,
  options: AzureOpenAiFakeOptions,
  tokens: TokenBook,
  tokenRequests: Array<Record<string, string>>,
  authority: () => string,
): Promise<void> {
  const body = await readBody(req);
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const tenant = options.tenantId;
  if (req.method === 'GET' && path === `/${tenant}/v2.0/.well-known/openid-configuration`) {
    const base = `${authority()}/${tenant}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        token_endpoint: `${base}/oauth2/v2.0/token`,
        token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
        jwks_uri: `${base}/discovery/v2.0/keys`,
        response_modes_supported: ['query', 'fragment', 'form_post'],
        subject_types_supported: ['pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
        issuer: `${base}/v2.0`,
        request_uri_parameter_supported: false,
        authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
        device_authorization_endpoint: `${base}/oauth2/v2.0/devicecode`,
        http_logout_supported: true,
        frontchannel_logout_supported: true,
        end_session_endpoint: `${base}/oauth2/v2.0/logout`,
        claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'nonce', 'tid'],
        tenant_region_scope: 'EU',
        cloud_instance_name: 'microsoftonline.com',
      }),
    );
    return;
  }
  if (req.method !== 'POST' || path !== `/${tenant}/oauth2/v2.0/token`)
    return entraError(res, 404, 'invalid_request', `AADSTS90002: Tenant '${path.split('/')[1] ?? ''}' not found.`);
  const form = Object.fromEntries(new URLSearchParams(body));
  tokenRequests.push(form);
  if (form.grant_type !== 'client_credentials')
    return entraError(res, 400, 'unsupported_grant_type', 'AADSTS70003: The app requested an unsupported grant type.');
  if (form.client_id !== options.clientId)
    return entraError(
      res,
      400,
      'unauthorized_client',
      `AADSTS700016: Application with identifier '${form.client_id ?? ''}' was not found in the directory.`,
    );
  if (form.client_secret !== options.clientSecret)
    return entraError(
      res,
      401,
      'invalid_client',
      `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${options.clientId}'.`,
    );
  if (form.scope !== AZURE_SCOPE)
    return entraError(
      res,
      400,
      'invalid_scope',
      `AADSTS1002012: The provided value for scope ${form.scope ?? ''} is not valid.`,
    );
  const lifetime = options.tokenLifetimeSeconds ?? 3600;
  const token = `fake-entra-${randomBytes(12).toString('hex')}`;
  tokens.set(token, Date.now() + lifetime * 1000);
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ token_type: 'Bearer', expires_in: lifetime, ext_expires_in: lifetime, access_token: token }));
}

/** Starts the fake resource (HTTP) and tenant (HTTPS) on 127.0.0.1, each on a port of its own choosing. */
export async function startAzureOpenAiFake(options: AzureOpenAiFakeOptions): Promise<AzureOpenAiFake> {
  const tokens: TokenBook = new Map();
  const requests: AzureRecordedRequest[] = [];
  const tokenRequests: Array<Record<string, string>> = [];
  const tls = selfSignedCertificate();
  let authorityHost = '';
  const resource: Server = createServer((req, res) => {
    serveResource(req, res, options, tokens, requests).catch(() => azureError(res, 500, '500', 'Internal error'));
  });
  const tenant: HttpsServer = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    serveTenant(req, res, options, tokens, tokenRequests, () => authorityHost).catch(() =>
      entraError(res, 500, 'server_error', 'AADSTS90000: internal error'),
    );
  });
  await new Promise<void>((resolve) => resource.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => tenant.listen(0, '127.0.0.1', resolve));
  authorityHost = `https://127.0.0.1:${(tenant.address() as { port: number }).port}`;
  const close = (server: Server | HttpsServer) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    endpoint: `http://127.0.0.1:${(resource.address() as { port: number }).port}`,
    authorityHost,
    ca: tls.cert,
    requests,
    tokenRequests,
    close: async () => {
      await Promise.all([close(resource), close(tenant)]);
    },
  };
}

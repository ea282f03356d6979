/**
 * The mock provider's upstream: a Fastify server that speaks all four wire formats as a provider
 * would (OpenAI Chat and Responses under `/v1`, Anthropic Messages under `/v1/messages`, Gemini
 * under `/v1beta/models/…`), answering with `generateMockResponse`. It reuses the inbound codecs,
 * which render exactly what official SDKs accept — so the mock is also a faithful upstream.
 * Behaviour comes from the path prefix `/b/<behaviour>` (gateway/providers/mock-endpoint.ts) and prompt directives.
 * It also compacts a Responses conversation as OpenAI's `POST /v1/responses/compact` does
 * (mock-compaction.ts).
 * The inbound codecs tolerate unknown fields, so before decoding, a request the real API would
 * refuse — an unknown top-level field or an orphan tool result — is refused with that API's 400
 * (strict-request-rules.ts).
 * Every answer names itself with an `x-request-id: mockreq_…` header, as OpenAI's API does
 * (https://platform.openai.com/docs/api-reference/debugging-requests).
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GatewayError } from '../canonical/gateway-error.ts';
import { generateId } from '../canonical/ids.ts';
import { responseToStreamEvents } from '../canonical/response-to-stream.ts';
import { anthropicMessagesCodec } from '../inbound/anthropic-messages/anthropic-messages-codec.ts';
import { geminiCodec } from '../inbound/gemini/gemini-codec.ts';
import type { DecodeHints, EncodeContext, InboundCodec } from '../inbound/inbound-codec.ts';
import { openaiChatCodec } from '../inbound/openai-chat/openai-chat-codec.ts';
import { openaiResponsesCodec } from '../inbound/openai-responses/openai-responses-codec.ts';
import { estimateInputTokens } from '../tokenize/estimate-tokens.ts';
import { decodeMockBehaviour, MOCK_BEHAVIOUR_ROUTE_PREFIX, type MockBehaviour } from '../providers/mock-endpoint.ts';
import { generateMockCompaction } from './mock-compaction.ts';
import { generateMockResponse, parseMockDirectives } from './mock-model.ts';
import { refuseLikeProviderAt } from './strict-request-rules.ts';

const sleep = (ms: number): Promise<void> =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

function behaviourOf(request: FastifyRequest): MockBehaviour {
  return decodeMockBehaviour((request.params as { behaviour?: string }).behaviour);
}

async function serveGeneration(
  codec: InboundCodec,
  request: FastifyRequest,
  reply: FastifyReply,
  hints: DecodeHints,
): Promise<void> {
  const behaviour = behaviourOf(request);
  const decoded = codec.decodeRequest(request.body, hints);
  if (!decoded.ok)
    return sendError(
      codec,
      reply,
      new GatewayError('invalid-request', decoded.message, decoded.param === undefined ? {} : { param: decoded.param }),
    );
  const canonical = decoded.value;
  const directives = parseMockDirectives(canonical);
  await sleep(behaviour.latencyMs);
  const failStatus = directives.failStatus ?? behaviour.failStatus;
  if (failStatus !== undefined) return sendError(codec, reply, mockFailure(failStatus));
  const response = generateMockResponse(canonical, canonical.model);
  const context: EncodeContext = {
    requestId: generateId('req_'),
    model: canonical.model,
    request: canonical,
    rawRequest: request.body as Record<string, unknown>,
    createdAt: Math.floor(Date.now() / 1000),
  };
  const upstreamRequestId = generateId('mockreq_');
  if (!canonical.stream)
    return void reply
      .header('x-request-id', upstreamRequestId)
      .type('application/json')
      .send(JSON.stringify(codec.encodeResponse(response, context)));
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-request-id': upstreamRequestId,
  });
  const encoder = codec.createStreamEncoder(context);
  const delay = directives.slowMs ?? behaviour.chunkDelayMs;
  for (const event of responseToStreamEvents(response, 12)) {
    if (reply.raw.destroyed) return;
    const frame = encoder.encode(event);
    if (frame === '') continue;
    await sleep(delay);
    reply.raw.write(frame);
  }
  reply.raw.end();
}

/**
 * `POST /v1/responses/compact` (https://platform.openai.com/docs/api-reference/responses/compact):
 * `model` is required and `input` holds the conversation (decoded as a Responses create `input`;
 * the mock keeps no responses, so a request with only `previous_response_id` and no `input` is a
 * 400). Answers the compacted response object (mock-compaction.ts), never streamed; obeys the
 * channel behaviour's latency and failure and the prompt's `[mock:fail=NNN]`.
 */
async function serveCompaction(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const behaviour = behaviourOf(request);
  const body =
    typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body)
      ? (request.body as Record<string, unknown>)
      : {};
  if (typeof body.model !== 'string' || body.model === '')
    return sendError(
      openaiResponsesCodec,
      reply,
      new GatewayError('invalid-request', "Missing required parameter: 'model'.", { param: 'model' }),
    );
  const conversation: Record<string, unknown> = { model: body.model, input: body.input };
  if (typeof body.instructions === 'string') conversation.instructions = body.instructions;
  const decoded = openaiResponsesCodec.decodeRequest(conversation, {});
  if (!decoded.ok)
    return sendError(
      openaiResponsesCodec,
      reply,
      new GatewayError('invalid-request', decoded.message, decoded.param === undefined ? {} : { param: decoded.param }),
    );
  await sleep(behaviour.latencyMs);
  const failStatus = parseMockDirectives(decoded.value).failStatus ?? behaviour.failStatus;
  if (failStatus !== undefined) return sendError(openaiResponsesCodec, reply, mockFailure(failStatus));
  const compacted = generateMockCompaction(body.input, decoded.value, Math.floor(Date.now() / 1000));
  void reply.header('x-request-id', generateId('mockreq_')).type('application/json').send(JSON.stringify(compacted));
}

function mockFailure(status: number): GatewayError {
  const kind =
    status === 429
      ? 'rate-limited'
      : status === 504 || status === 408
        ? 'upstream-timeout'
        : status >= 500
          ? 'internal'
          : 'invalid-request';
  return new GatewayError(kind, `Mock failure with status ${status}`, { status });
}

function sendError(codec: InboundCodec, reply: FastifyReply, error: GatewayError): void {
  const encoded = codec.encodeError(error);
  void reply.code(encoded.status).type('application/json').send(JSON.stringify(encoded.body));
}

function serveCountTokens(codec: InboundCodec, request: FastifyRequest, reply: FastifyReply, hints: DecodeHints): void {
  const decoded = codec.decodeCountTokensRequest?.(request.body, hints);
  if (!decoded || !decoded.ok)
    return sendError(codec, reply, new GatewayError('invalid-request', decoded?.message ?? 'count not supported'));
  void reply.send(codec.encodeCountTokensResponse?.(estimateInputTokens(decoded.value)));
}

async function routes(app: FastifyInstance): Promise<void> {
  app.addHook('preHandler', async (request, reply) => {
    const refusal = refuseLikeProviderAt(request.url, request.body);
    if (refusal)
      return reply
        .code(refusal.status)
        .header('x-request-id', generateId('mockreq_'))
        .type('application/json')
        .send(refusal.body);
  });
  app.post('/v1/chat/completions', (req, reply) => serveGeneration(openaiChatCodec, req, reply, {}));
  app.post('/v1/responses', (req, reply) => serveGeneration(openaiResponsesCodec, req, reply, {}));
  app.post('/v1/responses/compact', (req, reply) => serveCompaction(req, reply));
  app.post('/v1/messages', (req, reply) => serveGeneration(anthropicMessagesCodec, req, reply, {}));
  app.post('/v1/messages/count_tokens', (req, reply) => serveCountTokens(anthropicMessagesCodec, req, reply, {}));
  app.post('/v1beta/models/*', async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    const at = path.lastIndexOf(':');
    const model = path.slice(0, at).replace(/^models\//, '');
    const action = path.slice(at + 1);
    if (action === 'countTokens') return serveCountTokens(geminiCodec, req, reply, { model });
    if (action !== 'generateContent' && action !== 'streamGenerateContent')
      return sendError(geminiCodec, reply, new GatewayError('not-found', `Unknown action ${action}`));
    return serveGeneration(geminiCodec, req, reply, { model, stream: action === 'streamGenerateContent' });
  });
}

/** Builds the mock upstream (not listening). Accepts any credential. */
export async function buildMockUpstream(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024, forceCloseConnections: true });
  await app.register(routes);
  await app.register(routes, { prefix: MOCK_BEHAVIOUR_ROUTE_PREFIX });
  return app;
}

/** Starts the mock upstream on loopback; returns its base URL (`http://127.0.0.1:PORT`) and a closer. */
export async function startMockUpstream(port = 0): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const app = await buildMockUpstream();
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return { baseUrl: `http://127.0.0.1:${actualPort}`, close: () => app.close() };
}

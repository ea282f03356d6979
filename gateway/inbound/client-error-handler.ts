/**
 * Errors Fastify raises before a handler runs (malformed JSON, body over the limit, wrong
 * content type) and unknown routes, rendered in the client's own format: the route's codec when
 * the route is known, else a codec guessed from the path and headers.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../canonical/gateway-error.ts';
import { generateId } from '../canonical/ids.ts';
import { sendErrorReply } from '../exchange/client-response.ts';
import { anthropicMessagesCodec } from './anthropic-messages/anthropic-messages-codec.ts';
import { geminiCodec } from './gemini/gemini-codec.ts';
import type { InboundCodec } from './inbound-codec.ts';
import { openaiChatCodec } from './openai-chat/openai-chat-codec.ts';
import { openaiResponsesCodec } from './openai-responses/openai-responses-codec.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The codec that renders this route's errors. */
    codec?: InboundCodec;
  }
}

/** The codec a request most likely expects, from its route or its path and headers. */
export function codecForRequest(request: FastifyRequest): InboundCodec {
  const routed = request.routeOptions.config?.codec;
  if (routed) return routed;
  const url = request.url;
  if (url.startsWith('/v1beta/') || request.headers['x-goog-api-key'] !== undefined || /:(generateContent|streamGenerateContent|countTokens)/.test(url)) return geminiCodec;
  if (url.startsWith('/v1/messages') || request.headers['anthropic-version'] !== undefined) return anthropicMessagesCodec;
  if (url.startsWith('/v1/responses')) return openaiResponsesCodec;
  return openaiChatCodec;
}

/** Maps a Fastify/framework error to a GatewayError. */
export function classifyFrameworkError(error: FastifyError, bodyLimit: number): GatewayError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('request-too-large', `Request body is larger than the limit of ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('unsupported-media-type', 'Unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('invalid-request', 'The request body is empty: send a JSON object');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid-request', 'Content-Length does not match the body');
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new GatewayError('invalid-request', `Malformed JSON in request body: ${error.message}`);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new GatewayError('invalid-request', error.message, { status });
  return new GatewayError('internal', 'Internal gateway error');
}

/** Installs the error and not-found handlers on `app`. */
export function installClientErrorHandlers(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const gatewayError = classifyFrameworkError(error, bodyLimit);
    if (gatewayError.kind === 'internal') request.log.error({ err: error }, 'unhandled error');
    if (reply.sent || reply.raw.headersSent) return;
    sendErrorReply(reply, codecForRequest(request), gatewayError, generateId('req_'));
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    sendErrorReply(reply, codecForRequest(request), new GatewayError('not-found', `Unknown route: ${request.method} ${request.url.split('?')[0]}`), generateId('req_'));
  });
}

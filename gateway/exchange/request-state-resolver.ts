/**
 * The hook by which a client format resolves state the gateway keeps before a request is decoded
 * (OpenAI Responses: `previous_response_id` turns prepended to `input`, and the answer saved for
 * `store`). serve-generation.ts and serve-count-tokens.ts call it after authentication and before decoding.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { ClientAnswerHook } from './client-answer-hook.ts';

/** The body to decode and forward instead of the client's, and who watches the answer. */
export interface ResolvedRequestState {
  readonly body: Record<string, unknown>;
  /** Given to the exchange (ExchangeInput.answerHook); none: the answer is not kept. */
  readonly answerHook?: ClientAnswerHook;
}

/** Resolves a request's stored state. */
export interface RequestStateResolver {
  /**
   * Resolves to the body to use (the client's own when nothing is to be resolved) or to the
   * GatewayError to answer with (e.g. 400 `previous_response_not_found`). Never rejects.
   * `purpose`: `generate` (a create; may get an answer hook) or `count` (token counting; never does).
   */
  resolve(
    body: Record<string, unknown>,
    context: {
      readonly keyId: string;
      readonly requestId: string;
      readonly purpose: 'generate' | 'count';
      readonly log: FastifyBaseLogger;
    },
  ): Promise<ResolvedRequestState | GatewayError>;
}

/**
 * The request pipeline of an embedding request, the same steps as a generation's
 * (serve-generation.ts) through the shared admission-steps.ts: after the route's hooks refused a
 * draining node and resolved the caller's key, decode the body with the embedding codec, check the
 * key's and team's models, attribute, hold budgets, admit against quotas and RPM/TPM — TPM counts
 * the input tokens only (an embedding has no output) — run the exchange
 * (run-embedding-exchange.ts) and settle the reservations with the real input tokens.
 *
 * Recording: as for a generation, an accepted request produces exactly one ExchangeOutcome
 * (operation `embedding`), however it ends; refusals before acceptance are answered in the
 * client's format and not recorded. A budget at its limit whose `downgradeModel` would serve the
 * request refuses it instead: vectors of another model are not comparable with the caller's.
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import type { EmbeddingCodec, EmbeddingDecodeHints } from '../inbound/embedding-codec.ts';
import type { EmbeddingAdapters } from '../upstream/embedding-adapter.ts';
import {
  admitBudgetsOrReply,
  admitOrReply,
  attributeOrReply,
  modelAllowedOrReply,
  recordOnce,
  refuse,
  releaseHolds,
  settleAdmission,
  type AdmissionSubject,
  type ClientExchange,
  DOWNGRADED_FROM_HEADER,
} from './admission-steps.ts';
import { watchClientDeparture } from './client-departure.ts';
import { sendErrorReply } from './client-response.ts';
import type { ExchangeOutcome } from './exchange-outcome.ts';
import { countEmbeddingInputTokens } from './plan-embedding-calls.ts';
import { embeddingOutcomeOf, runEmbeddingExchange, type EmbeddingExchangeInput } from './run-embedding-exchange.ts';

/** One embedding request for serveEmbeddings: the route's client exchange (its `codec` renders errors) and the embedding API. */
export interface EmbeddingClientRequest extends ClientExchange {
  /** Decodes the body and encodes the answer (OpenAI embeddings, Gemini embedContent / batchEmbedContents). */
  readonly embeddingCodec: EmbeddingCodec;
  /** What the route knows outside the body (Gemini: the model of the path). */
  readonly hints?: EmbeddingDecodeHints;
  /** The node's embedding adapters by style. */
  readonly embeddingAdapters: EmbeddingAdapters;
}

/**
 * Decodes and serves one embedding request of the authenticated `client.key`, recorded exactly
 * once when accepted (module doc). Never rejects for bad input: every refusal is answered in the
 * client's format.
 */
export async function serveEmbeddings(client: EmbeddingClientRequest): Promise<void> {
  const { services, codec, key: resolved, request, reply } = client;
  const requestId = request.id;
  const startedAt = Date.now();
  const drain = services.drain;
  drain?.enter();
  const departure = watchClientDeparture(request, reply);
  try {
    const decoded = client.embeddingCodec.decodeRequest(request.body, client.hints ?? {});
    if (!decoded.ok) {
      const error = new GatewayError('invalid-request', decoded.message, {
        ...(decoded.param === undefined ? {} : { param: decoded.param }),
      });
      return void sendErrorReply(reply, codec, error, requestId);
    }
    if (decoded.warnings && decoded.warnings.length > 0)
      request.log.warn({ warnings: decoded.warnings }, 'dropped request parts that are safe to lose');
    const embedding = decoded.value;
    if (!modelAllowedOrReply(client, embedding.model)) return;
    const team = resolved.team;
    const attribution = attributeOrReply(client, { clientFormat: embedding.clientFormat, user: embedding.user });
    if (!attribution) return;
    const inputTokenCounts = countEmbeddingInputTokens(embedding.inputs);
    const inputTokens = inputTokenCounts.reduce((sum, n) => sum + n, 0);
    const subject: AdmissionSubject = { model: embedding.model, inputTokens: () => inputTokens, maxOutputTokens: 0 };
    const budgets = services.budgets;
    const budgetPass = budgets
      ? await admitBudgetsOrReply(client, budgets, team, subject, attribution)
      : { holds: undefined };
    if (!budgetPass) return;
    const holds = budgetPass.holds;
    if (holds?.downgradedFrom) {
      if (budgets) releaseHolds(client, budgets, holds);
      void reply.removeHeader(DOWNGRADED_FROM_HEADER);
      const error = new GatewayError(
        'quota-exceeded',
        `A budget of this request is at its limit; its downgrade model '${holds.model}' does not serve embeddings of '${embedding.model}' (vectors of two models are not comparable)`,
        { code: 'budget_exceeded', retryable: false },
      );
      return refuse(services, codec, reply, error, 'budget', requestId);
    }
    const admitted = await admitOrReply(services, codec, resolved, team, subject, request, reply, requestId);
    if (!admitted) return void (budgets && releaseHolds(client, budgets, holds));
    const input: EmbeddingExchangeInput = {
      requestId,
      errorCodec: codec,
      codec: client.embeddingCodec,
      request: embedding,
      inputTokenCounts,
      startedAt,
      identity: { keyId: resolved.key.keyId, userId: resolved.key.userId },
      attribution,
      ...(holds ? { budgetCounters: holds.counters } : {}),
      clientGone: departure.signal,
    };
    const deps = { ...services.exchange, embeddingAdapters: client.embeddingAdapters };
    const target = {
      requestId,
      reply,
      codec,
      clientGone: departure.signal,
      failedOutcome: (end: Pick<ExchangeOutcome, 'status' | 'httpStatus' | 'errorKind' | 'errorMessage'>) =>
        embeddingOutcomeOf(input, { ...end, passThrough: false, attempts: 0, failovers: [] }),
    };
    const outcome = await recordOnce(deps, target, (onOutcome) =>
      runEmbeddingExchange({ ...deps, onOutcome }, input, reply),
    );
    await settleAdmission(services, request.log, admitted, { budgets, holds }, outcome);
  } finally {
    departure.stop();
    drain?.leave();
  }
}

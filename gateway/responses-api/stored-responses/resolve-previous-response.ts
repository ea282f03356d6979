/**
 * Resolves a Responses create's stored state before decoding (https://platform.openai.com/docs/api-reference/responses/create):
 * - `previous_response_id`: the chain is loaded (the key's own records only) and each earlier
 *   turn's input items then its output items, oldest first, are prepended to `input`
 *   (https://platform.openai.com/docs/guides/conversation-state#passing-context-from-the-previous-response).
 *   `instructions` are not inherited (the API resends none). The id stays in the body so that the
 *   Response object echoes it; the pass-through body leaves it out (the upstream does not know
 *   the gateway's ids). Unknown, expired, deleted and other keys' ids — or a chain with a turn
 *   that is gone — are refused as the API refuses them: 400 `previous_response_not_found`.
 * - `store` (default true): the answer hook that saves the answer (stored-response-capture.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import {
  isValidResponseId,
  type ResponseStore,
  type StoredResponse,
} from '../../../schemas/state-store/response-store.ts';
import { isStateStoreUnavailable } from '../../../schemas/state-store/state-store-unavailable.ts';
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { ClientAnswerHook } from '../../exchange/client-answer-hook.ts';
import type { RequestStateResolver, ResolvedRequestState } from '../../exchange/request-state-resolver.ts';
import { normalizeInputItems, replayInputItem } from './normalize-input-items.ts';
import { createStoredResponseCapture } from './stored-response-capture.ts';

/** The API's answer to an unknown previous response (400, `param` and `code` as OpenAI sends them). */
export function previousResponseNotFound(id: string): GatewayError {
  return new GatewayError('invalid-request', `Previous response with id '${id}' not found.`, {
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  });
}

/** The answer while the store cannot be reached: 503, retryable. */
export function responseStoreUnavailable(): GatewayError {
  return new GatewayError(
    'internal',
    'Stored responses are unavailable right now; retry later, or send the whole conversation as input without previous_response_id.',
    { status: 503, retryable: true },
  );
}

/** A stored turn as input items: its input items (replay form), then its output items. */
export function turnItems(record: StoredResponse): Array<Record<string, unknown>> {
  const output = Array.isArray(record.response.output)
    ? record.response.output.filter(
        (item): item is Record<string, unknown> => typeof item === 'object' && item !== null,
      )
    : [];
  return [...record.inputItems.map(replayInputItem), ...output.map((item) => ({ ...item }))];
}

/**
 * Loads the chain ending at `id`, oldest first. Undefined when `id` or any earlier turn is
 * unknown for `keyId`. Rejects when the store fails.
 */
export async function loadChain(
  store: ResponseStore,
  keyId: string,
  id: string,
): Promise<StoredResponse[] | undefined> {
  const last = await store.get(keyId, id);
  if (!last) return undefined;
  const earlier = await store.getMany(keyId, last.ancestorIds);
  if (earlier.some((record) => record === undefined)) return undefined;
  return [...(earlier as StoredResponse[]), last];
}

/**
 * The request's own input as items to append after the history: a string becomes one user
 * message, no input at all adds nothing (the model answers the history); undefined when `input`
 * is malformed (left for the decoder to refuse).
 */
function currentInputItems(input: unknown): unknown[] | undefined {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (input === undefined || input === null) return [];
  return Array.isArray(input) ? input : undefined;
}

/** The Responses resolver over `store` (none: nothing is stored and every previous id is unknown). */
export function createStoredResponsesResolver(store: ResponseStore | undefined): RequestStateResolver {
  return {
    async resolve(body, context): Promise<ResolvedRequestState | GatewayError> {
      const previous = body.previous_response_id;
      if (previous !== undefined && previous !== null && typeof previous !== 'string') {
        return new GatewayError('invalid-request', 'Invalid type for previous_response_id: expected a string.', {
          param: 'previous_response_id',
          code: 'invalid_type',
        });
      }
      const previousId = typeof previous === 'string' && previous !== '' ? previous : null;
      let chain: StoredResponse[] = [];
      if (previousId !== null) {
        if (!store || !isValidResponseId(previousId)) return previousResponseNotFound(previousId);
        try {
          const loaded = await loadChain(store, context.keyId, previousId);
          if (!loaded) return previousResponseNotFound(previousId);
          chain = loaded;
        } catch (error) {
          // A store outage is logged once by the store itself (per transition), not per request.
          context.log[isStateStoreUnavailable(error) ? 'debug' : 'warn'](
            { requestId: context.requestId, reason: (error as Error).message },
            'response store unavailable',
          );
          return responseStoreUnavailable();
        }
      }
      const current = currentInputItems(body.input);
      const resolved =
        chain.length > 0 && current ? { ...body, input: [...chain.flatMap(turnItems), ...current] } : body;
      // Nothing to save and nothing to echo: no hook, so pass-through stays a raw byte copy.
      if (context.purpose === 'count' || !store || (body.store === false && previousId === null))
        return { body: resolved };
      return { body: resolved, answerHook: captureFor(store, body, previousId, chain, context) };
    },
  };
}

/** The answer hook of one create: saves it (unless `store: false`) as the chain's next turn. */
function captureFor(
  store: ResponseStore,
  body: Record<string, unknown>,
  previousId: string | null,
  chain: StoredResponse[],
  context: { keyId: string; requestId: string; log: FastifyBaseLogger },
): ClientAnswerHook {
  const last = chain.at(-1);
  return createStoredResponseCapture(
    store,
    {
      requestId: context.requestId,
      keyId: context.keyId,
      previousResponseId: previousId,
      ancestorIds: last ? [...last.ancestorIds, last.id] : [],
      inputItems: body.store === false ? [] : normalizeInputItems(body.input),
      store: body.store !== false,
    },
    context.log,
  );
}

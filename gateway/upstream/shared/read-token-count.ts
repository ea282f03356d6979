/**
 * The one number a token-counting endpoint answers with: Anthropic's `input_tokens` from
 * `POST /v1/messages/count_tokens` (https://docs.anthropic.com/en/api/messages-count-tokens), Gemini's
 * `totalTokens` from `models/{model}:countTokens` (https://ai.google.dev/api/tokens).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { asNumber, asRecord } from './read-json-field.ts';

/**
 * Reads the token count (tokens, rounded down) at `field` of a count answer `body` (already
 * JSON-parsed); `answerName` names the answer in the error. Throws
 * GatewayError('upstream-malformed') when the body is not an object or the field is not a finite,
 * non-negative number.
 */
export function readTokenCount(body: unknown, field: string, answerName: string): number {
  const count = asNumber(asRecord(body)?.[field]);
  if (count === undefined || count < 0)
    throw new GatewayError('upstream-malformed', `Upstream ${answerName} answer has no numeric ${field}`);
  return Math.floor(count);
}

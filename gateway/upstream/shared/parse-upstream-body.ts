/**
 * Validation of a whole non-streamed upstream answer against the zod schema of its protocol
 * (https://zod.dev/basics#handling-errors), for the adapters whose schemas are strict enough to
 * fail (Anthropic Messages, Gemini); the OpenAI adapters read leniently instead
 * (lenient-wire-schemas.ts).
 */
import type { z } from 'zod';
import { GatewayError } from '../../canonical/gateway-error.ts';

/**
 * Parses the JSON-parsed `body` with `schema` and returns the parsed value. `answerName` names
 * what the body should have been (e.g. "Anthropic message"). Throws
 * GatewayError('upstream-malformed') with zod's message when the body does not fit.
 */
export function parseUpstreamBody<S extends z.ZodType>(schema: S, body: unknown, answerName: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new GatewayError(
      'upstream-malformed',
      `Upstream answered with an unreadable ${answerName}: ${parsed.error.message}`,
    );
  return parsed.data;
}

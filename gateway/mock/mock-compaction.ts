/**
 * The mock upstream's answer to `POST /v1/responses/compact`, shaped as OpenAI's API answers it
 * (https://platform.openai.com/docs/api-reference/responses/compact, "Returns": the compacted
 * response object `{id, object:"response.compaction", created_at, output, usage}`, whose `output`
 * is "a list of all user messages, followed by a single compaction item").
 *
 * OpenAI's compaction item carries an opaque, encrypted `encrypted_content` that only OpenAI can
 * read. The mock's is opaque too — `mockcmp1.` + base64url of `{"summary": …}` — and is never a
 * gateway seal, so the gateway treats it exactly as an upstream-minted item (it travels only when a
 * Responses request is passed through unchanged to an OpenAI Responses channel).
 */
import type { CanonicalRequest } from '../canonical/request.ts';
import { makeUsage } from '../canonical/usage.ts';
import {
  buildCompactedResponse,
  type CompactedResponseBody,
} from '../responses-api/compaction/build-compacted-response.ts';
import { countTextTokens, estimateInputTokens } from '../tokenize/estimate-tokens.ts';

/** Prefix of every `encrypted_content` the mock mints (followed by base64url JSON). */
export const MOCK_COMPACTION_PREFIX = 'mockcmp1.';

/**
 * The deterministic summary the mock "writes" of a conversation: the user turns' texts in order,
 * e.g. `Mock summary of 2 user turn(s): ["a","b"]`. Non-text parts (images, files, tool results)
 * are left out.
 */
export function mockCompactionSummary(request: CanonicalRequest): string {
  const texts = request.messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content.map((part) => (part.type === 'text' ? part.text : '')).join(''))
    .filter((text) => text !== '');
  return `Mock summary of ${texts.length} user turn(s): ${JSON.stringify(texts)}`;
}

/**
 * Reads the summary back out of a mock-minted `encrypted_content`; undefined when the text is not
 * one the mock minted (another prefix, bad base64url or JSON). Never throws.
 */
export function openMockCompaction(encryptedContent: string): string | undefined {
  if (!encryptedContent.startsWith(MOCK_COMPACTION_PREFIX)) return undefined;
  try {
    const parsed: unknown = JSON.parse(
      Buffer.from(encryptedContent.slice(MOCK_COMPACTION_PREFIX.length), 'base64url').toString('utf8'),
    );
    const summary =
      typeof parsed === 'object' && parsed !== null ? (parsed as { summary?: unknown }).summary : undefined;
    return typeof summary === 'string' ? summary : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The compacted response for a compact request.
 * - `input`: the request's raw `input` (a string or an item list); its user messages are kept, as
 *   `Message` items with `id` and `status: "completed"` (build-compacted-response.ts).
 * - `request`: the same conversation decoded as a Responses create request; it feeds the summary
 *   and the usage: input tokens as the mock counts a request, output tokens those of the summary
 *   (o200k tokenizer), no cached or reasoning tokens.
 * - `createdAt`: unix seconds.
 * Returns `{id:"resp_…", object:"response.compaction", created_at, output, usage}`; never throws.
 */
export function generateMockCompaction(
  input: unknown,
  request: CanonicalRequest,
  createdAt: number,
): CompactedResponseBody {
  const summary = mockCompactionSummary(request);
  const encryptedContent =
    MOCK_COMPACTION_PREFIX + Buffer.from(JSON.stringify({ summary }), 'utf8').toString('base64url');
  const usage = makeUsage({ inputTotal: estimateInputTokens(request), outputTotal: countTextTokens(summary) });
  return buildCompactedResponse({ input, encryptedContent, usage, createdAt });
}

/**
 * The OpenAI embeddings wire format (https://platform.openai.com/docs/api-reference/embeddings/create),
 * shared by the upstream styles that speak it at different URLs (OpenAI and the compatible
 * providers at `{baseUrl}/embeddings`, Azure OpenAI at its deployment or v1 paths): the request
 * body `{model, input, encoding_format: "float", dimensions?, user?}` and the answer
 * `{data: [{index, embedding}], usage: {prompt_tokens}}`.
 */
import { base64ToVector } from '../../canonical/embedding.ts';
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { EmbeddingCall, EmbeddingCallAnswer } from '../embedding-adapter.ts';
import type { UpstreamTarget } from '../upstream-adapter.ts';
import { embeddedOpenAiError } from './classify-openai-error.ts';
import { asArray, asNumber, asRecord } from './read-json-field.ts';

/**
 * The body of `call` for `target`: `input` always an array (of strings, or of token-id arrays),
 * `encoding_format: "float"`, the vector length in the preset's `dimensionsField` (default
 * `dimensions`), `user` when given. Gemini `taskType`/`title` have no field here and are dropped
 * (one note per input in `dropped`).
 */
export function openAiEmbeddingBody(
  call: EmbeddingCall,
  target: Pick<UpstreamTarget, 'upstreamModel' | 'provider'>,
): { readonly body: Record<string, unknown>; readonly dropped: string[] } {
  const dropped: string[] = [];
  const input = call.inputs.map((item, index) => {
    if (item.kind === 'tokens') return [...item.tokens];
    if (item.taskType !== undefined || item.title !== undefined)
      dropped.push(`requests.${index}: taskType and title (the OpenAI embeddings API has no field for them)`);
    return item.text;
  });
  const body: Record<string, unknown> = { model: target.upstreamModel, input, encoding_format: 'float' };
  if (call.dimensions !== undefined)
    body[target.provider.quirks.embeddings?.dimensionsField ?? 'dimensions'] = call.dimensions;
  if (call.user !== undefined) body.user = call.user;
  return { body, dropped };
}

/** A vector as the answer holds it: numbers, or a base64 float32 string. Undefined when it is neither. */
function readVector(value: unknown): number[] | undefined {
  if (typeof value === 'string') {
    try {
      return base64ToVector(value);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(value) || !value.every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  return value as number[];
}

/**
 * Decodes `{data: [{index, embedding}], usage: {prompt_tokens}}` into vectors ordered by `index`
 * and the reported input tokens (undefined when `usage.prompt_tokens` is missing).
 * @throws GatewayError classified from an error envelope sent with HTTP 200 (`{error}`, MiniMax
 *   `base_resp`); GatewayError('upstream-malformed') on a body without `data`, a vector that is
 *   neither numbers nor base64, a missing or repeated index, or another count than `inputCount`
 */
export function decodeOpenAiEmbeddingAnswer(body: unknown, inputCount: number): EmbeddingCallAnswer {
  const root = asRecord(body);
  const embedded = root ? embeddedOpenAiError(root) : undefined;
  if (embedded) throw embedded;
  if (!root || !Array.isArray(root.data))
    throw new GatewayError('upstream-malformed', 'Upstream answered an embeddings call without a `data` list');
  const vectors: Array<number[] | undefined> = new Array<number[] | undefined>(inputCount).fill(undefined);
  asArray(root.data).forEach((entry, position) => {
    const record = asRecord(entry);
    const index = asNumber(record?.index) ?? position;
    const vector = readVector(record?.embedding);
    if (!vector || !Number.isInteger(index) || index < 0 || index >= inputCount || vectors[index] !== undefined)
      throw new GatewayError('upstream-malformed', `Upstream answered an unreadable embedding at data.${position}`);
    vectors[index] = vector;
  });
  if (root.data.length !== inputCount || vectors.some((vector) => vector === undefined))
    throw new GatewayError(
      'upstream-malformed',
      `Upstream answered ${root.data.length} embeddings for ${inputCount} inputs`,
    );
  const promptTokens = asNumber(asRecord(root.usage)?.prompt_tokens);
  return {
    vectors: vectors as number[][],
    inputTokens: promptTokens === undefined ? undefined : Math.max(0, Math.floor(promptTokens)),
  };
}

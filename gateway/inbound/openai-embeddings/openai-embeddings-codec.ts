/**
 * The OpenAI embeddings client API, `POST /v1/embeddings`
 * (https://platform.openai.com/docs/api-reference/embeddings/create): `input` a string, an array
 * of strings, an array of token ids or an array of token-id arrays; `model`; `dimensions`;
 * `encoding_format` `float` (the API's default) or `base64` (what the openai JS SDK asks for when
 * its caller names none, and decodes as little-endian float32); `user`. Unknown fields are
 * tolerated and dropped, as the Chat codec does (logged as warnings).
 */
import { z } from 'zod';
import { vectorToBase64, type EmbeddingInput, type EmbeddingRequest } from '../../canonical/embedding.ts';
import type { DecodeResult } from '../../canonical/request.ts';
import type { EmbeddingCodec, EmbeddingEncodeContext } from '../embedding-codec.ts';
import type { EmbeddingAnswer } from '../../canonical/embedding.ts';
import {
  catchRequestFieldError,
  isJsonObject,
  parseAt,
  RequestFieldError,
} from '../openai-common/request-field-error.ts';

const tokenIds = z.array(z.number().int().nonnegative(), { error: 'expected an array of token ids' });

const embeddingsRequestSchema = z.object({
  model: z.string().min(1, 'must not be empty'),
  input: z.union([z.string(), z.array(z.unknown())], { error: 'expected string or array' }),
  dimensions: z.number().int().positive().nullish(),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  user: z.string().nullish(),
});

const KNOWN_FIELDS = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user']);

/**
 * The inputs of `input`: a string → one text; an array of strings → texts; an array of integers
 * → one token-id input; an array of integer arrays → token-id inputs.
 * @throws RequestFieldError naming `input` (empty array, empty string) or `input.N` (a mixed or bad item)
 */
function decodeInputs(input: string | unknown[]): EmbeddingInput[] {
  if (typeof input === 'string') {
    if (input === '') throw new RequestFieldError(['input'], 'must not be an empty string');
    return [{ kind: 'text', text: input }];
  }
  if (input.length === 0) throw new RequestFieldError(['input'], 'must not be an empty array');
  if (typeof input[0] === 'number') return [{ kind: 'tokens', tokens: parseAt(tokenIds, input, ['input']) }];
  return input.map((item, index): EmbeddingInput => {
    if (typeof item === 'string') {
      if (item === '') throw new RequestFieldError(['input', index], 'must not be an empty string');
      return { kind: 'text', text: item };
    }
    const tokens = parseAt(tokenIds, item, ['input', index]);
    if (tokens.length === 0) throw new RequestFieldError(['input', index], 'must not be an empty array');
    return { kind: 'tokens', tokens };
  });
}

/** Decodes a `/v1/embeddings` body; unknown top-level fields are dropped with a warning each. */
export function decodeOpenAiEmbeddingsRequest(body: unknown): DecodeResult<EmbeddingRequest> {
  return catchRequestFieldError(() => {
    if (!isJsonObject(body)) return { ok: false, message: 'The request body must be a JSON object' };
    const parsed = parseAt(embeddingsRequestSchema, body, []);
    const inputs = decodeInputs(parsed.input);
    const warnings = Object.keys(body)
      .filter((field) => !KNOWN_FIELDS.has(field))
      .map((field) => `${field}: not a field of the OpenAI embeddings API; dropped`);
    const request: EmbeddingRequest = {
      clientFormat: 'openai-chat',
      model: parsed.model,
      inputs,
      encoding: parsed.encoding_format ?? 'float',
      ...(parsed.dimensions == null ? {} : { dimensions: parsed.dimensions }),
      ...(parsed.user == null ? {} : { user: parsed.user }),
    };
    return { ok: true, value: request, ...(warnings.length > 0 ? { warnings } : {}) };
  });
}

/**
 * `{object: "list", data: [{object: "embedding", index, embedding}], model, usage: {prompt_tokens,
 * total_tokens}}`, each embedding numbers or, with `encoding_format: base64`, base64 of its
 * little-endian float32 bytes.
 */
export function encodeOpenAiEmbeddingsAnswer(answer: EmbeddingAnswer, context: EmbeddingEncodeContext): unknown {
  const base64 = context.request.encoding === 'base64';
  return {
    object: 'list',
    data: answer.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? vectorToBase64(vector) : vector,
    })),
    model: context.model,
    usage: { prompt_tokens: answer.inputTokens, total_tokens: answer.inputTokens },
  };
}

/** The OpenAI embeddings codec (format family `openai-chat`: the same envelope, errors and key reader). */
export const openaiEmbeddingsCodec: EmbeddingCodec = {
  format: 'openai-chat',
  decodeRequest: (body) => decodeOpenAiEmbeddingsRequest(body),
  encodeAnswer: encodeOpenAiEmbeddingsAnswer,
};

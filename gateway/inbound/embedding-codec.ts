/**
 * The inbound port of embedding requests: one codec per client embedding API (OpenAI
 * `POST /v1/embeddings`, Gemini `:embedContent` and `:batchEmbedContents`). Like InboundCodec it
 * sees no provider or channel; errors are rendered by the format's InboundCodec (its
 * `encodeError`), so a refusal has the same shape whichever endpoint of the format refused it.
 */
import type { EmbeddingAnswer, EmbeddingRequest } from '../canonical/embedding.ts';
import type { ClientFormat } from '../canonical/formats.ts';
import type { DecodeResult } from '../canonical/request.ts';

/** What the route knows outside the body: Gemini's model, from the URL path (without `models/`). */
export interface EmbeddingDecodeHints {
  readonly model?: string;
}

/** What an answer's encoder needs besides the vectors. */
export interface EmbeddingEncodeContext {
  /** The model name to show the client: the name it asked for. */
  readonly model: string;
  readonly request: EmbeddingRequest;
}

/** One client embedding API. */
export interface EmbeddingCodec {
  /** The client format family (for the outcome's `clientFormat`, metrics and attribution). */
  readonly format: ClientFormat;
  /** Validates and decodes a body. Never throws on bad input: returns ok=false naming the field. */
  decodeRequest(body: unknown, hints: EmbeddingDecodeHints): DecodeResult<EmbeddingRequest>;
  /** The answer's JSON body (a plain object). */
  encodeAnswer(answer: EmbeddingAnswer, context: EmbeddingEncodeContext): unknown;
}

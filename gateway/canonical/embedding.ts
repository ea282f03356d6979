/**
 * The canonical embedding request and answer: what every embedding client codec decodes into
 * (OpenAI `POST /v1/embeddings`, Gemini `:embedContent` / `:batchEmbedContents`) and every
 * embedding upstream adapter encodes from, so that N client formats reach M upstream APIs through
 * one shape.
 */
import type { ClientFormat } from './formats.ts';

/**
 * One thing to embed: a text, or (OpenAI only) a text already tokenized as token ids. Gemini's
 * `taskType` and `title` travel with the input they were given for.
 */
export type EmbeddingInput =
  | {
      readonly kind: 'text';
      readonly text: string;
      /** Gemini `taskType` (e.g. `RETRIEVAL_QUERY`), https://ai.google.dev/api/embeddings#tasktype. */
      readonly taskType?: string;
      /** Gemini `title` of a `RETRIEVAL_DOCUMENT` input. */
      readonly title?: string;
    }
  | {
      readonly kind: 'tokens';
      /** Token ids of the model's tokenizer (OpenAI `input` as an array of integers). */
      readonly tokens: ReadonlyArray<number>;
    };

/** How the client wants each vector written: JSON numbers, or base64 of little-endian float32. */
export type EmbeddingEncoding = 'float' | 'base64';

/** A decoded embedding request. */
export interface EmbeddingRequest {
  /** The client format it came in (for attribution and the outcome). */
  readonly clientFormat: ClientFormat;
  /** The model as the client named it. */
  readonly model: string;
  /** The inputs, in the client's order (at least one). */
  readonly inputs: ReadonlyArray<EmbeddingInput>;
  /** Length of each vector asked for (OpenAI `dimensions`, Gemini `outputDimensionality`); absent: the model's default. */
  readonly dimensions?: number;
  /** How the answer's vectors are written for the client. */
  readonly encoding: EmbeddingEncoding;
  /** The end user the client named (OpenAI `user`), when any. */
  readonly user?: string;
}

/** Where the input-token count of an answer came from: the upstream's report, or the gateway's tokenizer. */
export type EmbeddingUsageSource = 'reported' | 'estimated';

/** An embedding answer: one vector per input, in the request's order. */
export interface EmbeddingAnswer {
  /** One vector per input, same order as `EmbeddingRequest.inputs`. */
  readonly vectors: ReadonlyArray<ReadonlyArray<number>>;
  /** Input tokens embedded (tokens); embeddings have no output tokens. */
  readonly inputTokens: number;
  readonly usageSource: EmbeddingUsageSource;
}

/**
 * A vector as base64 of its little-endian float32 bytes: the `encoding_format: "base64"` form of
 * https://platform.openai.com/docs/api-reference/embeddings/create, which the openai SDKs decode
 * with a Float32Array.
 */
export function vectorToBase64(vector: ReadonlyArray<number>): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] as number, i * 4);
  return bytes.toString('base64');
}

/**
 * The vector a base64 float32 string holds (vectorToBase64's inverse).
 * @throws Error when the text is not base64 of whole float32 values
 */
export function base64ToVector(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) throw new Error('base64 embedding is not a whole number of float32 values');
  const vector: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) vector.push(bytes.readFloatLE(i));
  return vector;
}

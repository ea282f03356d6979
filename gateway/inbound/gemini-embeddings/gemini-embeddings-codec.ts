/**
 * The Gemini embeddings client API (https://ai.google.dev/api/embeddings):
 * `POST /v1beta/models/{model}:embedContent` with one `EmbedContentRequest` `{content, taskType?,
 * title?, outputDimensionality?}` answered `{embedding: {values}}`, and
 * `POST /v1beta/models/{model}:batchEmbedContents` with `{requests: [EmbedContentRequest + model]}`
 * answered `{embeddings: [{values}]}` — the call @google/genai's `models.embedContent` makes.
 * Model from the path (EmbeddingDecodeHints). Only text parts can be embedded here; the parts of
 * one content are joined with a newline into one text.
 */
import { z } from 'zod';
import type { EmbeddingAnswer, EmbeddingInput, EmbeddingRequest } from '../../canonical/embedding.ts';
import type { DecodeResult } from '../../canonical/request.ts';
import { describeZodError } from '../describe-zod-error.ts';
import type { EmbeddingCodec, EmbeddingDecodeHints } from '../embedding-codec.ts';

/** Task types of https://ai.google.dev/api/embeddings#tasktype. */
const TASK_TYPES = [
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
] as const;

const part = z.looseObject({ text: z.string().optional() });

const embedContentRequest = z.object({
  model: z.string().optional(),
  content: z.object({ parts: z.array(part).min(1, 'must contain at least one part'), role: z.string().optional() }),
  taskType: z.enum(TASK_TYPES).optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().positive().optional(),
});

const batchEmbedContentsRequest = z.object({
  requests: z.array(embedContentRequest).min(1, 'must contain at least one request'),
});

type EmbedContentRequest = z.output<typeof embedContentRequest>;

/** A refusal naming `param`. */
function refusal(param: string, problem: string): { ok: false; message: string; param: string } {
  return { ok: false, message: `${param}: ${problem}`, param };
}

/** `models/x` → `x`. */
function bareModel(model: string): string {
  return model.replace(/^models\//, '');
}

/**
 * One input of an EmbedContentRequest at `path`, or the refusal naming its non-text part, its
 * empty text, or a `model` other than the path's.
 */
function decodeOne(
  request: EmbedContentRequest,
  path: string,
  model: string,
): EmbeddingInput | { ok: false; message: string; param: string } {
  if (request.model !== undefined && bareModel(request.model) !== model)
    return refusal(`${path}model`, `'${request.model}' differs from the model of the URL, models/${model}`);
  const texts: string[] = [];
  for (const [index, item] of request.content.parts.entries()) {
    if (item.text === undefined)
      return refusal(`${path}content.parts.${index}`, 'only text parts can be embedded through this gateway');
    texts.push(item.text);
  }
  const text = texts.join('\n');
  if (text === '') return refusal(`${path}content`, 'the text to embed is empty');
  return {
    kind: 'text',
    text,
    ...(request.taskType === undefined ? {} : { taskType: request.taskType }),
    ...(request.title === undefined ? {} : { title: request.title }),
  };
}

/** The request shared by both endpoints, from decoded EmbedContentRequests (`prefix(i)` is request i's path). */
function decodeRequests(
  requests: ReadonlyArray<EmbedContentRequest>,
  prefix: (index: number) => string,
  hints: EmbeddingDecodeHints,
): DecodeResult<EmbeddingRequest> {
  const model = hints.model ?? '';
  if (model === '') return { ok: false, message: 'The model is missing from the URL path', param: 'model' };
  const inputs: EmbeddingInput[] = [];
  const dimensions = requests[0]?.outputDimensionality;
  for (const [index, request] of requests.entries()) {
    const input = decodeOne(request, prefix(index), model);
    if ('ok' in input) return input;
    if (request.outputDimensionality !== dimensions)
      return refusal(
        `${prefix(index)}outputDimensionality`,
        'every request of one batch must ask for the same outputDimensionality through this gateway',
      );
    inputs.push(input);
  }
  return {
    ok: true,
    value: {
      clientFormat: 'gemini',
      model,
      inputs,
      encoding: 'float',
      ...(dimensions === undefined ? {} : { dimensions }),
    },
  };
}

/** Decodes an `:embedContent` body. Never throws. */
export function decodeEmbedContentRequest(body: unknown, hints: EmbeddingDecodeHints): DecodeResult<EmbeddingRequest> {
  const parsed = embedContentRequest.safeParse(body);
  if (!parsed.success) return { ok: false, ...describeZodError(parsed.error) };
  return decodeRequests([parsed.data], () => '', hints);
}

/** Decodes a `:batchEmbedContents` body. Never throws. */
export function decodeBatchEmbedContentsRequest(
  body: unknown,
  hints: EmbeddingDecodeHints,
): DecodeResult<EmbeddingRequest> {
  const parsed = batchEmbedContentsRequest.safeParse(body);
  if (!parsed.success) return { ok: false, ...describeZodError(parsed.error) };
  return decodeRequests(parsed.data.requests, (index) => `requests.${index}.`, hints);
}

/** `:embedContent`: `{embedding: {values}}` of the one input. */
export const geminiEmbedContentCodec: EmbeddingCodec = {
  format: 'gemini',
  decodeRequest: decodeEmbedContentRequest,
  encodeAnswer: (answer: EmbeddingAnswer) => ({ embedding: { values: answer.vectors[0] ?? [] } }),
};

/** `:batchEmbedContents`: `{embeddings: [{values}]}` in the requests' order. */
export const geminiBatchEmbedContentsCodec: EmbeddingCodec = {
  format: 'gemini',
  decodeRequest: decodeBatchEmbedContentsRequest,
  encodeAnswer: (answer: EmbeddingAnswer) => ({ embeddings: answer.vectors.map((values) => ({ values })) }),
};

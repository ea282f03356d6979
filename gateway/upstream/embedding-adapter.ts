/**
 * The embedding upstream port: one adapter per embedding API style (EmbeddingApiStyle of the
 * provider presets). An adapter builds one upstream call for a batch of inputs that already fits
 * the provider's per-call limits (the pipeline splits larger batches,
 * gateway/exchange/plan-embedding-calls.ts), decodes the answer into vectors and usage, and
 * classifies failures. It never sees a client format.
 *
 * Adding a cloud surface (Azure deployments, Vertex `:predict`, Bedrock InvokeModel with Titan or
 * Cohere bodies) is one more adapter under a new style: its `buildCall` returns the unsigned call
 * and the pipeline's credentials step (EmbeddingExchangeDeps.upstreamAuth) signs it.
 */
import type { EmbeddingInput } from '../canonical/embedding.ts';
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { EmbeddingApiStyle, ProviderPreset } from '../providers/provider-preset.ts';
import type { UpstreamHeaders, UpstreamJsonRequest, UpstreamTarget } from './upstream-adapter.ts';

/** The part of an embedding request one upstream call carries. */
export interface EmbeddingCall {
  /** The inputs of this call, in order (a slice of the client's). */
  readonly inputs: ReadonlyArray<EmbeddingInput>;
  /** Vector length asked for; absent: the model's default. */
  readonly dimensions?: number;
  /** The end user, forwarded where the API has a field for it (OpenAI `user`). */
  readonly user?: string;
}

/** A built upstream call and the request parts it dropped as safe to lose (logged by the caller). */
export interface BuiltEmbeddingCall {
  readonly request: UpstreamJsonRequest;
  readonly dropped: ReadonlyArray<string>;
}

/** What one upstream call answered: one vector per input of the call, in order, and its input tokens. */
export interface EmbeddingCallAnswer {
  readonly vectors: ReadonlyArray<ReadonlyArray<number>>;
  /** Input tokens the upstream reported (tokens); undefined when it reports none (the caller counts them). */
  readonly inputTokens: number | undefined;
}

/** One embedding API style. */
export interface EmbeddingAdapter {
  readonly style: EmbeddingApiStyle;
  /**
   * Builds the call for `call` (already within the provider's limits).
   * @throws GatewayError('invalid-request') for a call the API cannot express at all
   */
  buildCall(call: EmbeddingCall, target: UpstreamTarget): BuiltEmbeddingCall;
  /**
   * Decodes a 2xx JSON-parsed body for a call of `inputCount` inputs (`headers`: the answer's, for
   * APIs that report usage there, e.g. Bedrock's `x-amzn-bedrock-input-token-count`).
   * @throws GatewayError('upstream-malformed') when the body is not an answer of this API, or
   *   holds another number of vectors than inputs
   */
  decodeAnswer(body: unknown, inputCount: number, headers?: UpstreamHeaders): EmbeddingCallAnswer;
  /** Classifies a non-2xx answer (`body` raw text) with the shared status table (classify-upstream-error.ts). */
  classifyError(status: number, body: string, headers: UpstreamHeaders): GatewayError;
}

/** The adapters a node can call, by style. */
export type EmbeddingAdapters = Readonly<Partial<Record<EmbeddingApiStyle, EmbeddingAdapter>>>;

/**
 * The embedding API a provider's endpoint for `protocol` serves, or undefined when it serves
 * none: the preset's `embeddings.apiByProtocol` when given, else `openai` for the OpenAI
 * protocols and `gemini` for `gemini` — only for providers whose preset has `embeddings`.
 */
export function embeddingStyleFor(provider: ProviderPreset, protocol: string): EmbeddingApiStyle | undefined {
  const support = provider.quirks.embeddings;
  if (!support) return undefined;
  if (support.apiByProtocol) return (support.apiByProtocol as Readonly<Record<string, EmbeddingApiStyle>>)[protocol];
  if (protocol === 'openai-chat' || protocol === 'openai-responses') return 'openai';
  if (protocol === 'gemini') return 'gemini';
  return undefined;
}

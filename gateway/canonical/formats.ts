/**
 * Wire formats. A client format is what an SDK speaks to Tollgate; an upstream protocol is what
 * Tollgate speaks to a provider. The four names are shared so that "client format equals upstream
 * protocol" (the pass-through condition) is a plain string comparison.
 */
export const WIRE_FORMATS = ['openai-responses', 'openai-chat', 'anthropic-messages', 'gemini'] as const;

/** One of the four wire formats: OpenAI Responses, OpenAI Chat Completions, Anthropic Messages, Gemini generateContent. */
export type WireFormat = (typeof WIRE_FORMATS)[number];

/** The format a client used to reach the gateway. */
export type ClientFormat = WireFormat;

/**
 * The protocols a channel may use to reach its upstream: the four wire formats (a client may speak
 * them too, so equal names mean pass-through is possible) and upstream-only protocols no client
 * speaks — `bedrock-converse`, Amazon Bedrock's Converse and ConverseStream API
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html).
 */
export const UPSTREAM_PROTOCOLS = [...WIRE_FORMATS, 'bedrock-converse'] as const;

/** The protocol a channel uses to reach its upstream (UPSTREAM_PROTOCOLS). */
export type UpstreamProtocol = (typeof UPSTREAM_PROTOCOLS)[number];

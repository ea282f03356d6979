/**
 * CanonicalRequest: the hub every inbound codec decodes into and every upstream adapter encodes
 * from. It holds what the four wire formats can express in common; what one format cannot carry
 * is either dropped as safe to lose or refused by name (see translation-notes.ts).
 */
import type { ClientFormat } from './formats.ts';
import type { UncarriedPart } from './translation-notes.ts';

/** Plain text. */
export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

/** An image, by URL (http(s) or `data:` URL) or inline base64. */
export interface ImagePart {
  readonly type: 'image';
  readonly source:
    | { readonly kind: 'url'; readonly url: string }
    | { readonly kind: 'base64'; readonly mediaType: string; readonly data: string };
}

/** A document/file given inline (e.g. a PDF as base64) or by URL / provider file id. */
export interface FilePart {
  readonly type: 'file';
  readonly source:
    | { readonly kind: 'url'; readonly url: string; readonly mediaType?: string }
    | { readonly kind: 'base64'; readonly mediaType: string; readonly data: string; readonly filename?: string }
    | { readonly kind: 'file-id'; readonly fileId: string };
}

/**
 * Model reasoning ("thinking") replayed in history, or produced in a response.
 * `signature` is the provider's opaque integrity token (Anthropic `signature`, Gemini
 * `thoughtSignature`); `redacted` carries Anthropic `redacted_thinking.data` (then `text` is '').
 */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly signature?: string;
  readonly redacted?: string;
}

/**
 * A tool (function) call made by the assistant. `arguments` is the JSON text of the arguments
 * object, exactly as generated (OpenAI style); adapters parse it where a protocol wants an object.
 * `signature` carries a Gemini `thoughtSignature` that rode on the functionCall part.
 */
export interface ToolCallPart {
  readonly type: 'tool-call';
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  readonly signature?: string;
}

/**
 * The result of a tool call, sent by the client. `toolName` is known in Gemini requests and may be
 * filled by looking up the matching ToolCallPart; `content` is text or text/image parts.
 */
export interface ToolResultPart {
  readonly type: 'tool-result';
  readonly toolCallId: string;
  readonly toolName?: string;
  readonly content: string | ReadonlyArray<TextPart | ImagePart>;
  readonly isError?: boolean;
}

/** Any content part of a message. */
export type ContentPart = TextPart | ImagePart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart;

/**
 * One turn of the conversation. Tool results travel in `user` turns (Anthropic/Gemini style);
 * codecs for OpenAI formats split/merge `tool` role messages accordingly. Consecutive turns of the
 * same role are allowed; adapters merge them where a protocol requires alternation.
 */
export interface CanonicalMessage {
  readonly role: 'user' | 'assistant';
  readonly content: ReadonlyArray<ContentPart>;
}

/** A function tool the model may call. `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly parameters: Record<string, unknown>;
  readonly strict?: boolean;
}

/** How long a cached prefix lives: Anthropic's default 5 minutes, or 1 hour. */
export type PromptCacheTtl = '5m' | '1h';

/**
 * Where the client marked the end of a prompt prefix to cache: Anthropic `cache_control`
 * breakpoints (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching), each with its
 * lifetime. `system`: after the system prompt; `tools`: after the tool definitions; `messages`:
 * after the turns at these indices of CanonicalRequest.messages. Upstreams with explicit cache
 * points (Anthropic `cache_control`, Amazon Bedrock Converse `cachePoint`) place theirs there;
 * upstreams that cache by themselves ignore it.
 */
export interface PromptCacheMarks {
  readonly system?: PromptCacheTtl;
  readonly tools?: PromptCacheTtl;
  readonly messages: ReadonlyArray<{ readonly index: number; readonly ttl: PromptCacheTtl }>;
}

/** How the model may use tools. */
export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

/** Requested output format. */
export type ResponseFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json-object' }
  | {
      readonly type: 'json-schema';
      readonly name: string;
      readonly schema: Record<string, unknown>;
      readonly strict?: boolean;
      readonly description?: string;
    };

/**
 * Reasoning controls. `enabled: false` turns thinking off; `effort` is OpenAI-style; `budgetTokens`
 * is Anthropic/Gemini-style (tokens). `includeThoughts` asks for the reasoning text in the answer.
 */
export interface ReasoningConfig {
  readonly enabled?: boolean;
  readonly effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  readonly budgetTokens?: number;
  readonly includeThoughts?: boolean;
}

/**
 * A generation request in the gateway's own terms.
 * - `model`: the model name the client asked for (routing maps it to an upstream model).
 * - `system`: system/developer instructions, concatenated in order ("\n\n" between parts).
 * - `maxOutputTokens`: cap on generated tokens including reasoning.
 * - `clientFormat`: which inbound codec produced it.
 * - `extensions`: vendor body fields of the client's request that the canonical model has no slot
 *   for (e.g. DeepSeek `thinking`, DashScope `enable_thinking`), keyed by their wire name. They
 *   reach a channel of the client's own protocol, or one whose provider preset accepts them
 *   (gateway/upstream/vendor-extensions.ts); elsewhere they are dropped as safe or refused by name.
 * - `anthropicBetas`: the client's `anthropic-beta` header split at commas (Anthropic Messages
 *   clients). A header, never a body field: sent as `anthropic-beta` to true Anthropic channels
 *   only (https://docs.anthropic.com/en/api/beta-headers), dropped as safe everywhere else.
 */
export interface CanonicalRequest {
  readonly clientFormat: ClientFormat;
  readonly model: string;
  readonly stream: boolean;
  readonly system?: string;
  readonly messages: ReadonlyArray<CanonicalMessage>;
  readonly tools?: ReadonlyArray<ToolDefinition>;
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly stopSequences?: ReadonlyArray<string>;
  readonly responseFormat?: ResponseFormat;
  readonly reasoning?: ReasoningConfig;
  /** The caller's end user as the client named it: OpenAI `user`, Anthropic `metadata.user_id`. */
  readonly user?: string;
  /**
   * OpenAI `safety_identifier`: a stable id of the caller's end user
   * (https://platform.openai.com/docs/api-reference/chat/create#chat_create-safety_identifier).
   * Read for attribution only; the translated path does not send it upstream.
   */
  readonly safetyIdentifier?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly extensions?: Readonly<Record<string, unknown>>;
  readonly anthropicBetas?: ReadonlyArray<string>;
  /** The client's prompt-cache breakpoints (PromptCacheMarks); absent: it marked none. */
  readonly promptCacheMarks?: PromptCacheMarks;
}

/**
 * Result of decoding a client body: a request, or a GatewayError-ready description.
 * `warnings` lists parts dropped because losing them is safe; `uncarried` the parts the canonical
 * model cannot hold (the request may then only be passed through; see translation-notes.ts).
 */
export type DecodeResult<T> =
  | {
      readonly ok: true;
      readonly value: T;
      readonly warnings?: ReadonlyArray<string>;
      readonly uncarried?: ReadonlyArray<UncarriedPart>;
    }
  | { readonly ok: false; readonly message: string; readonly param?: string };

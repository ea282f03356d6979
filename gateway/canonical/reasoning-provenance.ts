/**
 * Reasoning stays with the provider that minted it. Signatures and encrypted reasoning (Anthropic
 * thinking `signature` and `redacted_thinking.data`, Gemini `thoughtSignature`, OpenAI reasoning
 * `encrypted_content`) are verified by the provider that issued them and rejected by every other
 * one (Anthropic: https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking,
 * "Thinking encryption"; Gemini: https://ai.google.dev/gemini-api/docs/thought-signatures;
 * OpenAI: https://platform.openai.com/docs/guides/reasoning, "Encrypted reasoning items").
 *
 * So on every translated answer the gateway stamps each such value with the provider that minted
 * it: the client receives `base64("tg1:" + provider + ":" + value)`, still an opaque string (and
 * valid base64, as Gemini clients decode `thoughtSignature` as bytes). When the client replays
 * it, the value is restored for a channel of that provider and left out for any other
 * (reasoning is the model's scratch work; the README lists this as a safe drop). A value without
 * a stamp came back through a pass-through answer, so it belongs to the client's own protocol and
 * goes only to channels of that protocol. A stamped request never passes through unchanged.
 */
import type { UpstreamProtocol } from './formats.ts';
import type { CanonicalMessage, CanonicalRequest, ContentPart } from './request.ts';
import type { CanonicalResponse, OutputBlock } from './response.ts';
import type { StreamEvent } from './stream-event.ts';

const STAMP_PREFIX = 'tg1:';
/** `base64("tg1")`: every stamped value starts with it, so unstamped values are told apart cheaply. */
const STAMPED_START = Buffer.from('tg1').toString('base64');
const PROVIDER_PATTERN = /^[a-z0-9-]{1,32}$/;

/** A signature or encrypted reasoning value with the provider that minted it, when stamped. */
export interface ReasoningOrigin {
  /** The provider id (`anthropic`, `gemini`, `openai`, `deepseek`…), or undefined for an unstamped value. */
  readonly provider: string | undefined;
  /** The value as the provider issued it. */
  readonly value: string;
}

/** Stamps a provider-issued value with its provider (`provider` matches `^[a-z0-9-]{1,32}$`). */
export function stampReasoning(value: string, provider: string): string {
  return Buffer.from(`${STAMP_PREFIX}${provider}:${value}`, 'utf8').toString('base64');
}

/** Reads a value a client sent back: stamped → provider and original value; otherwise as is. */
export function readReasoningOrigin(sent: string): ReasoningOrigin {
  if (!sent.startsWith(STAMPED_START)) return { provider: undefined, value: sent };
  const decoded = Buffer.from(sent, 'base64').toString('utf8');
  const separator = decoded.indexOf(':', STAMP_PREFIX.length);
  const provider = decoded.slice(STAMP_PREFIX.length, separator);
  if (!decoded.startsWith(STAMP_PREFIX) || separator < 0 || !PROVIDER_PATTERN.test(provider))
    return { provider: undefined, value: sent };
  return { provider, value: decoded.slice(separator + 1) };
}

function stampBlock(block: OutputBlock, provider: string): OutputBlock {
  if (block.type === 'reasoning') {
    if (block.signature === undefined && block.redacted === undefined) return block;
    return {
      ...block,
      ...(block.signature === undefined || block.signature === ''
        ? {}
        : { signature: stampReasoning(block.signature, provider) }),
      ...(block.redacted === undefined ? {} : { redacted: stampReasoning(block.redacted, provider) }),
    };
  }
  if (block.type === 'tool-call' && block.signature)
    return { ...block, signature: stampReasoning(block.signature, provider) };
  return block;
}

/** A translated answer with every signature and redacted block stamped with `provider`. */
export function stampResponse(response: CanonicalResponse, provider: string): CanonicalResponse {
  if (
    !response.content.some(
      (block) =>
        (block.type === 'reasoning' && (block.signature || block.redacted !== undefined)) ||
        (block.type === 'tool-call' && block.signature),
    )
  )
    return response;
  return { ...response, content: response.content.map((block) => stampBlock(block, provider)) };
}

/** A translated stream event with its signature or redacted data stamped with `provider`. */
export function stampStreamEvent(event: StreamEvent, provider: string): StreamEvent {
  switch (event.type) {
    case 'reasoning-signature':
      return event.signature === '' ? event : { ...event, signature: stampReasoning(event.signature, provider) };
    case 'reasoning-start':
      return event.redacted === undefined ? event : { ...event, redacted: stampReasoning(event.redacted, provider) };
    case 'tool-input-start':
      return event.signature ? { ...event, signature: stampReasoning(event.signature, provider) } : event;
    default:
      return event;
  }
}

/** True when any replayed signature or redacted block in `request` carries a gateway stamp. */
export function hasStampedReasoning(request: CanonicalRequest): boolean {
  for (const message of request.messages) {
    for (const part of message.content) {
      if (
        part.type === 'reasoning' &&
        ((part.signature !== undefined && part.signature.startsWith(STAMPED_START)) ||
          (part.redacted !== undefined && part.redacted.startsWith(STAMPED_START)))
      )
        return true;
      if (part.type === 'tool-call' && part.signature !== undefined && part.signature.startsWith(STAMPED_START))
        return true;
    }
  }
  return false;
}

/** Whether a value may go to the channel: minted by its provider, or unstamped on the client's own protocol. */
function belongsTo(origin: ReasoningOrigin, provider: string, sameProtocol: boolean): boolean {
  return origin.provider === undefined ? sameProtocol : origin.provider === provider;
}

function partForChannel(
  part: ContentPart,
  provider: string,
  sameProtocol: boolean,
  dropped: string[],
  path: string,
): ContentPart {
  if (part.type === 'reasoning') {
    const { signature, redacted, ...rest } = part;
    const next: { -readonly [K in keyof typeof part]: (typeof part)[K] } = { ...rest };
    if (signature !== undefined && signature !== '') {
      const origin = readReasoningOrigin(signature);
      if (belongsTo(origin, provider, sameProtocol)) next.signature = origin.value;
      else
        dropped.push(
          `${path}: reasoning signature minted by ${origin.provider ?? 'another API'} cannot be verified by ${provider}; left out`,
        );
    }
    if (redacted !== undefined) {
      const origin = readReasoningOrigin(redacted);
      if (belongsTo(origin, provider, sameProtocol)) next.redacted = origin.value;
      else
        dropped.push(
          `${path}: redacted reasoning minted by ${origin.provider ?? 'another API'} cannot be read by ${provider}; left out`,
        );
    }
    return next;
  }
  if (part.type === 'tool-call' && part.signature !== undefined) {
    const { signature, ...rest } = part;
    const origin = readReasoningOrigin(signature);
    if (belongsTo(origin, provider, sameProtocol)) return { ...rest, signature: origin.value };
    dropped.push(
      `${path}: tool call signature minted by ${origin.provider ?? 'another API'} cannot be verified by ${provider}; left out`,
    );
    return rest;
  }
  return part;
}

/**
 * The request as a channel of `provider` speaking `protocol` may receive it: signatures and
 * redacted reasoning minted by that provider restored, all others left out (listed in `dropped`,
 * one line each with its `messages.N.content.M` path). Returns `request` itself when it holds no
 * signature at all.
 */
export function reasoningForChannel(
  request: CanonicalRequest,
  provider: string,
  protocol: UpstreamProtocol,
): { request: CanonicalRequest; dropped: string[] } {
  const dropped: string[] = [];
  const holdsReasoning = request.messages.some((message) =>
    message.content.some(
      (part) =>
        (part.type === 'reasoning' && (part.signature || part.redacted !== undefined)) ||
        (part.type === 'tool-call' && part.signature !== undefined),
    ),
  );
  if (!holdsReasoning) return { request, dropped };
  const sameProtocol = request.clientFormat === protocol;
  const messages: CanonicalMessage[] = request.messages.map((message, m) => ({
    ...message,
    content: message.content.map((part, i) =>
      partForChannel(part, provider, sameProtocol, dropped, `messages.${m}.content.${i}`),
    ),
  }));
  return { request: { ...request, messages }, dropped };
}

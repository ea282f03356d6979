/**
 * Which client body fields outside the canonical model (`CanonicalRequest.extensions`) and which
 * header-borne flags (`anthropicBetas`) may reach an upstream body or header, shared by the four
 * request builders. Real APIs refuse unknown top-level fields — OpenAI Chat with "Unrecognized
 * request argument supplied", Responses with "Unknown parameter", Anthropic with "Extra inputs are
 * not permitted", Gemini with "Unknown name" — so a field goes upstream only when
 * - the channel speaks the client's own protocol (the client chose the field for that API), or
 * - the field is one of the target protocol's own fields (`protocolFields`), or
 * - the channel's provider preset lists it as accepted (`quirks.acceptedExtensions`).
 * Anything else is either dropped because losing it is safe (README, "Parts that cannot cross
 * protocols") or refused by name.
 */
import type { CanonicalRequest } from '../canonical/request.ts';
import type { TranslationNotes } from '../canonical/translation-notes.ts';
import type { UpstreamProtocol } from '../canonical/formats.ts';
import type { ProviderPreset } from '../providers/provider-preset.ts';

/**
 * Extension fields the Chat decoder also reads into the canonical `reasoning`
 * (gateway/inbound/openai-chat/decode-chat-request.ts): other protocols receive them as their own
 * reasoning controls, so the raw field is left out without a note (when the decoder could read
 * it: a value of another shape is refused by name like any unknown field).
 */
const CARRIED_AS_REASONING: ReadonlySet<string> = new Set(['thinking', 'enable_thinking', 'thinking_budget']);

/** Extension fields whose loss is safe, with the reason given in the drop note. */
const SAFE_TO_DROP: Readonly<Record<string, string>> = {
  presence_penalty: 'a sampling hint',
  frequency_penalty: 'a sampling hint',
  repetition_penalty: 'a sampling hint',
  seed: 'a best-effort reproducibility hint',
  tool_stream: 'it only chooses whether tool-call arguments stream in pieces',
  reasoning_split:
    'it only chooses where the provider puts reasoning text; the gateway returns reasoning in the client’s own field',
};

/** What a builder tells selectVendorExtensions about its protocol. */
export interface ExtensionTarget {
  readonly protocol: UpstreamProtocol;
  readonly provider: ProviderPreset;
  /** Top-level fields of the target protocol that an extension may carry unchanged. */
  readonly protocolFields: ReadonlySet<string>;
  /** Body keys the gateway sets itself (model, messages, stream…): never overridden. */
  readonly reservedKeys: ReadonlySet<string>;
}

/**
 * The extensions of `request` to merge into the upstream body of `target`, as `[wire name, value]`
 * pairs in the client's order. Notes a drop for reserved keys and safe-to-drop fields, and a
 * refusal (path = the field's name) for any other field the target does not accept. Never throws.
 */
export function selectVendorExtensions(
  request: CanonicalRequest,
  target: ExtensionTarget,
  notes: TranslationNotes,
): Array<[string, unknown]> {
  const selected: Array<[string, unknown]> = [];
  const ownProtocol = request.clientFormat === target.protocol;
  const accepted = target.provider.quirks.acceptedExtensions?.[target.protocol] ?? [];
  for (const [key, value] of Object.entries(request.extensions ?? {})) {
    if (value === undefined) continue;
    if (target.reservedKeys.has(key)) notes.drop(`extensions.${key} ignored (set by the gateway)`);
    else if (ownProtocol || target.protocolFields.has(key) || accepted.includes(key)) selected.push([key, value]);
    else if (CARRIED_AS_REASONING.has(key) && request.reasoning !== undefined) continue;
    else if (SAFE_TO_DROP[key] !== undefined)
      notes.drop(`${key}: not a field of this upstream API; dropped (${SAFE_TO_DROP[key]})`);
    else
      notes.refuse(
        key,
        `a vendor field that the ${target.provider.displayName} ${target.protocol} API does not accept`,
      );
  }
  return selected;
}

/**
 * Notes the drop of the client's `anthropic-beta` flags on a channel that does not take them
 * (every protocol but Anthropic Messages, and Anthropic-compatible providers). Safe: a beta flag
 * only unlocks features, and each feature that changes the answer travels as a body part (a tool
 * type, a field) that is carried or refused on its own.
 */
export function noteDroppedAnthropicBetas(request: CanonicalRequest, notes: TranslationNotes): void {
  if (request.anthropicBetas && request.anthropicBetas.length > 0) {
    notes.drop(
      `anthropic-beta header (${request.anthropicBetas.join(',')}): Anthropic feature flags this upstream does not take; dropped`,
    );
  }
}

/**
 * Gemini response parts → StreamEvent blocks (per https://ai.google.dev/api/generate-content). Shared by
 * the stream decoder (parts arrive chunk by chunk) and the non-streamed decoder (all at once), so
 * both cut blocks the same way:
 * - consecutive text parts extend one text block; consecutive `thought` parts one reasoning block;
 * - a `functionCall` part is a whole tool-call block (start, one delta with the JSON args, end),
 *   carrying the part's `thoughtSignature`;
 * - a `thoughtSignature` on a thought part signs that reasoning block; a signature on a bare
 *   `{text:''}` part signs the open reasoning block if it has none yet; before any visible text it
 *   becomes a reasoning block of its own `{text:'', signature}`, so the next request can echo it.
 *   Once visible text has started, a signature riding on text (Gemini 3 sends one on the last text
 *   chunk) is left out: only function-call signatures are validated, those on other parts are not
 *   (https://ai.google.dev/gemini-api/docs/thought-signatures, "How it works"), and a reasoning
 *   block after the answer's text would end the answer with an empty block in formats whose
 *   clients read the last block as the answer (Anthropic Messages).
 */
import { generateId } from '../../canonical/ids.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import type { GeminiPart } from './gemini-wire-schemas.ts';

/** The block currently open. */
interface OpenBlock {
  readonly kind: 'text' | 'reasoning';
  readonly index: number;
  signed: boolean;
}

/** Stateful folder; one per response. Push parts with `fold`, finish with `close`. */
export class GeminiPartFolder {
  private nextIndex = 0;
  private open: OpenBlock | undefined;
  /** True once a text block was started. */
  private producedText = false;
  /** True once a functionCall part was folded (turns finishReason STOP into tool-calls). */
  producedToolCall = false;

  /** Appends the events for `parts` to `out`. Parts with no kept field (inlineData, executableCode…) are skipped. */
  fold(parts: ReadonlyArray<GeminiPart>, out: StreamEvent[]): void {
    for (const part of parts) this.foldPart(part, out);
  }

  /** Closes the open block, if any. */
  close(out: StreamEvent[]): void {
    if (!this.open) return;
    out.push({ type: 'block-end', index: this.open.index });
    this.open = undefined;
  }

  private foldPart(part: GeminiPart, out: StreamEvent[]): void {
    const signature = part.thoughtSignature || undefined;
    if (part.functionCall) return this.foldFunctionCall(part.functionCall, signature, out);
    const text = part.text ?? '';
    if (part.thought) {
      const open = this.open;
      const extend = open?.kind === 'reasoning' && !(signature !== undefined && open.signed);
      const index = extend ? open.index : this.start('reasoning', out);
      if (text !== '') out.push({ type: 'reasoning-delta', index, text });
      if (signature !== undefined) this.sign(signature, out);
      return;
    }
    if (text !== '') {
      const index = this.open?.kind === 'text' ? this.open.index : this.start('text', out);
      out.push({ type: 'text-delta', index, text });
    }
    if (signature !== undefined) this.sign(signature, out);
  }

  private foldFunctionCall(
    call: NonNullable<GeminiPart['functionCall']>,
    signature: string | undefined,
    out: StreamEvent[],
  ): void {
    this.close(out);
    const index = this.nextIndex++;
    const toolCallId = call.id || generateId('call_');
    out.push(
      signature === undefined
        ? { type: 'tool-input-start', index, toolCallId, toolName: call.name }
        : { type: 'tool-input-start', index, toolCallId, toolName: call.name, signature },
    );
    const args = call.args !== null && typeof call.args === 'object' && !Array.isArray(call.args) ? call.args : {};
    out.push({ type: 'tool-input-delta', index, argumentsFragment: JSON.stringify(args) });
    out.push({ type: 'block-end', index });
    this.producedToolCall = true;
  }

  /** Signs the open unsigned reasoning block, or emits a signature-only reasoning block. */
  private sign(signature: string, out: StreamEvent[]): void {
    if (this.open?.kind === 'reasoning' && !this.open.signed) {
      out.push({ type: 'reasoning-signature', index: this.open.index, signature });
      this.open.signed = true;
      return;
    }
    if (this.producedText) return;
    const index = this.start('reasoning', out);
    out.push({ type: 'reasoning-signature', index, signature });
    this.close(out);
  }

  private start(kind: OpenBlock['kind'], out: StreamEvent[]): number {
    this.close(out);
    const index = this.nextIndex++;
    this.open = { kind, index, signed: false };
    if (kind === 'text') this.producedText = true;
    out.push(kind === 'text' ? { type: 'text-start', index } : { type: 'reasoning-start', index });
    return index;
  }
}

/**
 * An optional observer of the answer a client receives, for formats whose answers the gateway
 * keeps (OpenAI Responses with `store`, https://platform.openai.com/docs/api-reference/responses/create#responses_create-store).
 * The exchange awaits each call before the bytes concerned are written, so what the hook saves is
 * saved before the client can refer to it. Implementations never reject: failures are theirs to log.
 */
import type { UpstreamSseEvent } from '../upstream/upstream-adapter.ts';

export interface ClientAnswerHook {
  /**
   * Non-streamed 2xx answers: `body` is the JSON about to be sent (the upstream's parsed body on
   * pass-through, else the codec's encoded object). Resolves to a body to send instead, or
   * undefined to send the original (on pass-through: the upstream bytes unchanged).
   */
  jsonBody(body: unknown, passThrough: boolean): Promise<unknown>;
  /**
   * Translated streams: the stream encoder's final body (`StreamEncoder.finalBody`), called when
   * the terminal event was encoded and before its frames are written.
   */
  streamFinished(finalBody: unknown): Promise<void>;
  /**
   * Pass-through streams: every upstream SSE event, in order; resolves to the SSE text to send in
   * its place (complete frames ending in a blank line). When a hook is present, pass-through
   * streams are sent event by event through this call instead of as raw upstream chunks.
   */
  passThroughEvent(event: UpstreamSseEvent): Promise<string>;
}

/**
 * StreamEvent: what upstream stream decoders emit and inbound stream encoders consume.
 *
 * Grammar (decoders must produce it, encoders may rely on it):
 *   message-start, then blocks, then exactly one of message-end | error.
 *   A block is `*-start(index)`, its deltas, `block-end(index)`. Indices start at 0 and increase by
 *   one per block; at most one block is open at a time (decoders close the open block before
 *   starting the next). `keep-alive` may appear anywhere and carries no content.
 *   `usage` on message-start is what is known up front (often only input tokens); the usage on
 *   message-end is final and cumulative.
 */
import type { FinishReason } from './finish-reason.ts';
import type { GatewayError } from './gateway-error.ts';
import type { Usage } from './usage.ts';

export type StreamEvent =
  | { readonly type: 'message-start'; readonly messageId: string; readonly model: string; readonly usage?: Usage }
  | { readonly type: 'text-start'; readonly index: number }
  | { readonly type: 'text-delta'; readonly index: number; readonly text: string }
  | { readonly type: 'reasoning-start'; readonly index: number; readonly redacted?: string }
  | { readonly type: 'reasoning-delta'; readonly index: number; readonly text: string }
  | { readonly type: 'reasoning-signature'; readonly index: number; readonly signature: string }
  | {
      readonly type: 'tool-input-start';
      readonly index: number;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly signature?: string;
    }
  | { readonly type: 'tool-input-delta'; readonly index: number; readonly argumentsFragment: string }
  | { readonly type: 'block-end'; readonly index: number }
  | {
      readonly type: 'message-end';
      readonly finishReason: FinishReason;
      readonly usage: Usage;
      readonly stopSequence?: string;
    }
  | { readonly type: 'keep-alive' }
  | { readonly type: 'error'; readonly error: GatewayError };

/** The `type` names of StreamEvent. */
export type StreamEventType = StreamEvent['type'];

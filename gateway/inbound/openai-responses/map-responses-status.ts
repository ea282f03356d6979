/** Canonical finish reason → Responses `status` / `incomplete_details` / `error` (per https://platform.openai.com/docs/api-reference/responses). */
import type { FinishReason } from '../../canonical/finish-reason.ts';

/** The terminal state of a Response. `error` is the in-response `{code, message}`, not the HTTP envelope. */
export interface ResponsesTerminalState {
  readonly status: 'completed' | 'incomplete' | 'failed';
  readonly incompleteDetails: { readonly reason: 'max_output_tokens' | 'content_filter' } | null;
  readonly error: { readonly code: string; readonly message: string } | null;
}

/**
 * stop / tool-calls / other → `completed`; length → `incomplete` (`max_output_tokens`);
 * content-filter → `incomplete` (`content_filter`); error → `failed` with `server_error`.
 */
export function mapResponsesStatus(finish: FinishReason): ResponsesTerminalState {
  switch (finish.unified) {
    case 'length':
      return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' }, error: null };
    case 'content-filter':
      return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' }, error: null };
    case 'error': {
      const raw = finish.raw === undefined ? '' : ` (${finish.raw})`;
      return {
        status: 'failed',
        incompleteDetails: null,
        error: { code: 'server_error', message: `The upstream model ended the response with an error${raw}.` },
      };
    }
    default:
      return { status: 'completed', incompleteDetails: null, error: null };
  }
}

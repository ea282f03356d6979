/**
 * Anthropic's Messages API as Amazon Bedrock serves it for Claude models: InvokeModel and
 * InvokeModelWithResponseStream with the Messages body
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html,
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html).
 *
 * A wrapper over the Anthropic Messages adapter it is given (it never imports another protocol's
 * folder): the Messages body is built by that adapter, then reshaped — no `model` (it is in the
 * URL) and no `stream` (the operation says it), `anthropic_version: "bedrock-2023-05-31"`, the
 * client's `anthropic-beta` flags that Bedrock documents as `anthropic_beta`, and only the
 * top-level fields Bedrock's Claude body documents. The streamed answer is an AWS event stream of
 * `chunk` events whose payload `{"bytes": <base64>}` holds one Anthropic stream event's JSON; it
 * is unwrapped and handed to the Anthropic stream decoder. Errors are Bedrock's
 * (shared/classify-bedrock-error.ts).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';
import { bedrockModelPathSegment } from '../shared/bedrock-model-path.ts';
import {
  bedrockErrorName,
  classifyBedrockErrorNamed,
  classifyBedrockHttpError,
} from '../shared/classify-bedrock-error.ts';
import type {
  BuiltUpstreamRequest,
  UpstreamAdapter,
  UpstreamCallTarget,
  UpstreamSseEvent,
  UpstreamStreamDecoder,
  UpstreamTarget,
} from '../upstream-adapter.ts';

/** The `anthropic_version` Bedrock requires in every Claude Messages body. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * Top-level fields of the Claude Messages body on Bedrock (the request syntax of
 * model-parameters-anthropic-claude-messages-request-response.html, with `thinking`,
 * `output_config` and `context_management` of the extended-thinking, structured-output and
 * context-management pages). Bedrock refuses any other key ("extraneous key [...] is not
 * permitted").
 */
const BEDROCK_BODY_FIELDS: ReadonlySet<string> = new Set([
  'anthropic_version',
  'anthropic_beta',
  'max_tokens',
  'system',
  'messages',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'stop_sequences',
  'thinking',
  'output_config',
  'context_management',
]);

/**
 * The `anthropic-beta` flags Bedrock documents for Claude (the "anthropic_beta" list of
 * model-parameters-anthropic-claude-messages-request-response.html). Bedrock answers 400
 * "invalid beta flag" to others, so they are dropped as safe (a flag only unlocks a feature
 * whose request parts are carried or refused on their own).
 */
const BEDROCK_BETAS: ReadonlySet<string> = new Set([
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
]);

/** `POST {baseUrl}/model/{modelId}/invoke` (or `/invoke-with-response-stream`), JSON, no credential header. */
function invokeCallTarget(request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget {
  const operation = request.stream ? 'invoke-with-response-stream' : 'invoke';
  return {
    url: `${target.baseUrl}/model/${bedrockModelPathSegment(target.upstreamModel)}/${operation}`,
    headers: { 'content-type': 'application/json' },
  };
}

/**
 * The Messages body reshaped for Bedrock (see the module comment): fields Bedrock does not take
 * are dropped (`metadata`: an end-user tag) or refused by name (anything else the Messages
 * adapter carried, such as `service_tier` or `mcp_servers`).
 */
function reshapeBody(
  body: Record<string, unknown>,
  request: CanonicalRequest,
  notes: TranslationNotes,
): Record<string, unknown> {
  const shaped: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  for (const [key, value] of Object.entries(body)) {
    if (key === 'model' || key === 'stream') continue;
    if (BEDROCK_BODY_FIELDS.has(key)) shaped[key] = value;
    else if (key === 'metadata') notes.drop('metadata: Claude on Amazon Bedrock takes no metadata; dropped');
    else notes.refuse(key, 'a Claude Messages field that Amazon Bedrock does not accept');
  }
  const betas = request.anthropicBetas ?? [];
  const kept = betas.filter((beta) => BEDROCK_BETAS.has(beta));
  const dropped = betas.filter((beta) => !BEDROCK_BETAS.has(beta));
  if (kept.length > 0) shaped.anthropic_beta = kept;
  if (dropped.length > 0)
    notes.drop(
      `anthropic-beta header (${dropped.join(',')}): flags Amazon Bedrock does not document for Claude; dropped`,
    );
  return shaped;
}

/** The text of a `chunk` event's `{"bytes": base64}` payload, or a GatewayError when it is not one. */
function chunkText(data: string): string | GatewayError {
  try {
    const payload = JSON.parse(data) as { bytes?: unknown };
    if (typeof payload.bytes === 'string') return Buffer.from(payload.bytes, 'base64').toString('utf8');
  } catch {
    // reported below
  }
  return new GatewayError('upstream-malformed', `Amazon Bedrock sent an unreadable chunk event: ${data.slice(0, 200)}`);
}

/** The Anthropic event type of a chunk's JSON (its `type`), used as the SSE event name. */
function eventTypeOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { type?: unknown };
    return typeof parsed.type === 'string' ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A stream decoder for InvokeModelWithResponseStream: `chunk` events are unwrapped into the
 * Anthropic events they carry and decoded by `inner`; an exception message ends the stream with
 * its classified error, after closing the block `inner` left open (the StreamEvent grammar).
 */
function invokeStreamDecoder(inner: UpstreamStreamDecoder): UpstreamStreamDecoder {
  let open: number | undefined;
  let finished = false;
  const track = (events: StreamEvent[]): StreamEvent[] => {
    for (const event of events) {
      if (event.type === 'block-end') open = undefined;
      else if (event.type === 'text-start' || event.type === 'reasoning-start' || event.type === 'tool-input-start')
        open = event.index;
      else if (event.type === 'message-end' || event.type === 'error') finished = true;
    }
    return events;
  };
  const fail = (error: GatewayError): StreamEvent[] => {
    finished = true;
    const out: StreamEvent[] = open === undefined ? [] : [{ type: 'block-end', index: open }];
    open = undefined;
    out.push({ type: 'error', error });
    return out;
  };
  return {
    push: (sse: UpstreamSseEvent) => {
      if (finished) return [];
      if (sse.event === 'chunk') {
        const text = chunkText(sse.data);
        if (text instanceof GatewayError) return fail(text);
        const type = eventTypeOf(text);
        return track(inner.push(type === undefined ? { data: text } : { event: type, data: text }));
      }
      if (sse.event !== undefined && /exception$/i.test(sse.event)) {
        let message = sse.data;
        try {
          const parsed = JSON.parse(sse.data) as { message?: unknown };
          if (typeof parsed.message === 'string') message = parsed.message;
        } catch {
          // the raw payload is the message
        }
        return fail(classifyBedrockErrorNamed(bedrockErrorName(sse.event), message, undefined));
      }
      return []; // event types added after this surface was written
    },
    end: () => (finished ? [] : track(inner.end())),
  };
}

/**
 * The `bedrock:anthropic-messages` adapter made from `messagesAdapter` (the Anthropic Messages
 * adapter): Bedrock's URLs, body shape, event-stream framing and errors around its translation
 * and decoding. Bedrock's token counting is not offered through this surface.
 */
export function bedrockInvokeSurface(messagesAdapter: UpstreamAdapter): UpstreamAdapter {
  return {
    protocol: messagesAdapter.protocol,
    streamFraming: 'aws-eventstream',
    buildRequest: (request, target): BuiltUpstreamRequest => {
      const built = messagesAdapter.buildRequest(request, target);
      const notes = new TranslationNotes();
      notes.absorb(built.notes);
      const body = reshapeBody(JSON.parse(built.request.body) as Record<string, unknown>, request, notes);
      return { request: { ...invokeCallTarget(request, target), body: JSON.stringify(body) }, notes };
    },
    passThroughTarget: invokeCallTarget,
    decodeResponse: (body, context) => messagesAdapter.decodeResponse(body, context),
    createStreamDecoder: (context) => invokeStreamDecoder(messagesAdapter.createStreamDecoder(context)),
    classifyError: classifyBedrockHttpError,
  };
}

/**
 * Encodes a finished CanonicalResponse as a non-streamed Responses body (per https://platform.openai.com/docs/api-reference/responses/object): reasoning → `reasoning` item, text → `message` item, tool call → `function_call` item (or
 * `custom_tool_call` for a custom tool), in generation order, with fresh `resp_`/`msg_`/`rs_`/`fc_`/`ctc_` ids.
 */
import { generateId } from '../../canonical/ids.ts';
import type { CanonicalResponse, OutputBlock } from '../../canonical/response.ts';
import type { EncodeContext } from '../inbound-codec.ts';
import { buildResponseObject, echoRequestFields, nowUnixSeconds } from './build-response-object.ts';
import { mapResponsesStatus } from './map-responses-status.ts';
import { mapResponsesUsage } from './map-responses-usage.ts';
import { renderFinalItem, toolCallRecord, type ResponsesItemRecord } from './render-responses-output-item.ts';
import { responsesToolsByCanonicalName, type ResponsesToolEntry } from './responses-tool-names.ts';

/**
 * One item record per output block (redacted/empty reasoning kept only when it carries continuity
 * data); tool calls are renamed to the client's tools via `tools` (canonical name → offered tool).
 */
function toItemRecord(
  block: OutputBlock,
  tools: ReadonlyMap<string, ResponsesToolEntry>,
): ResponsesItemRecord | undefined {
  switch (block.type) {
    case 'text':
      return { kind: 'message', id: generateId('msg_'), text: block.text };
    case 'reasoning': {
      if (block.text === '' && !block.signature && block.redacted === undefined) return undefined;
      const record: ResponsesItemRecord = { kind: 'reasoning', id: generateId('rs_'), text: block.text };
      if (block.signature) record.signature = block.signature;
      return block.redacted === undefined ? record : { ...record, redacted: block.redacted };
    }
    case 'tool-call':
      return toolCallRecord(block.id, block.name, block.arguments, tools.get(block.name));
  }
}

/**
 * Builds the Response object. Status per map-responses-status.ts; when the response is
 * incomplete and the last item is a message, that message is `incomplete`. `completed_at` is set
 * (now, unix seconds) only for `completed`.
 */
export function encodeResponsesResponse(response: CanonicalResponse, context: EncodeContext): Record<string, unknown> {
  const tools = responsesToolsByCanonicalName(context.rawRequest);
  const records = response.content
    .map((block) => toItemRecord(block, tools))
    .filter((r): r is ResponsesItemRecord => r !== undefined);
  const terminal = mapResponsesStatus(response.finishReason);
  const output = records.map((record, i) => {
    const truncated = terminal.status === 'incomplete' && record.kind === 'message' && i === records.length - 1;
    return renderFinalItem(record, truncated ? 'incomplete' : 'completed');
  });
  return buildResponseObject(
    {
      id: generateId('resp_'),
      status: terminal.status,
      output,
      usage: mapResponsesUsage(response.usage),
      error: terminal.error,
      incompleteDetails: terminal.incompleteDetails,
      completedAt: terminal.status === 'completed' ? nowUnixSeconds() : null,
    },
    echoRequestFields(context.rawRequest),
    context,
  );
}

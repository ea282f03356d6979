/**
 * A fake upstream for the compaction tests: answers every upstream protocol's non-streamed
 * generation with a fixed summary text naming the protocol, OpenAI's `/responses/compact` with a
 * fixed compacted response, and records every request (path and JSON body). A request the real
 * API would refuse (unknown top-level field, orphan tool result:
 * gateway/mock/strict-request-rules.ts) is answered with that API's 400.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseLikeProviderAt } from '../../../gateway/mock/strict-request-rules.ts';

/** One request the fake received. */
export interface RecordedRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** The body as sent, for substring checks. */
  readonly text: string;
}

/** The summary text the fake's model writes on `protocol`. */
export function fakeSummary(protocol: string): string {
  return `SUMMARY written on ${protocol}: the user plans a trip to Kyoto in April.`;
}

/** What the fake's `/responses/compact` answers (an OpenAI-minted compaction). */
export const UPSTREAM_COMPACTED = {
  id: 'resp_upstream_compacted',
  object: 'response.compaction',
  created_at: 1731459200,
  output: [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Plan a trip to Kyoto' }] },
    { type: 'compaction', id: 'cmp_upstream', encrypted_content: 'gAAAAABopaque-openai-minted-ciphertext' },
  ],
  usage: {
    input_tokens: 42,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 12,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 54,
  },
};

function answerFor(path: string, body: Record<string, unknown>): unknown {
  const model = typeof body.model === 'string' ? body.model : 'unknown';
  if (path.endsWith('/responses/compact')) return UPSTREAM_COMPACTED;
  if (path.endsWith('/responses')) {
    return {
      id: 'resp_upstream_1',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model,
      output: [
        {
          type: 'message',
          id: 'msg_up_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: fakeSummary('openai-responses'), annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 50,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 70,
      },
    };
  }
  if (path.endsWith('/chat/completions')) {
    return {
      id: 'chatcmpl-up-1',
      object: 'chat.completion',
      created: 1,
      model,
      choices: [
        { index: 0, message: { role: 'assistant', content: fakeSummary('openai-chat') }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
    };
  }
  if (path.endsWith('/v1/messages')) {
    return {
      id: 'msg_up_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: fakeSummary('anthropic-messages') }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 20 },
    };
  }
  if (/:generateContent$/.test(path)) {
    return {
      candidates: [
        { index: 0, content: { role: 'model', parts: [{ text: fakeSummary('gemini') }] }, finishReason: 'STOP' },
      ],
      usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 20, totalTokenCount: 70 },
      modelVersion: 'up-gemini',
    };
  }
  return undefined;
}

/** A running fake. */
export interface CompactionUpstream {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startCompactionUpstream(): Promise<CompactionUpstream> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      requests.push({ path, body, text });
      const refusal = refuseLikeProviderAt(path, body);
      if (refusal) return void res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
      const answer = answerFor(path, body);
      if (answer === undefined)
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"unknown path"}}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

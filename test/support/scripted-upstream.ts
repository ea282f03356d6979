/**
 * A fake upstream of one protocol whose every answer a test scripts: a recorded success from
 * `test/fixtures/upstream/<protocol>/` (delayed, or cut in two with a pause between the parts),
 * an error with the status, body and headers the test gives, or an answer held until the test
 * releases it. Like the real APIs (and fixture-upstream.ts), it first refuses an unknown top-level
 * field or an orphan tool result with the provider's 400 (gateway/mock/strict-request-rules.ts).
 * It records every call with the time it arrived (ms since epoch), for lower bounds on waits.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WireFormat } from '../../gateway/canonical/formats.ts';
import { refuseLikeProvider } from '../../gateway/mock/strict-request-rules.ts';
import { fixturePath } from './fixture-upstream.ts';

/** One call the fake received. */
export interface ScriptedCall {
  /** 0-based, in arrival order. */
  readonly index: number;
  readonly path: string;
  /** The parsed JSON body. */
  readonly body: Record<string, unknown>;
  /** The upstream model named in the body (empty when none). */
  readonly model: string;
  /** 1-based number of this call among the calls naming the same `model`. */
  readonly nthOfModel: number;
  readonly stream: boolean;
  /** When the request's body had fully arrived, ms since epoch. */
  readonly receivedAt: number;
}

/**
 * What the fake answers to one call:
 * - `success`: the recorded `scenario` (default `text`), JSON or SSE by the call's `stream`, after
 *   `delayMs`; with `pauseAfterFirstPartMs`, the first `firstPartEvents` SSE events (default 2: in
 *   the OpenAI Chat `text` recording, the opening chunk and the first text token) or the first half
 *   of the JSON are sent at once and the rest after that pause (a fast first token, a slow finish);
 * - `error`: `status` with `body` (JSON text) and `headers`, after `delayMs`;
 * - `hold`: nothing until `release()`, then the `success` answer.
 */
export type ScriptedAnswer =
  | {
      readonly kind: 'success';
      readonly scenario?: string;
      readonly delayMs?: number;
      readonly pauseAfterFirstPartMs?: number;
      readonly firstPartEvents?: number;
    }
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly body: string;
      readonly headers?: Record<string, string>;
      readonly delayMs?: number;
    }
  | { readonly kind: 'hold' };

/** A running scripted fake. */
export interface ScriptedUpstream {
  /** Base URL for a channel of the fake's protocol, in that protocol's SDK convention. */
  readonly baseUrl: string;
  /** Every call, in arrival order (refused ones included). */
  readonly calls: ScriptedCall[];
  /** Calls held (`hold`) and not yet released. */
  held(): number;
  /** Answers every held call with the recorded success. */
  release(): void;
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function answerSuccess(
  protocol: WireFormat,
  call: ScriptedCall,
  answer: Extract<ScriptedAnswer, { kind: 'success' }>,
  res: ServerResponse,
): Promise<void> {
  const file = fixturePath(protocol, answer.scenario ?? 'text', call.stream ? 'sse' : 'json');
  if (!file) throw new Error(`no ${protocol} fixture ${answer.scenario ?? 'text'}`);
  const text = readFileSync(file, 'utf8');
  if (answer.delayMs) await sleep(answer.delayMs);
  res.writeHead(200, { 'content-type': call.stream ? 'text/event-stream' : 'application/json' });
  if (answer.pauseAfterFirstPartMs === undefined) return void res.end(text);
  let cut = Math.floor(text.length / 2);
  if (call.stream) {
    cut = 0;
    for (let events = 0; events < (answer.firstPartEvents ?? 2); events++) cut = text.indexOf('\n\n', cut) + 2;
  }
  res.write(text.slice(0, cut));
  await sleep(answer.pauseAfterFirstPartMs);
  res.end(text.slice(cut));
}

/**
 * Starts the fake for `protocol` on 127.0.0.1 (ephemeral port); `script` decides the answer of
 * each call that passes the provider's request rules.
 */
export async function startScriptedUpstream(
  protocol: WireFormat,
  script: (call: ScriptedCall) => ScriptedAnswer,
): Promise<ScriptedUpstream> {
  const calls: ScriptedCall[] = [];
  const waiting: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const model = typeof body.model === 'string' ? body.model : '';
      const call: ScriptedCall = {
        index: calls.length,
        path,
        body,
        model,
        nthOfModel: calls.filter((c) => c.model === model).length + 1,
        stream: body.stream === true,
        receivedAt: Date.now(),
      };
      calls.push(call);
      const refusal = refuseLikeProvider(protocol, path.split('?')[0] ?? '', body);
      if (refusal) return void res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(refusal.body);
      const answer = script(call);
      const reply = async (): Promise<void> => {
        if (answer.kind === 'hold') {
          await new Promise<void>((resolve) => waiting.push(resolve));
          return answerSuccess(protocol, call, { kind: 'success' }, res);
        }
        if (answer.kind === 'success') return answerSuccess(protocol, call, answer, res);
        if (answer.delayMs) await sleep(answer.delayMs);
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
      };
      reply().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: protocol === 'openai-chat' || protocol === 'openai-responses' ? `${origin}/v1` : origin,
    calls,
    held: () => waiting.length,
    release: () => waiting.splice(0).forEach((resume) => resume()),
    close: () =>
      new Promise<void>((resolve) => {
        waiting.splice(0).forEach((resume) => resume());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

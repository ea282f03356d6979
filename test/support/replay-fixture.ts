/**
 * Test helpers for the upstream adapter tests: read recorded upstream fixtures, parse
 * their SSE bytes with eventsource-parser exactly as the transport does (CRLF handled, comments
 * dropped), replay them through a decoder, check the StreamEvent grammar, and summarise a response
 * in the shape of the `<name>.expect.json` sidecars.
 */
import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import type { WireFormat } from '../../gateway/canonical/formats.ts';
import type { CanonicalRequest } from '../../gateway/canonical/request.ts';
import type { CanonicalResponse } from '../../gateway/canonical/response.ts';
import type { StreamEvent } from '../../gateway/canonical/stream-event.ts';
import { getProviderPreset } from '../../gateway/providers/presets.ts';
import type { ProviderId } from '../../gateway/providers/provider-preset.ts';
import type {
  UpstreamDecodeContext,
  UpstreamSseEvent,
  UpstreamStreamDecoder,
} from '../../gateway/upstream/upstream-adapter.ts';

/** The fixture folders these helpers serve: one per upstream protocol. */
export type FixtureProtocol = WireFormat;

/** The sidecar `<name>.expect.json` shape. */
export interface FixtureExpectation {
  text: string;
  reasoning: string;
  toolCalls: Array<{ name: string; arguments: unknown }>;
  finish: string;
  usage: {
    inputTotal: number;
    cacheRead: number;
    cacheWrite: number;
    /** only when the response wrote to a 1-hour cache */
    cacheWrite1h?: number;
    outputTotal: number;
    reasoning: number;
  };
}

const FIXTURES = new URL('../fixtures/upstream/', import.meta.url);

/** Raw text of `test/fixtures/upstream/<protocol>/<file>`. */
export function readFixture(protocol: FixtureProtocol, file: string): string {
  return readFileSync(new URL(`${protocol}/${file}`, FIXTURES), 'utf8');
}

/** The parsed `<name>.json` fixture. */
export function readJsonFixture(protocol: FixtureProtocol, name: string): unknown {
  return JSON.parse(readFixture(protocol, `${name}.json`)) as unknown;
}

/** The parsed `<name>.expect.json`. */
export function readExpectation(protocol: FixtureProtocol, name: string): FixtureExpectation {
  return JSON.parse(readFixture(protocol, `${name}.expect.json`)) as FixtureExpectation;
}

/** SSE bytes → events, as eventsource-parser delivers them. */
export function parseSse(bytes: string): UpstreamSseEvent[] {
  const events: UpstreamSseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => events.push(e.event === undefined ? { data: e.data } : { event: e.event, data: e.data }),
  });
  parser.feed(bytes);
  return events;
}

/** Pushes every event through `decoder`, then calls end(). */
export function replay(decoder: UpstreamStreamDecoder, events: ReadonlyArray<UpstreamSseEvent>): StreamEvent[] {
  return [...events.flatMap((e) => decoder.push(e)), ...decoder.end()];
}

/** A decode context for `provider` with a minimal request. */
export function contextFor(
  provider: ProviderId,
  upstreamModel = 'test-model',
  request?: CanonicalRequest,
): UpstreamDecodeContext {
  const fallback: CanonicalRequest = {
    clientFormat: 'anthropic-messages',
    model: 'alias',
    stream: true,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  };
  return { provider: getProviderPreset(provider), upstreamModel, request: request ?? fallback };
}

const START_KIND: Partial<Record<StreamEvent['type'], string>> = {
  'text-start': 'text',
  'reasoning-start': 'reasoning',
  'tool-input-start': 'tool',
};
const DELTA_KIND: Partial<Record<StreamEvent['type'], string>> = {
  'text-delta': 'text',
  'reasoning-delta': 'reasoning',
  'reasoning-signature': 'reasoning',
  'tool-input-delta': 'tool',
};

/**
 * Throws unless `events` follow stream-event.ts: message-start first, blocks indexed 0.. with at
 * most one open, deltas only into the open block of their kind, every block closed, and exactly
 * one terminal event (`message-end`, or `error` when `terminal` says so) as the last event.
 */
export function assertStreamGrammar(
  events: ReadonlyArray<StreamEvent>,
  terminal: 'message-end' | 'error' = 'message-end',
): void {
  if (events[0]?.type !== 'message-start') throw new Error(`first event is ${events[0]?.type}, not message-start`);
  if (events.at(-1)?.type !== terminal) throw new Error(`last event is ${events.at(-1)?.type}, not ${terminal}`);
  let next = 0;
  let open: { index: number; kind: string } | undefined;
  events.slice(1, -1).forEach((event, i) => {
    const where = `event ${i + 1} (${event.type})`;
    const startKind = START_KIND[event.type];
    const deltaKind = DELTA_KIND[event.type];
    if (startKind !== undefined && 'index' in event) {
      if (open) throw new Error(`${where}: block ${open.index} still open`);
      if (event.index !== next) throw new Error(`${where}: index ${event.index}, expected ${next}`);
      open = { index: next++, kind: startKind };
    } else if (deltaKind !== undefined && 'index' in event) {
      if (open?.index !== event.index || open.kind !== deltaKind)
        throw new Error(`${where}: not into the open ${deltaKind} block`);
    } else if (event.type === 'block-end') {
      if (open?.index !== event.index) throw new Error(`${where}: closes ${event.index}, open is ${open?.index}`);
      open = undefined;
    } else if (event.type !== 'keep-alive') {
      throw new Error(`${where}: unexpected in the middle of a stream`);
    }
  });
  if (open) throw new Error(`block ${open.index} never closed`);
}

/** A response in the sidecar shape: joined text and reasoning, parsed tool arguments, unified finish. */
export function summarize(response: CanonicalResponse): FixtureExpectation {
  const join = (type: 'text' | 'reasoning'): string =>
    response.content.flatMap((b) => (b.type === type ? [b.text] : [])).join('');
  return {
    text: join('text'),
    reasoning: join('reasoning'),
    toolCalls: response.content.flatMap((b) =>
      b.type === 'tool-call' ? [{ name: b.name, arguments: JSON.parse(b.arguments) as unknown }] : [],
    ),
    finish: response.finishReason.unified,
    usage: {
      inputTotal: response.usage.input.total,
      cacheRead: response.usage.input.cacheRead,
      cacheWrite: response.usage.input.cacheWrite,
      ...(response.usage.input.cacheWrite1h ? { cacheWrite1h: response.usage.input.cacheWrite1h } : {}),
      outputTotal: response.usage.output.total,
      reasoning: response.usage.output.reasoning,
    },
  };
}

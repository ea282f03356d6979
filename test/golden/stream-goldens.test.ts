/**
 * Golden tests: every recorded upstream stream (test/fixtures/upstream/<protocol>/*.sse) is
 * decoded by its upstream adapter and re-encoded by every client stream encoder; the SSE text
 * must equal the golden file test/golden/files/<protocol>/<scenario>.<client>.sse byte for byte
 * (random ids normalised to `<id>`). Regenerate only on purpose: `npm run golden:update`.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { UPSTREAM_ADAPTERS } from '../../gateway/app.ts';
import { WIRE_FORMATS, type WireFormat } from '../../gateway/canonical/formats.ts';
import type { CanonicalRequest } from '../../gateway/canonical/request.ts';
import type { StreamEvent } from '../../gateway/canonical/stream-event.ts';
import { anthropicMessagesCodec } from '../../gateway/inbound/anthropic-messages/anthropic-messages-codec.ts';
import { geminiCodec } from '../../gateway/inbound/gemini/gemini-codec.ts';
import type { InboundCodec } from '../../gateway/inbound/inbound-codec.ts';
import { openaiChatCodec } from '../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import { openaiResponsesCodec } from '../../gateway/inbound/openai-responses/openai-responses-codec.ts';
import { getProviderPreset } from '../../gateway/providers/presets.ts';
import type { ProviderId } from '../../gateway/providers/provider-preset.ts';
import { FIXTURE_ROOT } from '../support/fixture-upstream.ts';

const GOLDEN_ROOT = fileURLToPath(new URL('./files/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const CODECS: Record<WireFormat, InboundCodec> = {
  'openai-responses': openaiResponsesCodec,
  'openai-chat': openaiChatCodec,
  'anthropic-messages': anthropicMessagesCodec,
  gemini: geminiCodec,
};

/** Provider whose quirks a fixture was recorded with (by file-name prefix). */
function providerFor(protocol: WireFormat, scenario: string): ProviderId {
  for (const id of ['moonshot', 'minimax', 'mimo', 'zhipu', 'deepseek'] as const)
    if (scenario.startsWith(id)) return id === 'mimo' ? 'xiaomi' : id;
  return protocol === 'openai-responses'
    ? 'openai'
    : protocol === 'anthropic-messages'
      ? 'anthropic'
      : protocol === 'gemini'
        ? 'gemini'
        : 'deepseek';
}

function decodeFixture(protocol: WireFormat, scenario: string, request: CanonicalRequest): StreamEvent[] {
  const decoder = UPSTREAM_ADAPTERS[protocol]!.createStreamDecoder({
    provider: getProviderPreset(providerFor(protocol, scenario)),
    upstreamModel: 'golden-model',
    request,
  });
  const events: StreamEvent[] = [];
  const parser = createParser({
    onEvent: (e) =>
      events.push(...decoder.push(e.event === undefined ? { data: e.data } : { event: e.event, data: e.data })),
  });
  parser.feed(readFileSync(`${FIXTURE_ROOT}${protocol}/${scenario}.sse`, 'utf8'));
  parser.reset({ consume: true });
  events.push(...decoder.end());
  return events;
}

/** Replaces random id material (24+ hex chars) and wall-clock completion times so goldens are stable. */
function normaliseIds(text: string): string {
  return text.replace(/[0-9a-f]{24,}/g, '<id>').replace(/"completed_at":\d+/g, '"completed_at":"<time>"');
}

const cases = WIRE_FORMATS.flatMap((protocol) => {
  const dir = `${FIXTURE_ROOT}${protocol}`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sse'))
    .map((f) => ({ protocol, scenario: f.slice(0, -'.sse'.length) }));
});

describe.each(cases)('$protocol/$scenario', ({ protocol, scenario }) => {
  it.each(WIRE_FORMATS)('through the %s client encoder', (client) => {
    const request: CanonicalRequest = {
      clientFormat: client,
      model: 'golden-model',
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    };
    const encoder = CODECS[client].createStreamEncoder({
      requestId: 'req_golden',
      model: 'golden-model',
      request,
      rawRequest: { model: 'golden-model', stream: true, stream_options: { include_usage: true } },
      createdAt: 1755500000,
    });
    const output = normaliseIds(
      decodeFixture(protocol, scenario, request)
        .map((e) => encoder.encode(e))
        .join(''),
    );
    const path = `${GOLDEN_ROOT}${protocol}/${scenario}.${client}.sse`;
    if (UPDATE || !existsSync(path)) {
      if (!UPDATE) throw new Error(`missing golden ${path}; run npm run golden:update and review it`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, output);
    }
    expect(output).toBe(readFileSync(path, 'utf8'));
  });
});

/**
 * The soak's configuration and client mix. Channels: every upstream protocol (OpenAI Chat,
 * OpenAI Responses, Anthropic Messages, Gemini) under every soak-upstream behaviour, one model
 * each (`<protocol>-<behaviour>`, e.g. `messages-cut`), plus `failover` (a failing channel tried
 * first, then a working one). Clients: the four client formats, streamed and not, with a share of
 * clients that abort mid-stream or before the answer, stored Responses answers and chains, token
 * counts, model lists and malformed requests; a third of the prompts carry high-entropy letter runs
 * (as fuzzed input does), which the gateway's tokenizer has never seen. Draws come from a seeded generator (mulberry32), so
 * two runs with the same seed send the same sequence of request kinds.
 */
import { Agent, request } from 'undici';
import type { SoakUpstreamBehaviour } from './soak-upstream.ts';
import { seededRandom } from '../support/seeded-random.ts';

/** The client key of the soak's config. */
export const SOAK_KEY = 'sk-soak-key-000000001';

const PROTOCOLS = [
  { short: 'chat', protocol: 'openai-chat', suffix: '/v1' },
  { short: 'responses', protocol: 'openai-responses', suffix: '/v1' },
  { short: 'messages', protocol: 'anthropic-messages', suffix: '' },
  { short: 'gemini', protocol: 'gemini', suffix: '' },
] as const;

/** Upstream behaviour → share of generation requests sent to its models (sums to 1). */
const BEHAVIOUR_SHARES: ReadonlyArray<readonly [SoakUpstreamBehaviour | 'failover', number]> = [
  ['ok', 0.5],
  ['slow', 0.1],
  ['fail', 0.08],
  ['cut', 0.1],
  ['stall', 0.04],
  ['reset', 0.05],
  ['garbage', 0.05],
  ['failover', 0.08],
];

/** Channel time limit of `stall` channels, ms (to headers and between body bytes). */
const STALL_TIMEOUT_MS = 1500;

/**
 * The soak gateway's config document (YAML/JSON shape of gateway/config/config-schema.ts): one
 * mock-provider channel per protocol × behaviour at `upstreamOrigin/h/<behaviour>`, the failover
 * pair per protocol, the soak key, and a price for every model so the consumers cost each row.
 */
export function buildSoakConfig(
  upstreamOrigin: string,
  behaviours: ReadonlyArray<SoakUpstreamBehaviour>,
): Record<string, unknown> {
  const channels: Array<Record<string, unknown>> = [];
  const models: string[] = [];
  for (const { short, protocol, suffix } of PROTOCOLS) {
    for (const behaviour of behaviours) {
      const model = `${short}-${behaviour}`;
      models.push(model);
      channels.push({
        id: `soak-${model}`,
        provider: 'mock',
        protocol,
        baseUrl: `${upstreamOrigin}/h/${behaviour}${suffix}`,
        models: [model],
        ...(behaviour === 'stall' ? { timeoutMs: STALL_TIMEOUT_MS } : {}),
      });
    }
    channels.push({
      id: `soak-failover-first-${short}`,
      provider: 'mock',
      protocol,
      baseUrl: `${upstreamOrigin}/h/fail${suffix}`,
      models: ['failover'],
      priority: 1,
    });
    channels.push({
      id: `soak-failover-then-${short}`,
      provider: 'mock',
      protocol,
      baseUrl: `${upstreamOrigin}/h/ok${suffix}`,
      models: ['failover'],
      priority: 0,
    });
  }
  models.push('failover');
  return {
    channels,
    keys: [{ name: 'soak', key: SOAK_KEY }],
    prices: models.map((model) => ({
      model,
      inputPerMTok: 0.5,
      outputPerMTok: 1.5,
      effectiveFrom: '2020-01-01T00:00:00Z',
    })),
  };
}

/** How a client ends its request: reads to the end, aborts after the first body bytes, or aborts before the answer. */
export type SoakAbort = 'none' | 'mid-stream' | 'early';

/** One request of the mix. */
export interface SoakRequest {
  /** A label for the tally: client format and what it does (`chat stream`, `bad-json`, …). */
  readonly kind: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly abort: SoakAbort;
}

const WORDS = [
  'gateway',
  'token',
  'stream',
  'model',
  'latency',
  'answer',
  'memory',
  'soak',
  'upstream',
  'client',
  'frame',
  'delta',
  'räksmörgås',
  '数据',
  'emoji 🚀',
];

function pick<T>(random: () => number, items: ReadonlyArray<T>): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** A run of random lowercase letters (`length` code units): a pre-token the tokenizer has never seen, as fuzzed text has. */
function randomLetters(random: () => number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += String.fromCharCode(97 + Math.floor(random() * 26));
  return text;
}

/** Prose from a small vocabulary; in one prompt of three, a few high-entropy runs of 16–512 letters too. */
function promptText(random: () => number, sequence: number): string {
  const words = 5 + Math.floor(random() ** 3 * 600);
  const parts = [`soak request ${sequence}:`];
  for (let i = 0; i < words; i++) parts.push(pick(random, WORDS));
  if (random() < 1 / 3)
    for (let i = 0; i < 4; i++) parts.push(randomLetters(random, 16 + Math.floor(random() ** 2 * 496)));
  return parts.join(' ');
}

function pickModel(random: () => number): { model: string; upstream: string } {
  let draw = random();
  let behaviour: string = 'ok';
  for (const [name, share] of BEHAVIOUR_SHARES) {
    if (draw < share) {
      behaviour = name;
      break;
    }
    draw -= share;
  }
  if (behaviour === 'failover') return { model: 'failover', upstream: 'mixed' };
  const upstream = pick(random, PROTOCOLS).short;
  return { model: `${upstream}-${behaviour}`, upstream };
}

/** Each client format's auth and content headers for `key`. */
function headersFor(key: string) {
  return {
    openai: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    anthropic: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    gemini: { 'x-goog-api-key': key, 'content-type': 'application/json' },
  };
}

/** Stored Responses ids the mix continues from (most recent last, at most 64). */
export class StoredResponseIds {
  private readonly ids: string[] = [];
  add(id: string): void {
    this.ids.push(id);
    if (this.ids.length > 64) this.ids.shift();
  }
  pick(random: () => number): string | undefined {
    return this.ids.length === 0 ? undefined : pick(random, this.ids);
  }
}

function generationRequest(
  random: () => number,
  sequence: number,
  stored: StoredResponseIds,
  key: string,
): SoakRequest {
  const { openai: openaiHeaders, anthropic: anthropicHeaders, gemini: geminiHeaders } = headersFor(key);
  const format = pick(random, ['chat', 'responses', 'messages', 'gemini'] as const);
  const stream = random() < 0.5;
  const { model } = pickModel(random);
  const text = promptText(random, sequence);
  const abortDraw = random();
  const abort: SoakAbort = stream && abortDraw < 0.15 ? 'mid-stream' : abortDraw > 0.97 ? 'early' : 'none';
  const kind = `${format}${stream ? ' stream' : ''}`;
  switch (format) {
    case 'chat':
      return {
        kind,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: openaiHeaders,
        body: JSON.stringify({
          model,
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
          messages: [{ role: 'user', content: text }],
        }),
        abort,
      };
    case 'responses': {
      const previous = random() < 0.1 ? stored.pick(random) : undefined;
      return {
        kind,
        method: 'POST',
        path: '/v1/responses',
        headers: openaiHeaders,
        body: JSON.stringify({
          model,
          stream,
          input: text,
          store: random() < 0.7,
          ...(previous ? { previous_response_id: previous } : {}),
        }),
        abort,
      };
    }
    case 'messages':
      return {
        kind,
        method: 'POST',
        path: '/v1/messages',
        headers: anthropicHeaders,
        body: JSON.stringify({ model, stream, max_tokens: 512, messages: [{ role: 'user', content: text }] }),
        abort,
      };
    case 'gemini':
      return {
        kind,
        method: 'POST',
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: geminiHeaders,
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
        abort,
      };
  }
}

function nested(depth: number): string {
  return `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
}

/** Token counts, model lists, stored-response reads and malformed or unauthorised requests. */
function otherRequest(random: () => number, sequence: number, stored: StoredResponseIds, key: string): SoakRequest {
  const { openai: openaiHeaders, anthropic: anthropicHeaders, gemini: geminiHeaders } = headersFor(key);
  const text = promptText(random, sequence);
  const none = 'none' as const;
  const choices: Array<() => SoakRequest> = [
    () => ({
      kind: 'messages count_tokens',
      method: 'POST',
      path: '/v1/messages/count_tokens',
      headers: anthropicHeaders,
      body: JSON.stringify({ model: 'messages-ok', messages: [{ role: 'user', content: text }] }),
      abort: none,
    }),
    () => ({
      kind: 'gemini countTokens',
      method: 'POST',
      path: '/v1beta/models/gemini-ok:countTokens',
      headers: geminiHeaders,
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
      abort: none,
    }),
    () => ({ kind: 'models', method: 'GET', path: '/v1/models', headers: openaiHeaders, abort: none }),
    () => ({
      kind: 'responses get',
      method: 'GET',
      path: `/v1/responses/${stored.pick(random) ?? 'resp_missing'}`,
      headers: openaiHeaders,
      abort: none,
    }),
    () => ({
      kind: 'bad-json',
      method: 'POST',
      path: pick(random, [
        '/v1/chat/completions',
        '/v1/responses',
        '/v1/messages',
        '/v1beta/models/gemini-ok:generateContent',
      ]),
      headers: openaiHeaders,
      body: `{"model": "chat-ok", "messages": [${text.slice(0, 40)}`,
      abort: none,
    }),
    () => ({
      kind: 'bad-shape',
      method: 'POST',
      path: '/v1/chat/completions',
      headers: openaiHeaders,
      body: JSON.stringify({ model: 5, messages: 'nope', temperature: 'hot' }),
      abort: none,
    }),
    () => ({
      kind: 'nested',
      method: 'POST',
      path: '/v1/messages',
      headers: anthropicHeaders,
      body: `{"model":"messages-ok","max_tokens":5,"messages":[{"role":"user","content":${nested(500)}}]}`,
      abort: none,
    }),
    () => ({
      kind: 'unknown-model',
      method: 'POST',
      path: '/v1/chat/completions',
      headers: openaiHeaders,
      body: JSON.stringify({ model: `no-such-model-${sequence}`, messages: [{ role: 'user', content: 'hi' }] }),
      abort: none,
    }),
    () => ({
      kind: 'bad-key',
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { ...openaiHeaders, authorization: `Bearer sk-wrong-${sequence}` },
      body: JSON.stringify({ model: 'chat-ok', messages: [{ role: 'user', content: 'hi' }] }),
      abort: none,
    }),
    () => ({
      kind: 'bad-url',
      method: 'GET',
      path: `/v1/models/%25ZZ${sequence}`,
      headers: openaiHeaders,
      abort: none,
    }),
  ];
  return pick(random, choices)();
}

/** The `sequence`-th request of the mix, sent with `key`: 90% generation requests, 10% everything else. */
export function pickSoakRequest(
  random: () => number,
  sequence: number,
  stored: StoredResponseIds,
  key: string = SOAK_KEY,
): SoakRequest {
  return random() < 0.9
    ? generationRequest(random, sequence, stored, key)
    : otherRequest(random, sequence, stored, key);
}

/** Counts of finished requests: by status class, aborts by the client, transport errors, and per kind. */
export interface SoakTally {
  sent: number;
  status2xx: number;
  status4xx: number;
  status5xx: number;
  clientAborts: number;
  transportErrors: number;
  readonly byKind: Map<string, number>;
}

/** An empty tally. */
export function emptySoakTally(): SoakTally {
  return { sent: 0, status2xx: 0, status4xx: 0, status5xx: 0, clientAborts: 0, transportErrors: 0, byKind: new Map() };
}

function recordStatus(tally: SoakTally, status: number): void {
  if (status < 300) tally.status2xx += 1;
  else if (status < 500) tally.status4xx += 1;
  else tally.status5xx += 1;
}

async function sendOne(
  origin: string,
  soak: SoakRequest,
  dispatcher: Agent,
  tally: SoakTally,
  stored: StoredResponseIds,
  random: () => number,
): Promise<void> {
  const controller = new AbortController();
  const early = soak.abort === 'early' ? setTimeout(() => controller.abort(), Math.floor(random() * 30)) : undefined;
  tally.sent += 1;
  tally.byKind.set(soak.kind, (tally.byKind.get(soak.kind) ?? 0) + 1);
  try {
    const answer = await request(`${origin}${soak.path}`, {
      method: soak.method,
      headers: soak.headers,
      body: soak.body ?? null,
      dispatcher,
      signal: controller.signal,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    recordStatus(tally, answer.statusCode);
    if (soak.abort === 'mid-stream') {
      for await (const _chunk of answer.body) break; // leaving the loop destroys the body: the client hangs up mid-stream
      tally.clientAborts += 1;
      return;
    }
    const text = await answer.body.text();
    if (answer.statusCode === 200 && soak.kind === 'responses' && text.includes('"store":true')) {
      const id = /"id":"(resp_[^"]+)"/.exec(text)?.[1];
      if (id) stored.add(id);
    }
  } catch {
    if (controller.signal.aborted) tally.clientAborts += 1;
    else tally.transportErrors += 1;
  } finally {
    clearTimeout(early);
  }
}

/** Where and how long the clients run. */
export interface SoakClientOptions {
  readonly origin: string;
  /** Requests in flight at once. */
  readonly concurrency: number;
  readonly seed: number;
  /** Clients stop starting new requests once this is aborted. */
  readonly stop: AbortSignal;
  readonly tally: SoakTally;
  /** The client key sent (default SOAK_KEY, which has no limits). */
  readonly key?: string;
}

/** Runs `concurrency` clients sending the mix until `stop` aborts; resolves when the last request ended. */
export async function runSoakClients(options: SoakClientOptions): Promise<void> {
  const random = seededRandom(options.seed);
  const stored = new StoredResponseIds();
  const dispatcher = new Agent({ connections: options.concurrency * 2, keepAliveTimeout: 10_000 });
  let sequence = 0;
  const client = async (): Promise<void> => {
    while (!options.stop.aborted) {
      sequence += 1;
      await sendOne(
        options.origin,
        pickSoakRequest(random, sequence, stored, options.key ?? SOAK_KEY),
        dispatcher,
        options.tally,
        stored,
        random,
      );
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, client));
  } finally {
    await dispatcher.close();
  }
}

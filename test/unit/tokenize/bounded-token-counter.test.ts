/**
 * The bounded token counter: the library's own counts on ordinary text (a corpus of prompts,
 * prose, code and JSON in several scripts), close counts on runs without any word boundary, no
 * piece longer than MAX_PIECE_LENGTH ever reaching BPE, linear growth, a shared exact budget with
 * an estimate beyond it, and no throw on any text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { countTokens as libraryCountTokens, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import {
  BoundedTokenCounter,
  EXACT_BUDGET,
  MAX_PIECE_LENGTH,
} from '../../../gateway/tokenize/bounded-token-counter.ts';
import { countTextTokens, estimateInputTokens } from '../../../gateway/tokenize/estimate-tokens.ts';

const libraryCalls: string[] = [];
let recordCalls = false;
// The counter loads the library through `require` (o200k-tokenizer.ts) and reads `countTokens` off
// its module object on each call: wrapping that property records every text given to BPE.
const requiredLibrary = createRequire(import.meta.url)(
  'gpt-tokenizer/encoding/o200k_base',
) as typeof import('gpt-tokenizer/encoding/o200k_base');
const originalCountTokens = requiredLibrary.countTokens;
requiredLibrary.countTokens = (...args: Parameters<typeof originalCountTokens>) => {
  if (recordCalls && typeof args[0] === 'string') libraryCalls.push(args[0]);
  return originalCountTokens(...args);
};

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ORDINARY = { disallowedSpecial: new Set<string>() };

/** Ordinary prompts: chat turns in several scripts, code, JSON, markdown, and the repository's own docs and fixtures. */
function ordinaryCorpus(): string[] {
  const written = [
    'Hello! Can you summarise the following article in three bullet points?',
    "I'm sure you'll agree: it's what we've said, isn't it? They'd never DON'T.",
    '请用三句话总结下面这篇文章的主要内容，并给出你的看法。谢谢！',
    'この文章を要約してください。重要な点を三つ挙げてください。',
    'Пожалуйста, кратко изложите основные идеи этой статьи на русском языке.',
    'يرجى تلخيص هذه المقالة في ثلاث نقاط رئيسية.',
    'कृपया इस लेख का सारांश तीन बिंदुओं में दें।',
    'กรุณาสรุปบทความนี้เป็นสามประเด็นหลัก ขอบคุณครับ',
    'Emoji 👩‍💻🚀✨ and accents: café naïve coöperate Ångström',
    'function add(a: number, b: number): number {\n  return a + b;\n}\n\nconsole.log(add(1, 2));\n',
    JSON.stringify({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer', minimum: 1 } },
      required: ['city'],
    }),
    '| name | value |\n|------|-------|\n| a    | 1     |\n| b    | 22    |\n',
    'Numbers 1234567890 3.14159 1e-9 0xFF, dates 2026-11-24T02:27:27Z, URLs https://example.com/a/b?c=d&e=f#g',
    '    indented\n\t\ttabs\r\n\r\nwindows line ends   \n\n\n   trailing   ',
  ];
  const files = ['README.md', 'gateway/app.ts', 'gateway/exchange/run-exchange.ts', 'gateway/canonical/request.ts'].map(
    (path) => readFileSync(ROOT + path, 'utf8'),
  );
  const fixtures = ['anthropic-messages', 'openai-chat', 'gemini', 'openai-responses'].flatMap((protocol) =>
    readdirSync(`${ROOT}test/fixtures/upstream/${protocol}`).map((name) =>
      readFileSync(`${ROOT}test/fixtures/upstream/${protocol}/${name}`, 'utf8'),
    ),
  );
  return [...written, written.join('\n\n'), ...files, ...fixtures];
}

/** Longest o200k pre-token of `text` (code units). */
function longestPreToken(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) longest = Math.max(longest, match[0].length);
  return longest;
}

function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

describe('BoundedTokenCounter on ordinary text', () => {
  const corpus = ordinaryCorpus();

  it('gives the library’s own counts, text by text', () => {
    for (const text of corpus) {
      const expected = encode(text).length;
      expect(new BoundedTokenCounter(Number.POSITIVE_INFINITY).count(text), text.slice(0, 60)).toBe(expected);
      if (Buffer.byteLength(text) <= EXACT_BUDGET) expect(countTextTokens(text), text.slice(0, 60)).toBe(expected);
    }
  });

  it('gives the library’s count when long stretches of punctuation and spaces send it window by window', () => {
    const text = corpus.slice(0, 14).join(' - - - '.repeat(200));
    expect(text.length).toBeGreaterThan(8192 * 2);
    expect(longestPreToken(text)).toBeLessThanOrEqual(MAX_PIECE_LENGTH);
    expect(new BoundedTokenCounter(Number.POSITIVE_INFINITY).count(text)).toBe(libraryCountTokens(text, ORDINARY));
  });

  it('estimates a whole request as the sum of its parts, once per request object', () => {
    const request: CanonicalRequest = {
      clientFormat: 'openai-chat',
      model: 'm',
      stream: false,
      system: corpus[0],
      messages: corpus
        .slice(1, 14)
        .map((text, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] })),
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
    };
    const parts = [
      request.system!,
      ...corpus.slice(1, 14),
      'get_weather',
      'Weather for a city',
      JSON.stringify(request.tools![0]!.parameters),
    ];
    const expected = parts.reduce((sum, text) => sum + encode(text).length, 0) + 3 * (1 + 13) + 3;
    expect(estimateInputTokens(request)).toBe(expected);
    recordCalls = true;
    libraryCalls.length = 0;
    expect(estimateInputTokens(request)).toBe(expected);
    recordCalls = false;
    expect(libraryCalls).toEqual([]);
  });
});

describe('BoundedTokenCounter on text without word boundaries', () => {
  it('never hands BPE a piece longer than MAX_PIECE_LENGTH', () => {
    recordCalls = true;
    libraryCalls.length = 0;
    new BoundedTokenCounter(Number.POSITIVE_INFINITY).count('a'.repeat(1024 * 1024));
    new BoundedTokenCounter(Number.POSITIVE_INFINITY).count(
      `${'x'.repeat(5000)} ${'.'.repeat(5000)} ${' '.repeat(5000)}y${'中'.repeat(5000)}`,
    );
    recordCalls = false;
    expect(libraryCalls.length).toBeGreaterThan(0);
    for (const call of libraryCalls) expect(longestPreToken(call)).toBeLessThanOrEqual(MAX_PIECE_LENGTH);
  });

  it('counts runs close to the library’s exact count', () => {
    for (const run of ['a'.repeat(16 * 1024), '='.repeat(16 * 1024), ' '.repeat(16 * 1024), '中'.repeat(8 * 1024)]) {
      const exact = libraryCountTokens(run, ORDINARY);
      const bounded = new BoundedTokenCounter(Number.POSITIVE_INFINITY).count(run);
      expect(Math.abs(bounded - exact), run.slice(0, 3)).toBeLessThanOrEqual(Math.ceil(exact * 0.02) + 2);
    }
  });

  it('grows linearly: 256 KiB of one character costs far less than 16× 64 KiB', () => {
    const small = 'a'.repeat(64 * 1024);
    const large = 'a'.repeat(256 * 1024);
    const counter = (): BoundedTokenCounter => new BoundedTokenCounter(Number.POSITIVE_INFINITY);
    const smallMs = Math.min(...[0, 1, 2].map(() => cpuMs(() => counter().count(small))));
    const largeMs = Math.min(...[0, 1, 2].map(() => cpuMs(() => counter().count(large))));
    // Quadratic growth would make the large run 16× the small one; the slack absorbs timer noise.
    expect(largeMs).toBeLessThan(8 * smallMs + 50);
  });

  it('counts multi-megabyte runs that break the pre-tokenizer regex (stack overflow) or surrogate pairs', () => {
    for (const text of ['e\u0301'.repeat(1024 * 1024), '😀'.repeat(512 * 1024), `\ud800${'a'.repeat(600)}\udc00`]) {
      expect(() => libraryCountTokens(text.slice(0, 64), ORDINARY)).not.toThrow();
      const tokens = new BoundedTokenCounter(Number.POSITIVE_INFINITY).count(text);
      expect(tokens).toBeGreaterThan(0);
    }
  });
});

describe('BoundedTokenCounter budget', () => {
  it('counts special-token text as ordinary text instead of throwing', () => {
    const text = 'before <|endoftext|> after <|fim_prefix|>';
    expect(() => encode(text)).toThrow();
    expect(countTextTokens(text)).toBe(libraryCountTokens(text, ORDINARY));
  });

  it('estimates beyond its exact budget at the ratio it counted, shared by every string', () => {
    const prose = readFileSync(ROOT + 'README.md', 'utf8');
    const counter = new BoundedTokenCounter(4096);
    const first = counter.count(prose.slice(0, 3000));
    expect(first).toBe(encode(prose.slice(0, 3000)).length);
    expect(counter.estimated).toBe(false);
    const second = counter.count(prose.slice(3000, 40_000));
    expect(counter.estimated).toBe(true);
    const exact = encode(prose.slice(3000, 40_000)).length;
    expect(Math.abs(second - exact) / exact).toBeLessThan(0.15);
  });

  it('estimates 4 bytes per token when nothing was counted exactly', () => {
    expect(new BoundedTokenCounter(0).count('x'.repeat(4000))).toBe(1000);
  });

  it('keeps a 4 MiB run of one character to its budget (close to the exact count)', () => {
    const counter = new BoundedTokenCounter();
    const tokens = counter.count('a'.repeat(4 * 1024 * 1024));
    expect(counter.estimated).toBe(true);
    // 'a' × 8 is one o200k token: the exact count is 524,288.
    expect(Math.abs(tokens - 524_288)).toBeLessThan(524_288 * 0.02);
  });
});

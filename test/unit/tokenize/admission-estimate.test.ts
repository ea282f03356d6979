/**
 * The admission estimate: character classes alone, within ±30 % of the BPE on prose, code, JSON
 * and other scripts; a scan bounded per request; never a replacement for the billing estimate;
 * and a gateway that only admits requests never loads the BPE vocabulary.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import {
  CHARACTER_SCAN_BUDGET,
  CharacterClassTokenEstimator,
} from '../../../gateway/tokenize/character-class-estimate.ts';
import { estimateAdmissionInputTokens, estimateInputTokens } from '../../../gateway/tokenize/estimate-tokens.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function requestOf(texts: ReadonlyArray<string>): CanonicalRequest {
  return {
    clientFormat: 'openai-chat',
    model: 'm',
    stream: false,
    messages: texts.map((text) => ({ role: 'user', content: [{ type: 'text', text }] })),
  };
}

/** Texts of several kinds, each long enough for its ratio to mean something. */
function corpus(): Record<string, string> {
  const read = (path: string): string => readFileSync(ROOT + path, 'utf8');
  return {
    'Markdown prose': read('README.md').slice(0, 12_000),
    TypeScript: read('gateway/exchange/run-exchange.ts').slice(0, 12_000),
    'pretty JSON': read('package-lock.json').slice(0, 12_000),
    'compact JSON': JSON.stringify(JSON.parse(read('package.json'))),
    Chinese:
      '请用三句话总结下面这篇文章的主要内容，并给出你的看法。这个网关把请求转发给上游模型，并记录每次调用的用量和费用。'.repeat(
        20,
      ),
    Japanese:
      'この文章を要約してください。重要な点を三つ挙げてください。ゲートウェイは各リクエストの使用量を記録します。'.repeat(
        20,
      ),
    Russian:
      'Пожалуйста, кратко изложите основные идеи этой статьи на русском языке. Шлюз записывает расход каждого запроса. '.repeat(
        20,
      ),
    German:
      'Bitte fassen Sie die wichtigsten Gedanken dieses Artikels zusammen. Das Gateway zeichnet die Nutzung jeder Anfrage auf. '.repeat(
        20,
      ),
    Arabic: 'يرجى تلخيص هذه المقالة في ثلاث نقاط رئيسية. تسجل البوابة استخدام كل طلب وتكلفته. '.repeat(20),
  };
}

describe('admission token estimate', () => {
  it('lies within ±30 % of the o200k count on prose, code, JSON and other scripts', () => {
    const ratios: Record<string, number> = {};
    for (const [kind, text] of Object.entries(corpus())) {
      ratios[kind] = estimateAdmissionInputTokens(requestOf([text])) / estimateInputTokens(requestOf([text]));
    }
    for (const [kind, ratio] of Object.entries(ratios)) {
      expect({ kind, ratio, within: ratio > 0.7 && ratio < 1.3 }).toMatchObject({ kind, within: true });
    }
  });

  it('weighs at most its scan budget per request and extrapolates the rest at the same rate', () => {
    const prose = readFileSync(ROOT + 'README.md', 'utf8').slice(0, 8_000);
    const long = prose.repeat(40); // 320 000 characters, 20× the budget
    const estimator = new CharacterClassTokenEstimator();
    const first = estimator.count(prose);
    const rest = estimator.count(long);
    expect(rest / (first * 40)).toBeGreaterThan(0.97);
    expect(rest / (first * 40)).toBeLessThan(1.03);
    // Past the budget nothing is weighed: a different text is counted at the rate already seen.
    const spent = new CharacterClassTokenEstimator(0);
    expect(spent.count('x'.repeat(CHARACTER_SCAN_BUDGET))).toBe(CHARACTER_SCAN_BUDGET / 4);
  });

  it('splits words where the module comment says: camelCase steps, two-byte letters, scripts and the scan budget', () => {
    // Counts of the weights in character-class-estimate.ts, fixed so a faster scan keeps them exactly.
    const cases: Array<[string, number, number]> = [
      ['camelCaseWordsHere', 4, 4],
      ['HTTPServerError', 3, 3],
      ['Grüßeaus', 2, 3],
      ['ÄÖÜabc', 2, 2],
      ['abcÉdef ÉÉabc aÉ Éa AbÉ', 8, 9],
      ['Привет мир, 你好世界 😀 x9\r\n\t{"a":1}', 15, 13],
      ['dddddddddddddddd12345678', 6, 5],
    ];
    for (const [text, whole, withinFive] of cases) {
      expect([new CharacterClassTokenEstimator().count(text), new CharacterClassTokenEstimator(5).count(text)]).toEqual(
        [whole, withinFive],
      );
    }
  });

  it('counts non-empty text as at least one token and empty text as none', () => {
    const estimator = new CharacterClassTokenEstimator();
    expect(estimator.count('')).toBe(0);
    expect(estimator.count(' ')).toBe(1);
    expect(estimator.count('👩‍💻')).toBeGreaterThanOrEqual(1);
  });

  it('leaves the billing estimate of the same request object to the BPE', () => {
    const text = readFileSync(ROOT + 'README.md', 'utf8').slice(0, 60_000);
    const request = requestOf([text]);
    const admission = estimateAdmissionInputTokens(request);
    const exact = estimateInputTokens(request);
    expect(exact).toBe(estimateInputTokens(requestOf([text])));
    expect(admission).not.toBe(exact);
  });

  it('never loads the BPE vocabulary: a process that only admits requests stays without it', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { estimateAdmissionInputTokens } = await import(${JSON.stringify(ROOT + 'gateway/tokenize/estimate-tokens.ts')});
      const { estimateAdmissionTokens } = await import(${JSON.stringify(ROOT + 'gateway/policy/estimate-admission-tokens.ts')});
      const { isO200kTokenizerLoaded } = await import(${JSON.stringify(ROOT + 'gateway/tokenize/o200k-tokenizer.ts')});
      const request = { clientFormat: 'openai-chat', model: 'm', stream: false, system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there, what is the weather in Paris?' }] }],
        tools: [{ name: 'weather', description: 'Weather by city', parameters: { type: 'object' } }] };
      const tokens = estimateAdmissionInputTokens(request) + estimateAdmissionTokens(request);
      const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('gpt-tokenizer'));
      console.log(JSON.stringify({ tokens, loaded, flagged: isO200kTokenizerLoaded() }));
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const result = JSON.parse(out.trim().split('\n').pop()!) as { tokens: number; loaded: boolean; flagged: boolean };
    expect(result.tokens).toBeGreaterThan(4096);
    expect(result).toMatchObject({ loaded: false, flagged: false });
  }, 30_000);
});

/**
 * The admission estimate: the same count as the billing estimate for requests within its exact
 * budget, close to it beyond, and never a replacement for it (billing keeps the exact budget).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';
import {
  ADMISSION_EXACT_BUDGET,
  estimateAdmissionInputTokens,
  estimateInputTokens,
} from '../../../gateway/tokenize/estimate-tokens.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function requestOf(texts: ReadonlyArray<string>): CanonicalRequest {
  return {
    clientFormat: 'openai-chat',
    model: 'm',
    stream: false,
    messages: texts.map((text) => ({ role: 'user', content: [{ type: 'text', text }] })),
  };
}

describe('admission token estimate', () => {
  it('equals the billing estimate for a request within its exact budget', () => {
    const request = requestOf(['Hello there', 'What is the weather in Paris today?']);
    expect(estimateAdmissionInputTokens(request)).toBe(
      estimateInputTokens(requestOf(['Hello there', 'What is the weather in Paris today?'])),
    );
  });

  it('stays within 15 % of the exact count for long mixed text and code, past its exact budget', () => {
    for (const path of ['README.md', 'gateway/exchange/run-exchange.ts']) {
      const text = readFileSync(ROOT + path, 'utf8').slice(0, 60_000);
      expect(Buffer.byteLength(text)).toBeGreaterThan(ADMISSION_EXACT_BUDGET * 4);
      const admission = estimateAdmissionInputTokens(requestOf([text]));
      const exact = estimateInputTokens(requestOf([text]));
      expect(Math.abs(admission - exact) / exact).toBeLessThan(0.15);
    }
  });

  it('leaves the billing estimate of the same request object exact', () => {
    const text = readFileSync(ROOT + 'README.md', 'utf8').slice(0, 60_000);
    const request = requestOf([text]);
    const admission = estimateAdmissionInputTokens(request);
    const exact = estimateInputTokens(request);
    expect(exact).toBe(estimateInputTokens(requestOf([text])));
    expect(admission).not.toBe(exact);
  });
});

/**
 * The gateway compaction seal: AES-256-GCM under an HKDF-derived key, `tgc1.` prefix; opens only
 * under the same secret and only unaltered.
 */
import { describe, expect, it } from 'vitest';
import { isGatewaySealed } from '../../../gateway/inbound/openai-responses/decode-compaction-item.ts';
import { createCompactionSeal } from '../../../gateway/responses-api/compaction/compaction-seal.ts';

const SECRET = Buffer.from('a-shared-key-digest-secret-of-32+chars', 'utf8');
const CONTENT = {
  summary: 'The user plans a trip to Kyoto in April.',
  provider: 'anthropic',
  model: 'claude-x',
  createdAt: 1_795_000_000,
};

describe('compaction seal', () => {
  it('round-trips under the same secret (another node with the same secret included), with a fresh IV each time', () => {
    const sealed = createCompactionSeal(SECRET).seal(CONTENT);
    expect(sealed).toMatch(/^tgc1\.[A-Za-z0-9_-]+$/);
    expect(isGatewaySealed(sealed)).toBe(true);
    expect(sealed).not.toContain('Kyoto');
    expect(createCompactionSeal(Buffer.from(SECRET)).open(sealed)).toEqual(CONTENT);
    expect(createCompactionSeal(SECRET).seal(CONTENT)).not.toBe(sealed);
  });

  it('refuses altered, truncated, foreign-key and re-versioned ciphertexts', () => {
    const seal = createCompactionSeal(SECRET);
    const sealed = seal.seal(CONTENT);
    const bytes = Buffer.from(sealed.slice(5), 'base64url');
    for (const at of [0, 12, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at] = altered[at]! ^ 1;
      expect(seal.open(`tgc1.${altered.toString('base64url')}`)).toBeUndefined();
    }
    expect(seal.open(sealed.slice(0, -10))).toBeUndefined();
    expect(seal.open('tgc1.')).toBeUndefined();
    expect(seal.open(`tgc2.${sealed.slice(5)}`)).toBeUndefined();
    expect(
      createCompactionSeal(Buffer.from('another-deployment-secret-32-chars!!', 'utf8')).open(sealed),
    ).toBeUndefined();
    expect(isGatewaySealed('gAAAAABopaque')).toBe(false);
  });
});

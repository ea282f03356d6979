/** Client-facing ids: prefix + 24 hex characters, unique across pool refills. */
import { describe, expect, it } from 'vitest';
import { generateId } from '../../../gateway/canonical/ids.ts';

describe('generateId', () => {
  it('mints prefix + 24 hex characters, all distinct over several pool refills', () => {
    const ids = Array.from({ length: 5000 }, () => generateId('msg_'));
    expect(ids.every((id) => /^msg_[0-9a-f]{24}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(4, 8))).size).toBeGreaterThan(3000);
  });
});

/** API key minting and digests; channel credential encryption; master key parsing. */
import { createDecipheriv, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decryptCredential,
  encryptCredential,
  parseMasterKey,
} from '../../../gateway/control-plane/credential-cipher.ts';
import { digestApiKey, looksLikeApiKey, mintApiKey } from '../../../gateway/control-plane/key-material.ts';
import { TEST_HMAC_SECRET, TEST_MASTER_KEY } from './control-event-fixtures.ts';

describe('key material', () => {
  it('mints sk-<12 base32>-<32 base62> keys with their HMAC digest', () => {
    const minted = mintApiKey(TEST_HMAC_SECRET);
    expect(minted.key).toMatch(/^sk-[a-z2-7]{12}-[0-9A-Za-z]{32}$/);
    expect(minted.key.slice(3, 15)).toBe(minted.publicId);
    expect(minted.digest).toBe(createHmac('sha256', TEST_HMAC_SECRET).update(minted.key).digest('hex'));
    expect(looksLikeApiKey(minted.key)).toBe(true);
  });

  it('mints distinct keys using the whole alphabets', () => {
    const keys = Array.from({ length: 300 }, () => mintApiKey(TEST_HMAC_SECRET));
    expect(new Set(keys.map((k) => k.key)).size).toBe(300);
    expect(new Set(keys.map((k) => k.publicId)).size).toBe(300);
    expect(new Set(keys.flatMap((k) => [...k.publicId])).size).toBe(32);
    expect(new Set(keys.flatMap((k) => [...k.key.slice(16)])).size).toBe(62);
  });

  it('digests with HMAC-SHA-256 (RFC 4231 test case 2) and depends on the secret', () => {
    expect(digestApiKey(Buffer.from('Jefe'), 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    expect(digestApiKey(TEST_HMAC_SECRET, 'sk-tollgate-demo')).not.toBe(
      digestApiKey(Buffer.from('another secret of 32 characters!'), 'sk-tollgate-demo'),
    );
  });

  it.each([
    'sk-tollgate-demo',
    'sk-ABCDEFGHIJKL-0123456789abcdefghijABCDEFGHIJ01',
    'sk-abcdefghijkl-0123456789abcdefghijABCDEFGHIJ0',
    'sk-abcdefghijk1-0123456789abcdefghijABCDEFGHIJ01',
    'xk-abcdefghijkl-0123456789abcdefghijABCDEFGHIJ01',
    'sk-abcdefghijkl-0123456789abcdefghijABCDEFGHIJ01 ',
  ])('looksLikeApiKey(%j) is false', (s) => expect(looksLikeApiKey(s)).toBe(false));
});

describe('credential cipher', () => {
  it.each(['', 'sk-ant-api03-secret', 'ключ 🔑'])('round-trips %j as base64 of iv(12)|tag(16)|data', (plain) => {
    const ciphertext = encryptCredential(TEST_MASTER_KEY, plain);
    const bytes = Buffer.from(ciphertext, 'base64');
    expect(bytes.length).toBe(28 + Buffer.byteLength(plain));
    expect(decryptCredential(TEST_MASTER_KEY, ciphertext)).toBe(plain);
    // independent check of the layout with Node's decipher
    const decipher = createDecipheriv('aes-256-gcm', TEST_MASTER_KEY, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    expect(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')).toBe(plain);
  });

  it('uses a fresh IV each time', () => {
    expect(encryptCredential(TEST_MASTER_KEY, 'same')).not.toBe(encryptCredential(TEST_MASTER_KEY, 'same'));
  });

  it('refuses a wrong key and every tampered part with a clear error that leaks nothing', () => {
    const ciphertext = encryptCredential(TEST_MASTER_KEY, 'top-secret-credential');
    expect(() => decryptCredential(Buffer.alloc(32, 8), ciphertext)).toThrow(
      /cannot be decrypted: wrong TOLLGATE_MASTER_KEY or tampered ciphertext/,
    );
    for (const at of [0, 11, 12, 27, 28, 40]) {
      const bytes = Buffer.from(ciphertext, 'base64');
      bytes[at] = (bytes[at] as number) ^ 1;
      let message = '';
      try {
        decryptCredential(TEST_MASTER_KEY, bytes.toString('base64'));
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, `byte ${at}`).toMatch(/cannot be decrypted/);
      expect(message).not.toContain('top-secret');
    }
    expect(() => decryptCredential(TEST_MASTER_KEY, 'not base64!')).toThrow(/not base64/);
    expect(() => decryptCredential(TEST_MASTER_KEY, Buffer.alloc(20).toString('base64'))).toThrow(
      /20 bytes, expected at least 28/,
    );
    expect(() => encryptCredential(Buffer.alloc(16), 'x')).toThrow(/32 bytes, got 16/);
  });

  it('parses a master key from hex, base64 and base64url', () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i * 7 + 256).map((b) => b % 256));
    expect(parseMasterKey(key.toString('hex')).equals(key)).toBe(true);
    expect(parseMasterKey(key.toString('hex').toUpperCase()).equals(key)).toBe(true);
    expect(parseMasterKey(` ${key.toString('base64')}\n`).equals(key)).toBe(true);
    expect(parseMasterKey(key.toString('base64url')).equals(key)).toBe(true);
  });

  it.each([
    ['too short hex', 'ab'.repeat(31)],
    ['16 bytes base64', Buffer.alloc(16, 1).toString('base64')],
    ['48 bytes base64', Buffer.alloc(48, 1).toString('base64')],
    ['a passphrase', 'correct horse battery staple'],
    ['empty', ''],
  ])('refuses %s with a message that names the forms, not the value', (_name, text) => {
    let message = '';
    try {
      parseMasterKey(text);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /TOLLGATE_MASTER_KEY must be 32 bytes written as 64 hex characters or 44 base64 characters/,
    );
    if (text) expect(message).not.toContain(text);
  });
});

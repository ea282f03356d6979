/** scrypt password hashes: format, salting, verification, refusal of malformed stored hashes. */
import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DUMMY_PASSWORD_HASH, hashPasswordSync, verifyPassword } from '../../../gateway/control-plane/password-hash.ts';

const FORMAT = /^scrypt\$16384\$8\$1\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/;

describe('password hashes', () => {
  it('writes scrypt$16384$8$1$<16-byte salt>$<32-byte hash>, salted afresh each time', () => {
    const a = hashPasswordSync('correct horse');
    const b = hashPasswordSync('correct horse');
    expect(a).toMatch(FORMAT);
    expect(b).toMatch(FORMAT);
    expect(a).not.toBe(b);
    const [, salt = '', hash = ''] = FORMAT.exec(a) ?? [];
    expect(Buffer.from(salt, 'base64url')).toHaveLength(16);
    // the hash is plain scrypt of the password under that salt: other tools can check it
    expect(
      scryptSync('correct horse', Buffer.from(salt, 'base64url'), 32, { N: 16384, r: 8, p: 1 }).toString('base64url'),
    ).toBe(hash);
    expect(a).not.toContain('correct horse');
  });

  it('verifies the right password and refuses others', async () => {
    const stored = hashPasswordSync('pässwörd-123');
    expect(await verifyPassword('pässwörd-123', stored)).toBe(true);
    expect(await verifyPassword('pässwörd-124', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
    // NFC and NFD spellings of the same text are the same password
    expect(await verifyPassword('pässwörd-123'.normalize('NFD'), stored)).toBe(true);
  });

  it('reads the parameters from the stored hash', async () => {
    const salt = Buffer.alloc(16, 3);
    const stored = `scrypt$1024$4$2$${salt.toString('base64url')}$${scryptSync('pw-12345', salt, 24, { N: 1024, r: 4, p: 2 }).toString('base64url')}`;
    expect(await verifyPassword('pw-12345', stored)).toBe(true);
    expect(await verifyPassword('pw-12346', stored)).toBe(false);
  });

  it.each([
    [''],
    ['plain-text-password'],
    ['bcrypt$16384$8$1$abc$def'],
    ['scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA'],
    ['scrypt$1000$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['scrypt$2097152$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['scrypt$16384$0$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['scrypt$16384$8$99$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['scrypt$16384$8$1$AAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA'],
    ['scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AA+A/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['scrypt$16384$8$1.5$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('is false, never throws, for the malformed stored hash %j', async (stored) => {
    await expect(verifyPassword('anything', stored)).resolves.toBe(false);
  });

  it('has a valid dummy hash that no ordinary password matches', async () => {
    expect(DUMMY_PASSWORD_HASH).toMatch(FORMAT);
    expect(await verifyPassword('', DUMMY_PASSWORD_HASH)).toBe(false);
    expect(await verifyPassword('password', DUMMY_PASSWORD_HASH)).toBe(false);
  });
});

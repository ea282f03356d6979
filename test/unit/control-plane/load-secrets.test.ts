/** Control-plane secrets: from the environment, or generated once into <dataDir>/secrets.json (0600). */
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decryptCredential, encryptCredential } from '../../../gateway/control-plane/credential-cipher.ts';
import { loadControlPlaneSecrets } from '../../../gateway/control-plane/load-secrets.ts';

const MASTER_B64 = Buffer.alloc(32, 3).toString('base64');
const HMAC = 'an-hmac-secret-that-is-long-enough-0123';
const freshDir = (): string => join(mkdtempSync(join(tmpdir(), 'tollgate-secrets-')), 'data');

describe('loadControlPlaneSecrets', () => {
  it('takes both secrets from the environment and writes nothing', () => {
    const dataDir = freshDir();
    const secrets = loadControlPlaneSecrets({
      env: { TOLLGATE_MASTER_KEY: MASTER_B64, TOLLGATE_KEY_HMAC_SECRET: HMAC },
      dataDir,
    });
    expect(secrets.masterKey.equals(Buffer.alloc(32, 3))).toBe(true);
    expect(secrets.hmacSecret.toString('utf8')).toBe(HMAC);
    expect(secrets).toMatchObject({ generated: false, sources: { masterKey: 'env', hmacSecret: 'env' } });
    expect(existsSync(dataDir)).toBe(false);
  });

  it('generates both once into secrets.json (mode 0600) and reuses them', () => {
    const dataDir = freshDir();
    const first = loadControlPlaneSecrets({ env: {}, dataDir });
    expect(first).toMatchObject({ generated: true, sources: { masterKey: 'generated', hmacSecret: 'generated' } });
    expect(first.masterKey.length).toBe(32);
    expect(first.hmacSecret.length).toBeGreaterThanOrEqual(32);
    const file = join(dataDir, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = loadControlPlaneSecrets({ env: {}, dataDir });
    expect(second).toMatchObject({ generated: false, sources: { masterKey: 'file', hmacSecret: 'file' } });
    expect(second.masterKey.equals(first.masterKey)).toBe(true);
    expect(second.hmacSecret.equals(first.hmacSecret)).toBe(true);
    // a credential encrypted before a restart decrypts after it
    expect(decryptCredential(second.masterKey, encryptCredential(first.masterKey, 'cred'))).toBe('cred');
    // the file's values work unchanged as environment variables
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { masterKey: string; hmacSecret: string };
    const fromEnv = loadControlPlaneSecrets({
      env: { TOLLGATE_MASTER_KEY: stored.masterKey, TOLLGATE_KEY_HMAC_SECRET: stored.hmacSecret },
      dataDir: freshDir(),
    });
    expect(fromEnv.masterKey.equals(first.masterKey) && fromEnv.hmacSecret.equals(first.hmacSecret)).toBe(true);
  });

  it('never writes a secret that came from the environment', () => {
    const dataDir = freshDir();
    const secrets = loadControlPlaneSecrets({ env: { TOLLGATE_MASTER_KEY: MASTER_B64 }, dataDir });
    expect(secrets.sources).toEqual({ masterKey: 'env', hmacSecret: 'generated' });
    const stored = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(stored)).toEqual(['hmacSecret']);
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).not.toContain(MASTER_B64);
    const again = loadControlPlaneSecrets({ env: { TOLLGATE_MASTER_KEY: MASTER_B64 }, dataDir });
    expect(again.hmacSecret.equals(secrets.hmacSecret)).toBe(true);
    expect(again.generated).toBe(false);
  });

  it('tightens a secrets file readable by others to 0600', () => {
    const dataDir = freshDir();
    loadControlPlaneSecrets({ env: {}, dataDir });
    const file = join(dataDir, 'secrets.json');
    chmodSync(file, 0o644);
    loadControlPlaneSecrets({ env: {}, dataDir });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a malformed master key or a short HMAC secret without echoing them', () => {
    const dataDir = freshDir();
    expect(() =>
      loadControlPlaneSecrets({
        env: { TOLLGATE_MASTER_KEY: 'hunter2hunter2', TOLLGATE_KEY_HMAC_SECRET: HMAC },
        dataDir,
      }),
    ).toThrow(/^TOLLGATE_MASTER_KEY must be 32 bytes .* got 14 characters$/);
    expect(() =>
      loadControlPlaneSecrets({
        env: { TOLLGATE_MASTER_KEY: MASTER_B64, TOLLGATE_KEY_HMAC_SECRET: 'short-secret' },
        dataDir,
      }),
    ).toThrow(/^TOLLGATE_KEY_HMAC_SECRET must be at least 32 characters .*got 12$/);
  });

  it('requires both variables when requireEnv is set', () => {
    expect(() =>
      loadControlPlaneSecrets({ env: { TOLLGATE_MASTER_KEY: MASTER_B64 }, dataDir: freshDir(), requireEnv: true }),
    ).toThrow(/^TOLLGATE_KEY_HMAC_SECRET must be set: every gateway node/);
    expect(() => loadControlPlaneSecrets({ env: {}, dataDir: freshDir(), requireEnv: true })).toThrow(
      /TOLLGATE_MASTER_KEY and TOLLGATE_KEY_HMAC_SECRET must be set/,
    );
  });

  it('refuses a corrupt secrets file and leaves it untouched', () => {
    const dataDir = freshDir();
    loadControlPlaneSecrets({ env: {}, dataDir });
    const file = join(dataDir, 'secrets.json');
    writeFileSync(file, '{"masterKey": "trunc');
    expect(() => loadControlPlaneSecrets({ env: {}, dataDir })).toThrow(/secrets\.json cannot be read as JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{"masterKey": "trunc');
    writeFileSync(file, JSON.stringify({ masterKey: 'abc', hmacSecret: HMAC }));
    expect(() => loadControlPlaneSecrets({ env: {}, dataDir })).toThrow(/secrets\.json: masterKey must be 32 bytes/);
    writeFileSync(file, JSON.stringify({ masterKey: 42 }));
    expect(() => loadControlPlaneSecrets({ env: {}, dataDir })).toThrow(/masterKey must be a string/);
  });
});

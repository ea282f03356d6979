/**
 * A throwaway TLS certificate for 127.0.0.1, made at test time with the openssl command line
 * (https://docs.openssl.org/3.0/man1/openssl-req/), for fakes that must speak HTTPS: Microsoft's
 * MSAL refuses an authority that is not `https:` (`authority_uri_insecure`), so a fake Entra ID
 * token endpoint needs one. Nothing is committed: the key lives in a temporary folder that is
 * removed at once.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PEM certificate for 127.0.0.1 (its own CA) and its private key. */
export interface SelfSignedCertificate {
  readonly cert: string;
  readonly key: string;
}

/** Makes a self-signed RSA certificate for IP 127.0.0.1, valid one day. @throws Error when openssl is missing or fails */
export function selfSignedCertificate(): SelfSignedCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
      ],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * How a consumers root opens the alert webhooks' signing secrets: with the master key the gateway
 * nodes encrypt them under (gateway/control-plane/credential-cipher.ts) — TOLLGATE_MASTER_KEY when
 * set, else the `masterKey` of `<dataDir>/secrets.json` that an embedded gateway generated
 * (gateway/control-plane/load-secrets.ts). Only read here: a consumers process never generates a
 * key, since one of its own could open nothing. The key and the secrets never reach a log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WebhookSecretOpener } from '../../consumers/alerts/alerts-consumer.ts';
import { decryptCredential, parseMasterKey } from '../../gateway/control-plane/credential-cipher.ts';
import { SECRETS_FILE_NAME } from '../../gateway/control-plane/load-secrets.ts';

/**
 * The opener of webhook secrets under the master key of `env` or `dataDir`; undefined when neither
 * holds one (the alerts consumer then does not run).
 * @throws Error naming the variable or file (never the value) when the key there is malformed or
 *   secrets.json is not JSON
 */
export function webhookSecretOpenerFrom(
  env: Readonly<Record<string, string | undefined>>,
  dataDir: string,
): WebhookSecretOpener | undefined {
  const masterKey = masterKeyFrom(env, dataDir);
  if (!masterKey) return undefined;
  return (ciphertext) => decryptCredential(masterKey, ciphertext);
}

function masterKeyFrom(env: Readonly<Record<string, string | undefined>>, dataDir: string): Buffer | undefined {
  const fromEnv = env['TOLLGATE_MASTER_KEY']?.trim();
  if (fromEnv) return parseMasterKey(fromEnv);
  const file = join(dataDir, SECRETS_FILE_NAME);
  if (!existsSync(file)) return undefined;
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} cannot be read as JSON (${(error as Error).name})`);
  }
  const text = (stored as { masterKey?: unknown } | null)?.masterKey;
  if (typeof text !== 'string') return undefined;
  try {
    return parseMasterKey(text);
  } catch (error) {
    throw new Error((error as Error).message.replace('TOLLGATE_MASTER_KEY', `${file}: masterKey`));
  }
}

/**
 * The control plane's two secrets:
 * - the master key (TOLLGATE_MASTER_KEY: 32 bytes as base64 or hex) that encrypts channel
 *   credentials (credential-cipher.ts);
 * - the key-digest HMAC secret (TOLLGATE_KEY_HMAC_SECRET: any string of ≥ 32 characters, used as
 *   its UTF-8 bytes) under which API keys are digested (key-material.ts).
 *
 * Each comes from the environment when set. Otherwise it is read from `<dataDir>/secrets.json`,
 * or generated once into that file (mode 0600, written atomically) and reused on every later
 * start — the embedded single-node mode. The file stores the same text forms as the environment
 * variables, so its values can be moved into the environment unchanged. Secrets given by the
 * environment are never written to disk, and no secret ever reaches a log or an error message.
 *
 * Several nodes sharing Kafka must share both secrets: pass `requireEnv: true` there, so a node
 * without them refuses to start instead of generating its own.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMasterKey } from './credential-cipher.ts';

/** File name of the generated secrets under the data directory. */
export const SECRETS_FILE_NAME = 'secrets.json';
/** Minimum length of TOLLGATE_KEY_HMAC_SECRET, characters. */
export const MIN_HMAC_SECRET_LENGTH = 32;

/** Where a secret came from. */
export type SecretSource = 'env' | 'file' | 'generated';

/** The loaded secrets. */
export interface ControlPlaneSecrets {
  /** AES-256-GCM key, 32 bytes. */
  readonly masterKey: Buffer;
  /** HMAC-SHA-256 key for API key digests (UTF-8 bytes of the secret text). */
  readonly hmacSecret: Buffer;
  /** True when at least one secret was generated (and written to secrets.json) by this call. */
  readonly generated: boolean;
  /** Source of each secret, for a start-up log line. */
  readonly sources: { readonly masterKey: SecretSource; readonly hmacSecret: SecretSource };
  /** Path of the secrets file (whether or not it was used). */
  readonly file: string;
}

/** Options of loadControlPlaneSecrets. */
export interface LoadSecretsOptions {
  /** Environment to read TOLLGATE_MASTER_KEY and TOLLGATE_KEY_HMAC_SECRET from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The gateway's data directory (created when missing and a secret must be generated). */
  readonly dataDir: string;
  /** When true, both secrets must come from the environment (multi-node deployments). Default false. */
  readonly requireEnv?: boolean;
}

/** secrets.json as stored: the text forms of the environment variables. */
interface SecretsFile {
  readonly masterKey?: string;
  readonly hmacSecret?: string;
}

/**
 * Loads (or generates once) the control-plane secrets.
 * @throws Error when an environment value is malformed (bad master key, HMAC secret shorter than
 *   32 characters), when `requireEnv` is set and a variable is missing, or when secrets.json
 *   exists but is unreadable or malformed (it is never overwritten: its master key may be the only
 *   way to decrypt stored credentials). Messages name the variable or file, never the value.
 */
export function loadControlPlaneSecrets(options: LoadSecretsOptions): ControlPlaneSecrets {
  const file = join(options.dataDir, SECRETS_FILE_NAME);
  const envMaster = nonEmpty(options.env['TOLLGATE_MASTER_KEY']);
  const envHmac = nonEmpty(options.env['TOLLGATE_KEY_HMAC_SECRET']);
  if (options.requireEnv && (envMaster === undefined || envHmac === undefined)) {
    const missing = [
      envMaster === undefined ? 'TOLLGATE_MASTER_KEY' : '',
      envHmac === undefined ? 'TOLLGATE_KEY_HMAC_SECRET' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    throw new Error(
      `${missing} must be set: every gateway node sharing the event log needs the same secrets (generate with \`openssl rand -base64 32\`)`,
    );
  }
  const stored = envMaster !== undefined && envHmac !== undefined ? {} : readSecretsFile(file);
  const masterText = envMaster ?? stored.masterKey;
  const hmacText = envHmac ?? stored.hmacSecret;
  const generatedMaster = masterText === undefined ? randomBytes(32).toString('base64') : undefined;
  const generatedHmac = hmacText === undefined ? randomBytes(32).toString('base64url') : undefined;
  if (generatedMaster !== undefined || generatedHmac !== undefined) {
    const toStore: SecretsFile = {
      ...(envMaster === undefined ? { masterKey: masterText ?? generatedMaster } : {}),
      ...(envHmac === undefined ? { hmacSecret: hmacText ?? generatedHmac } : {}),
    };
    writeSecretsFile(options.dataDir, file, toStore);
  }
  return {
    masterKey: parseMasterSecret(
      masterText ?? (generatedMaster as string),
      envMaster !== undefined ? 'TOLLGATE_MASTER_KEY' : `${file}: masterKey`,
    ),
    hmacSecret: parseHmacSecret(
      hmacText ?? (generatedHmac as string),
      envHmac !== undefined ? 'TOLLGATE_KEY_HMAC_SECRET' : `${file}: hmacSecret`,
    ),
    generated: generatedMaster !== undefined || generatedHmac !== undefined,
    sources: { masterKey: sourceOf(envMaster, masterText), hmacSecret: sourceOf(envHmac, hmacText) },
    file,
  };
}

function sourceOf(fromEnv: string | undefined, text: string | undefined): SecretSource {
  if (fromEnv !== undefined) return 'env';
  return text === undefined ? 'generated' : 'file';
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function parseMasterSecret(text: string, where: string): Buffer {
  try {
    return parseMasterKey(text);
  } catch (error) {
    throw new Error((error as Error).message.replace('TOLLGATE_MASTER_KEY', where));
  }
}

function parseHmacSecret(text: string, where: string): Buffer {
  if (text.length < MIN_HMAC_SECRET_LENGTH) {
    throw new Error(
      `${where} must be at least ${MIN_HMAC_SECRET_LENGTH} characters (e.g. \`openssl rand -base64 32\`); got ${text.length}`,
    );
  }
  return Buffer.from(text, 'utf8');
}

/** Reads secrets.json ({} when absent) and tightens its mode to 0600. @throws Error when unreadable or malformed. */
function readSecretsFile(file: string): SecretsFile {
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `${file} cannot be read as JSON (${(error as Error).name}); fix or restore it — it holds the key to the stored channel credentials`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${file} must hold a JSON object { masterKey, hmacSecret }`);
  const record = parsed as Record<string, unknown>;
  for (const field of ['masterKey', 'hmacSecret']) {
    if (record[field] !== undefined && typeof record[field] !== 'string')
      throw new Error(`${file}: ${field} must be a string`);
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return {
    ...(typeof record['masterKey'] === 'string' ? { masterKey: record['masterKey'] } : {}),
    ...(typeof record['hmacSecret'] === 'string' ? { hmacSecret: record['hmacSecret'] } : {}),
  };
}

/** Writes secrets.json with mode 0600 through a temp file and a rename (never half-written). */
function writeSecretsFile(dataDir: string, file: string, secrets: SecretsFile): void {
  mkdirSync(dataDir, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

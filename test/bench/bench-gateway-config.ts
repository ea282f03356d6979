/**
 * The configuration both Tollgate modes of the load benchmark run on (the gateway-alone child of
 * bench-servers.ts and the embedded `npm start` process): one channel pointing at the shared mock
 * upstream through the behaviour path prefix the direct cases use, the bench key, the bench price; and
 * the RPM/TPM limits the bench key is given through the admin API once the server listens (the
 * config file's keys carry no limits), so admission runs its limiter and counts prompt tokens.
 */
import { request } from 'undici';
import { BENCH_KEY, BENCH_MODEL, BENCH_PRICES } from './bench-server-contract.ts';
import { MOCK_BEHAVIOUR_PREFIX } from './bench-cases.ts';

/** Admin token both Tollgate modes are started with (TOLLGATE_ADMIN_TOKEN), to set the key's limits. */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0001';

/** Limits of the bench key: high enough never to refuse (requests and tokens per minute). */
export const BENCH_KEY_LIMITS = { rpm: 100_000_000, tpm: 1_000_000_000 } as const;

/**
 * The config file document (gateway/config/config-schema.ts shape): channel `bench-mock`
 * (provider mock, openai-chat, model BENCH_MODEL) at `mockOrigin` + MOCK_BEHAVIOUR_PREFIX + `/v1`,
 * the bench key, the bench price. (A slow upstream stream is asked for in the prompt, `[mock:slow=MS]`.)
 */
export function buildBenchGatewayConfig(mockOrigin: string): Record<string, unknown> {
  return {
    channels: [
      {
        id: 'bench-mock',
        provider: 'mock',
        protocol: 'openai-chat',
        baseUrl: `${mockOrigin}${MOCK_BEHAVIOUR_PREFIX}/v1`,
        models: [BENCH_MODEL],
      },
    ],
    keys: [{ name: 'bench', key: BENCH_KEY }],
    prices: [...BENCH_PRICES],
  };
}

async function adminCall(origin: string, method: 'GET' | 'PATCH', path: string, body?: unknown): Promise<unknown> {
  const answer = await request(`${origin}/admin/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${BENCH_ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`admin API ${method} ${path} answered ${answer.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/**
 * Gives the key named `bench` of the Tollgate server at `origin` the BENCH_KEY_LIMITS, through its
 * admin API (the server must run with TOLLGATE_ADMIN_TOKEN = BENCH_ADMIN_TOKEN), and checks them back.
 * @throws Error when the admin API refuses, the key is missing, or the limits did not apply
 */
export async function applyBenchKeyLimits(origin: string): Promise<void> {
  const listed = (await adminCall(origin, 'GET', '/keys')) as { keys: Array<{ keyId: string; name: string }> };
  const key = listed.keys.find((k) => k.name === 'bench');
  if (!key) throw new Error(`${origin}: no key named bench in the admin API`);
  const updated = (await adminCall(origin, 'PATCH', `/keys/${encodeURIComponent(key.keyId)}`, BENCH_KEY_LIMITS)) as {
    key: { rpm: number | null; tpm: number | null };
  };
  if (updated.key.rpm !== BENCH_KEY_LIMITS.rpm || updated.key.tpm !== BENCH_KEY_LIMITS.tpm)
    throw new Error(`${origin}: bench key limits did not apply (rpm ${updated.key.rpm}, tpm ${updated.key.tpm})`);
}

/**
 * The key-pool families (README "Key pools"), read from the credential pool when scraped, one
 * series per channel and credential id (never a key):
 * `tollgate_credential_requests_total` — attempts this node sent with the credential;
 * `tollgate_credential_rotations_total` — times this node left it for the next credential of the
 * channel after a 429, 401 or 403; `tollgate_credential_cooldown_seconds` — seconds its cooldown
 * still runs (0: usable). Collected in the metrics' `collect`
 * (https://github.com/siimon/prom-client#custom-metrics-and-collect).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CredentialState } from '../routing/credential-pool.ts';

/** The credentials of one channel as the pool shows them. */
export interface ChannelCredentialStates {
  readonly channelId: string;
  readonly states: ReadonlyArray<CredentialState>;
}

/** Registers the key-pool families on `registry`, each reading `read()` (ms clock `now`) when scraped. */
export function registerCredentialFamilies(
  registry: Registry,
  read: () => ReadonlyArray<ChannelCredentialStates>,
  now: () => number = Date.now,
): void {
  const labelNames = ['channel', 'credential'] as const;
  const each = (visit: (labels: { channel: string; credential: string }, state: CredentialState) => void): void => {
    for (const channel of read())
      for (const state of channel.states) visit({ channel: channel.channelId, credential: state.id }, state);
  };
  new Counter({
    name: 'tollgate_credential_requests_total',
    help: 'Upstream attempts this node sent with a pooled credential of a channel',
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      each((labels, state) => this.inc(labels, state.requests));
    },
  });
  new Counter({
    name: 'tollgate_credential_rotations_total',
    help: 'Times this node moved from a credential to the next of its channel after a 429, 401 or 403',
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      each((labels, state) => this.inc(labels, state.rotations));
    },
  });
  new Gauge({
    name: 'tollgate_credential_cooldown_seconds',
    help: 'Seconds the cooldown of a pooled credential still runs (0: usable)',
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      const at = now();
      each((labels, state) => this.set(labels, state.coolingUntil > at ? (state.coolingUntil - at) / 1000 : 0));
    },
  });
}

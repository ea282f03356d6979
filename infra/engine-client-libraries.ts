/**
 * The client libraries of the production engines — kafkajs (Kafka), ioredis (Redis) and
 * @clickhouse/client (a ClickHouse server) — loaded on first use instead of at start.
 *
 * A process whose configuration names no such engine (the embedded default: file log, in-process
 * state, chdb) never loads them. Measured on this project's 2-core machine, a process that imports
 * the gateway's app and infra/open-adapters.ts: 133 → 112 MB of RSS and 28.3 → 25.7 MB of heap
 * once they load on first use. Each package ships CommonJS, so `require` loads it
 * synchronously and the adapters' factories stay synchronous; Node caches the module after the first
 * call (https://nodejs.org/api/modules.html#caching).
 */
import { createRequire } from 'node:module';

/** The engine client packages by name, as their module objects. */
export interface EngineClientLibraries {
  readonly kafkajs: typeof import('kafkajs');
  readonly ioredis: typeof import('ioredis');
  readonly '@clickhouse/client': typeof import('@clickhouse/client');
}

const requireFromHere = createRequire(import.meta.url);

/**
 * The package `name`, loaded on the first call (Node's module cache serves later calls).
 * @throws Error (MODULE_NOT_FOUND) when the package is not installed
 */
export function engineClientLibrary<Name extends keyof EngineClientLibraries>(name: Name): EngineClientLibraries[Name] {
  return requireFromHere(name) as EngineClientLibraries[Name];
}

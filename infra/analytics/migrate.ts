/**
 * Applies the ClickHouse migrations (load-migrations.ts) to an analytics store, in version order,
 * recording each applied version in `schema_migrations`. Run by `npm run migrate` and at
 * consumer start. Safe to run twice, or by two processes at about the same time: statements are
 * `IF NOT EXISTS` (an `ADD COLUMN` that finds its column counts as applied), and
 * `schema_migrations` is a ReplacingMergeTree read with FINAL.
 */
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { loadMigrations, type Migration } from './load-migrations.ts';

/** Options for `migrate`. */
export interface MigrateOptions {
  /** The migrations to apply (default: the bundled `schemas/analytics/migrations/*.sql`). */
  readonly migrations?: ReadonlyArray<Migration>;
  /** Told about each migration skipped because the engine is older than it requires. */
  readonly onSkip?: (name: string, reason: string) => void;
}

const CREATE_SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations
(
    version UInt32,
    name String,
    applied_at DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY version`;

/**
 * Applies every migration not yet recorded whose `requires` the engine meets.
 * Returns the names applied by this call, in order (empty when the schema is current).
 * Migrations the engine is too old for are skipped, not recorded, and reported to `onSkip`.
 * @throws the store's Error when a statement fails; migrations applied before it stay recorded,
 *   the failed one is not, so the next run resumes with it.
 */
export function migrate(store: AnalyticsStore, options: MigrateOptions = {}): Promise<string[]> {
  // One migrate() at a time in this process: the table swaps of 006 and 007 (RENAME) cannot be
  // made safe to run twice at once. The next call starts after this one settles and finds its
  // versions recorded. Across processes: run `npm run migrate` once before starting several.
  const run = migrationQueue.then(() => migrateNow(store, options));
  migrationQueue = run.catch(() => undefined);
  return run;
}

let migrationQueue: Promise<unknown> = Promise.resolve();

async function migrateNow(store: AnalyticsStore, options: MigrateOptions): Promise<string[]> {
  const migrations = options.migrations ?? (await loadMigrations());
  await store.exec(CREATE_SCHEMA_MIGRATIONS);
  const rows = await store.query<{ version: number | string }>('SELECT version FROM schema_migrations FINAL');
  const done = new Set(rows.map((row) => Number(row.version)));
  const engineVersion = await store.version();
  const applied: string[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(migration.version)) continue;
    if (migration.requires !== null && !isVersionAtLeast(engineVersion, migration.requires)) {
      options.onSkip?.(migration.name, `needs ClickHouse ${migration.requires}, engine is ${engineVersion}`);
      continue;
    }
    for (const statement of migration.statements) await execIdempotent(store, statement);
    await store.insert('schema_migrations', [
      { version: migration.version, name: migration.name, applied_at: Math.floor(Date.now() / 1000) },
    ]);
    applied.push(migration.name);
  }
  return applied;
}

/** Names of the migrations recorded as applied, by version. */
export async function appliedMigrations(store: AnalyticsStore): Promise<string[]> {
  const rows = await store.query<{ name: string }>('SELECT name FROM schema_migrations FINAL ORDER BY version');
  return rows.map((row) => row.name);
}

/**
 * Compares dotted versions numerically: `isVersionAtLeast('18.16.1', '21.1')` is false,
 * `isVersionAtLeast('26.7.2.1', '21.1')` is true. Missing parts count as 0.
 */
export function isVersionAtLeast(version: string, required: string): boolean {
  const have = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const need = required.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(have.length, need.length); i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/**
 * Runs one DDL statement; an `ADD COLUMN` that fails because the column already exists counts as
 * applied (18.16 has no `ADD COLUMN IF NOT EXISTS`, and two migrators may race on the same column).
 */
async function execIdempotent(store: AnalyticsStore, statement: string): Promise<void> {
  try {
    await store.exec(statement);
  } catch (error) {
    if (/\bADD\s+COLUMN\b/i.test(statement) && /already exists/i.test((error as Error).message)) return;
    throw error;
  }
}

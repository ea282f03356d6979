/**
 * `npm run migrate`: applies the ClickHouse migrations to the store the environment selects —
 * the same choice the gateway and the consumers make (infra/open-adapters.ts: CLICKHOUSE_URL
 * and CLICKHOUSE_DATABASE, else chdb in TOLLGATE_DATA_DIR) — and prints what it applied and
 * skipped. Exit code 1 on failure. With chdb, stop the gateway first: one process holds its files.
 */
import { engineSettingsFromEnv, openAnalyticsStore } from '../open-adapters.ts';
import { migrate } from '../analytics/migrate.ts';

function describe(settings: ReturnType<typeof engineSettingsFromEnv>): string {
  if (!settings.clickhouseUrl) return `chdb in ${settings.dataDir}/chdb`;
  const safe = new URL(settings.clickhouseUrl);
  safe.username = '';
  safe.password = '';
  return `ClickHouse at ${safe.origin} (database ${settings.clickhouseDatabase ?? 'tollgate'})`;
}

async function main(): Promise<void> {
  const settings = engineSettingsFromEnv(process.env);
  const store = openAnalyticsStore(settings);
  try {
    const version = await store.version();
    console.log(`migrating ${describe(settings)}, engine ${version}`);
    const applied = await migrate(store, { onSkip: (name, reason) => console.log(`skipped ${name}: ${reason}`) });
    for (const name of applied) console.log(`applied ${name}`);
    console.log(applied.length === 0 ? 'schema is up to date' : `${applied.length} migration(s) applied`);
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  console.error(`migrate failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});

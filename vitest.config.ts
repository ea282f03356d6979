import { defineConfig } from 'vitest/config';

/** Outage tests stop the shared Kafka, so they run afterwards, alone (vitest.outage.config.ts). */
export const OUTAGE_TESTS = 'test/**/*.outage.test.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'gateway/**/*.test.ts'],
    exclude: ['**/node_modules/**', OUTAGE_TESTS],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/global-dist.ts', 'test/support/global-engines.ts'],
  },
});

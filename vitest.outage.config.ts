import { defineConfig } from 'vitest/config';
import { OUTAGE_TESTS } from './vitest.config.ts';

/** Tests that stop and restart the shared Kafka: one file at a time, after the main run. */
export default defineConfig({
  test: {
    include: [OUTAGE_TESTS],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/global-dist.ts', 'test/support/global-engines.ts'],
    fileParallelism: false,
  },
});

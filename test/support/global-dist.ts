/**
 * Vitest global setup: builds dist/ once before any test file runs when it is missing or stale
 * (infra/build/ensure-dist.mjs, what `npm start` does on its first start), so tests that start
 * `npm start` or `npm run consumers` never pay the compile inside their own time limits.
 * A fresh build takes some seconds; an up-to-date one is a stamp comparison of a few ms.
 */
import { ensureDist } from '../../infra/build/ensure-dist.mjs';

/** Ensures dist/; its progress lines go to stderr. @throws Error as ensureDist (a lock held for 10 minutes, a failed rename) */
export default async function setup(): Promise<void> {
  await ensureDist();
}

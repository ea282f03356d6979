/** Types of ensure-dist.mjs (plain JavaScript so that it runs without any TypeScript tooling); see that file. */

/** Absolute path of the production build directory (dist/). */
export declare const DIST_DIR: string;

/** Options of ensureDist and rebuildDist. */
export interface DistOptions {
  /** Absolute path of the build directory (default dist/); must be inside the repository. */
  readonly outDir?: string;
  /** A bench build: tsconfig.bench-dist.json, the bench servers included. */
  readonly includeBench?: boolean;
  /** Progress lines (default: stderr). */
  readonly log?: (line: string) => void;
}

/**
 * Builds `outDir` now, under its lock, through a temporary directory renamed into place.
 * tscStatus: tsc's exit status (non-zero: type errors, JavaScript emitted all the same); buildMs: wall time, ms.
 * @throws Error when the lock stays held by a live process for 10 minutes, or a rename fails
 */
export declare function rebuildDist(
  options?: DistOptions & { readonly tscOutput?: 'inherit' | 'stderr' },
): Promise<{ tscStatus: number; buildMs: number }>;

/** Whether `outDir` was built from the sources as they are now; checkMs: the stamp comparison, ms. Builds nothing. */
export declare function isDistFresh(options?: Pick<DistOptions, 'outDir' | 'includeBench'>): {
  fresh: boolean;
  checkMs: number;
};

/**
 * Builds `outDir` when its source stamp differs from the tree's. checkMs: the stamp comparison, ms;
 * buildMs and tscStatus when it built.
 * @throws Error as rebuildDist
 */
export declare function ensureDist(
  options?: DistOptions,
): Promise<{ built: boolean; checkMs: number; buildMs?: number; tscStatus?: number }>;

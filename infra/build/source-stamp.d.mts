/** Types of source-stamp.mjs (plain JavaScript so that it runs without any TypeScript tooling); see that file. */

/** Absolute path of the repository root. */
export declare const REPO_ROOT: string;
/** The file in a build directory that holds the stamp it was built from. */
export declare const STAMP_FILE: string;
/** The folders every build compiles and copies from. */
export declare const SOURCE_DIRS: readonly string[];
/** The folders a bench build adds. */
export declare const BENCH_SOURCE_DIRS: readonly string[];

/** The stamp of the tree under `root` (default the repository): hex SHA-256 digest and how many files it covers. */
export declare function computeSourceStamp(options?: { readonly includeBench?: boolean; readonly root?: string }): {
  digest: string;
  files: number;
};

/** The digest build directory `outDir` (absolute) was built from, or undefined when it has none. */
export declare function readBuiltDigest(outDir: string): string | undefined;

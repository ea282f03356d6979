/**
 * The C allocator setting every long-running Tollgate process starts with: glibc malloc's mmap
 * threshold fixed at its default, 128 KiB (`MALLOC_MMAP_THRESHOLD_=131072`). It is set where the
 * process is started, because glibc reads it once, before any JavaScript runs: the `start` and
 * `consumers` scripts of package.json (unless the environment already sets it), `ENV` in
 * infra/Dockerfile, and the bench's server children (test/bench/bench-runtime.ts).
 *
 * Why: by default glibc raises the threshold each time a block it had mapped (128 KiB or more) is
 * freed, to that block's size, up to 32 MiB, and the trim threshold to twice that (mallopt(3),
 * M_MMAP_THRESHOLD and M_TRIM_THRESHOLD, https://man7.org/linux/man-pages/man3/mallopt.3.html).
 * Node frees such blocks while it loads its modules, when it parses the tokenizer's vocabulary,
 * and for every large request body; afterwards, blocks up to that size come from the heap, and
 * freed memory is kept instead of being given back. Setting the threshold from the environment
 * turns that adjustment off (same page, "ENVIRONMENT"): large blocks are mapped and unmapped, and
 * the heap's free top is trimmed past 128 KiB.
 *
 * Measured on this project's 2-core machine, the gateway alone (compiled, file event log, memory
 * state): RSS 5 s after start 175 → 120 MB; 5 s after 30 000 requests 206 → 147–151 MB; CPU per
 * small request unchanged; about 200 µs more per request with a 1 MiB body (+6 %) and 250–500 µs
 * with a 256 KiB one (+20–35 %), whose buffers are now mapped and unmapped each time. Other C
 * libraries (musl) ignore the variable.
 */
export const ALLOCATOR_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

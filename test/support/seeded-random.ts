/**
 * A seeded pseudo-random source in [0, 1) (mulberry32,
 * https://gist.github.com/tommyettinger/46a874533244883189143505d203312c): the same seed gives the
 * same sequence, so fuzz cases and soak traffic can be replayed.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The fuzzers' random choices: mulberry32, small, fast and good enough to pick mutations
// reproducibly from a seed.

export interface SeededRandom {
  /** A number in [0, 1). */
  random(): number;
  /** A whole number in [0, n). */
  below(n: number): number;
  pick<T>(items: readonly T[]): T;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: number) => Math.floor(random() * n);
  return { random, below, pick: <T>(items: readonly T[]): T => items[below(items.length)]! };
}

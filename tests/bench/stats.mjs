// stats.mjs: the few summaries every bench prints, in one place so that "median" means the same
// in each of them.

/** The middle of the values (the upper one of the two middles for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The p-th percentile of values already sorted ascending (nearest rank). */
export const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/** Bytes as KiB with one decimal. */
export const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

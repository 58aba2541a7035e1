/**
 * The size of V8's young generation (MB) for the threads that open recordings: the extension's simulation worker
 * and the workers of `diagnose --jobs` (Worker resourceLimits; a process takes it as --max-semi-space-size at
 * its start, which V8 does not change once the heap exists). Opening a recording parses each frame line
 * into objects that stay alive while the diagnosis works on the frame, so every collection of the young
 * generation copies the frame being diagnosed; with room for more allocation between collections there are
 * fewer of them. The 558 MiB pile's first open in a worker thread (`npx tsx bench/youngGeneration.ts FILE`,
 * medians of 3 alternating runs): 10.70 s and 13.56 s of CPU at V8's default, 10.14 s and 12.56 s at 192 MB, for
 * a peak resident memory of 433 MiB instead of 337 (docs/benchmarks.md). Fixed, not in proportion to the
 * recording: memory stays flat in its size.
 */
export const YOUNG_GENERATION_MB = 192;

/** The semi-space size (MB) of that young generation, as V8's --max-semi-space-size takes it (young = 3 × semi-space). */
export const SEMI_SPACE_MB = YOUNG_GENERATION_MB / 3;

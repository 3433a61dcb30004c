// timeline-limits.js: the bounds of a provider's History (timeline.js) and what its parts count:
// steps and bytes, a replay consumer's mirror, the slices of a checkpoint written ahead, the
// readers and the kept pairs of steps. Moved out of timeline.js as they were.

export const TIMELINE_LIMITS = Object.freeze({ steps: 1000, bytes: 64 * 1024 * 1024 });
/** The step bound when the user chose none (memory alone bounds): a number, as it crosses ports as JSON. */
export const NO_STEP_BOUND = Number.MAX_SAFE_INTEGER;
/**
 * A replay consumer's mirror in bytes per byte of its state's JSON text: measured 1.29-1.36 for
 * 1k-100k items of ~690 bytes with a native build (mallinfo2 around a snapshot's load); wasm32's
 * pointers are half as wide, so this errs high.
 */
export const MIRROR_FACTOR = 1.4;
/** A step and its record, besides the paths it lists (counted by their length). */
export const STEP_BYTES = 200;
/** Work per slice of a checkpoint written ahead: a slice stops after this long... */
export const SLICE_MS = 4;
/** ...and the core prints a part of about this many bytes at a time. */
export const PART_BYTES = 64 * 1024;
/**
 * Replay consumers that read states for panels (besides the one that prints the checkpoints):
 * the newest step (the live diff), a step looked at and the one before it (its diff). A replay
 * only moves forward; with one consumer each read of an older step replayed the whole segment.
 */
export const READERS = 3;
/**
 * Pairs of steps whose compared views are kept (see Timeline.pairs): the steps just before one a
 * panel looks at, read while a reader passes them, so that stepping back needs no replay.
 */
export const PAIRS = 40;
export const PAIRS_BEHIND = 32;
/**
 * While a panel follows the newest step's diff, a reader follows this many steps behind it: a click
 * on a recent step starts from there instead of the segment's start.
 */
export const TRAIL = 24;
/** What a kept view is counted as in the bytes bound (a node view's JSON is about this long). */
export const VIEW_BYTES = 256;
/** Paths listed per step in the step list (the rest are counted). */
export const PATHS_LISTED = 12;

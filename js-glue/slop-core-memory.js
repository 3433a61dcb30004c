// slop-core-memory.js: the wasm core's linear memory as slop-core.js uses it: strings and frames
// copied in as UTF-8 with explicit lengths and a NUL, results read out as text, and the scratch
// words where the core stores a result's pointer and length. Nothing of the protocol: the rules
// of who owns what are slop-core.js's (from wasm/include/slop_core.h).

/** @typedef {import('../dist/slop_core.mjs').SlopCoreModule} SlopCoreModule */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Strings up to this many UTF-16 units are encoded in place (a buffer of 3 bytes per unit);
 * longer ones are measured first, so a 20 MB snapshot does not reserve 60 MB. */
const ENCODE_INTO_MAX = 1 << 16;
/** Strings up to this many units (an id, a path, options) are first tried as ASCII, copied by a
 * plain loop: in Chromium, encodeInto with the subarray each new buffer needs took 0.58 µs for
 * 150 bytes, the loop 0.45 µs. Frames, which have a kept buffer, take encodeInto (withFrame). */
const ASCII_LOOP_MAX = 4096;

/**
 * Copies an ASCII string to u8 at ptr; false (having written part of it) if it is not ASCII.
 * @param {string} s @param {Uint8Array} u8 @param {number} ptr
 */
function copyAscii(s, u8, ptr) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return false;
    u8[ptr + i] = c;
  }
  return true;
}

/**
 * Helpers over the module's linear memory.
 * @param {SlopCoreModule} M @param {() => Error} outOfMemory  the error a failed malloc throws
 */
function makeMemory(M, outOfMemory) {
  const scratch = M._malloc(8);        // [0]: const char *out, [4]: size_t out_len
  if (!scratch) throw new Error('slop-core: out of wasm memory');
  let framePtr = 0, frameCap = 0;      // withFrame's buffer (owned here, for the module's life)
  /** @type {Uint8Array|null} */
  let frameView = null;                // a view of it, for encodeInto
  let dv = new DataView(M.HEAPU8.buffer);
  const view = () => (dv.buffer === M.HEAPU8.buffer ? dv : (dv = new DataView(M.HEAPU8.buffer))); // memory may have grown
  return {
    view,
    outPtr: scratch,
    lenPtr: scratch + 4,
    /** Reads `len` bytes at ptr as UTF-8. @param {number} ptr @param {number} len */
    read(ptr, len) { return decoder.decode(M.HEAPU8.subarray(ptr, ptr + len)); },
    /** Reads a result whose length the core stored at lenPtr. @param {number} ptr @returns {string|null} */
    readOut(ptr) { return ptr ? decoder.decode(M.HEAPU8.subarray(ptr, ptr + view().getUint32(scratch + 4, true))) : null; },
    /** @param {number} ptr */
    u32(ptr) { return view().getUint32(ptr, true); },
    /**
     * A frame's text (or bytes) in a buffer kept for frames (grown when a frame needs more, never
     * freed per frame: a malloc and a free per frame were a tenth of a small frame's cost), then
     * fn(ptr, len). The text goes in by TextEncoder.encodeInto through a view kept over that
     * buffer: a 150-byte frame took 0.05 µs in Node and 0.33 µs in Chromium, where a copy loop
     * took 0.21 and 0.45, and a view made per frame 0.07 and 0.58. A frame larger than
     * ENCODE_INTO_MAX takes withStrings' way.
     * @template T
     * @param {string|Uint8Array} v @param {(ptr: number, len: number) => T} fn @returns {T}
     */
    withFrame(v, fn) {
      const len = this.putFrame(v);
      return len < 0 ? this.withStrings([v], ([f]) => fn(f.ptr, f.len)) : fn(framePtr, len);
    },
    /** Where putFrame() put the last frame. */
    framePtr: () => framePtr,
    /**
     * withFrame's first half, without a callback to make per frame: the frame's length in the
     * kept buffer (at framePtr()), or -1 for a value that takes withStrings' way.
     * @param {string|Uint8Array} v @returns {number}
     */
    putFrame(v) {
      if (typeof v !== 'string' || v.length > ENCODE_INTO_MAX) return -1;
      const cap = v.length * 3 + 1;
      if (cap > frameCap) {
        if (framePtr) M._free(framePtr);
        frameView = null;
        frameCap = Math.max(cap, 1024);
        framePtr = M._malloc(frameCap);
        if (!framePtr) { frameCap = 0; throw outOfMemory(); }
      }
      if (frameView?.buffer !== M.HEAPU8.buffer) frameView = M.HEAPU8.subarray(framePtr, framePtr + frameCap - 1); // memory may have grown
      const len = encoder.encodeInto(v, frameView).written;
      M.HEAPU8[framePtr + len] = 0;
      return len;
    },
    /**
     * Copies each value (string, Uint8Array, or null/undefined = NULL) into wasm
     * memory, NUL-terminated, calls fn([{ptr, len}]) and frees the copies.
     * @template T
     * @param {Array<string|ArrayBuffer|ArrayBufferView|null|undefined>} values
     * @param {(bufs: Array<{ptr: number, len: number}>) => T} fn
     * @returns {T}
     */
    withStrings(values, fn) {
      const bufs = [];
      try {
        for (const v of values) {
          if (v == null) { bufs.push({ ptr: 0, len: 0 }); continue; }
          if (typeof v === 'string' && v.length <= ENCODE_INTO_MAX) {
            // Straight into wasm memory: at most 3 bytes per UTF-16 unit, no copy in between.
            const cap = v.length * 3 + 1;
            const ptr = M._malloc(cap);
            if (!ptr) throw outOfMemory();
            const u8 = M.HEAPU8;
            if (v.length <= ASCII_LOOP_MAX && copyAscii(v, u8, ptr)) {
              u8[ptr + v.length] = 0;
              bufs.push({ ptr, len: v.length });
              continue;
            }
            const { written } = encoder.encodeInto(v, u8.subarray(ptr, ptr + cap - 1));
            M.HEAPU8[ptr + written] = 0;
            bufs.push({ ptr, len: written });
            continue;
          }
          const bytes = typeof v === 'string' ? encoder.encode(v)
            : ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v);
          const ptr = M._malloc(bytes.length + 1);
          if (!ptr) throw outOfMemory();
          M.HEAPU8.set(bytes, ptr);
          M.HEAPU8[ptr + bytes.length] = 0;
          bufs.push({ ptr, len: bytes.length });
        }
        return fn(bufs);
      } finally {
        for (const b of bufs) if (b.ptr) M._free(b.ptr);
      }
    },
  };
}

export { makeMemory };

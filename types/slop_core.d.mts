// The module emscripten builds from wasm/ (dist/slop_core.mjs, made by build.sh): what
// js-glue/slop-core.js uses of it. Pointers and sizes are numbers (wasm32); the C functions are
// wasm/exports.txt's, with a leading underscore.

export interface SlopCoreModule {
  /** The linear memory; a new array after the memory grew. */
  readonly HEAPU8: Uint8Array;
  UTF8ToString(ptr: number): string;
  _malloc(size: number): number;
  _free(ptr: number): void;
  [cFunction: `_slop_${string}`]: (...args: Array<number | bigint>) => number;
}

export default function createSlopCore(options?: { wasmBinary?: ArrayBuffer | Uint8Array }): Promise<SlopCoreModule>;

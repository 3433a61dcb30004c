// patch-record.js: a patch event read from its record (slop_core.h, slop_consumer_patch_records)
// instead of parsed from JSON: the numbers from the 32-byte header, the strings decoded from the
// wasm memory, the subscription id reused while its bytes stay the same. The object is the one
// JSON.parse would make of the event's JSON, members in the same order (tests/node/patch-records).
// Nothing of the protocol: the core decided every value.

import { CoreEventName } from './core-contract.js';

/** @typedef {import('./core-contract.js').PatchEvent} PatchEvent */
/** @typedef {import('./core-contract.js').ChildListChange} ChildListChange */

const decoder = new TextDecoder();

/** One consumer's reader: it keeps the last subscription id it decoded. */
export class PatchRecordReader {
  /** @type {Uint8Array|null} */
  #subBytes = null;
  #sub = '';

  /** The subscription id at [at, end): the kept one when the bytes are the same. @param {Uint8Array} u8 @param {number} at @param {number} end */
  #subAt(u8, at, end) {
    const kept = this.#subBytes;
    if (kept && kept.length === end - at) {
      let i = 0;
      while (i < kept.length && kept[i] === u8[at + i]) i++;
      if (i === kept.length) return this.#sub;
    }
    this.#subBytes = u8.slice(at, end);
    this.#sub = decoder.decode(this.#subBytes);
    return this.#sub;
  }

  /**
   * The event of the record at ptr (len bytes, as slop_consumer_next gave them).
   * @param {Uint8Array} u8 the module's memory @param {DataView} view over the same memory
   * @param {number} ptr @param {number} len @returns {PatchEvent}
   */
  read(u8, view, ptr, len) {
    const version = view.getFloat64(ptr, true), ops = view.getUint32(ptr + 8, true);
    const nc = view.getUint32(ptr + 12, true), na = view.getUint32(ptr + 16, true), nr = view.getUint32(ptr + 20, true);
    const nk = view.getUint32(ptr + 24, true), truncated = view.getUint32(ptr + 28, true);
    const end = ptr + len, subEnd = u8.indexOf(0, ptr + 32);
    const sub = this.#subAt(u8, ptr + 32, subEnd);
    const strings = nc + na + nr + 4 * nk;
    // The rest in one decode (the last NUL ends the last string); one string needs no split.
    const rest = strings ? decoder.decode(u8.subarray(subEnd + 1, end - 1)) : '';
    const f = strings === 1 ? [rest] : strings ? rest.split('\0') : [];
    let i = 0;
    const changed = nc === strings ? f : f.slice(i, i += nc);
    if (nc === strings) i = nc;
    const added = f.slice(i, i += na), removed = f.slice(i, i += nr);
    /** @type {ChildListChange[]} */
    const children = new Array(nk);
    for (let k = 0; k < nk; k++, i += 4) {
      // The op as the core wrote it ("insert" or "remove"), never mapped: a cast for the type only.
      const op = /** @type {ChildListChange['op']} */ (f[i]);
      children[k] = { op, parent: f[i + 1], index: Number(f[i + 2]), id: f[i + 3] };
    }
    /** @type {PatchEvent} */
    const event = { event: CoreEventName.PATCH, sub, version, ops, changed, added, removed, children };
    if (truncated) event.truncated = true;
    return event;
  }
}

// slop-core-relay.js: the typed JS wrapper of the core's relay (slop_relay in slop_core.h), made by
// slop-core.js's loadSlopCore with the module and memory it loaded. Bytes across the boundary only.

import { parseExact } from './exact-json.js';
import { SlopCode } from './core-contract.js';

/** @typedef {import('../dist/slop_core.mjs').SlopCoreModule} SlopCoreModule */
/** @typedef {ReturnType<typeof import('./slop-core-memory.js').makeMemory>} Memory */

/**
 * An outside consumer (the desktop bridge's) on a provider channel shared with others
 * (slop_relay in slop_core.h): its ids get the relay's prefix on the way out, and only the
 * provider frames addressed to them come back, the prefix taken off.
 * @param {SlopCoreModule} M @param {Memory} mem @param {(ptr: number) => string|null} freeResult
 * @param {typeof import('./slop-core.js').SlopError} SlopError  slop-core.js's (passed in: no import cycle)
 */
export function makeRelayClass(M, mem, freeResult, SlopError) {
  /** @type {FinalizationRegistry<number>} */
  const registry = new FinalizationRegistry((ptr) => M._slop_relay_free(ptr));
  return class SlopRelay {
    #ptr = 0;
    /** @param {string} tag 1 to 16 of [a-z0-9_-], unique among the channel's relays */
    constructor(tag) {
      this.#ptr = mem.withStrings([tag], ([t]) => M._slop_relay_new(t.ptr));
      if (!this.#ptr) throw new SlopError(SlopCode.E_ARG, `bad relay tag "${String(tag).slice(0, 40)}"`);
      registry.register(this, this.#ptr, this);
    }
    #live() {
      if (!this.#ptr) throw new SlopError(SlopCode.E_STATE, 'SlopRelay used after free()');
      return this.#ptr;
    }
    /**
     * The outside consumer opened the relay: a connect to send to the provider on its behalf
     * (it may wait for a hello without sending one), or null when a hello was already
     * forwarded or is owed. @returns {object|null}
     */
    open() {
      const text = freeResult(M._slop_relay_open(this.#live()));
      return text === null ? null : parseExact(text);
    }
    /**
     * One message of the outside consumer (its JSON text). `forward: false`: the relay kept it
     * (an unsubscribe of an id another subscribe still holds, a connect the open's hello answers).
     * @returns {{ok: true, type: string, message: object, id?: string, path?: string, action?: string}
     *   | {ok: true, type: string, forward: false, why: string, id?: string}
     *   | {ok: false, error: string, reply: object|null}}
     * @param {string} text
     */
    outbound(text) {
      const r = this.#live();
      return parseExact(mem.withStrings([text], ([t]) => /** @type {string} */ (freeResult(M._slop_relay_outbound(r, t.ptr, t.len)))));
    }
    /**
     * One provider frame of the shared channel: the text to forward, or null when none of it is the relay's.
     * @param {string|Uint8Array} frame @returns {string|null}
     */
    inbound(frame) {
      const r = this.#live();
      return mem.withStrings([frame], ([f]) => freeResult(M._slop_relay_inbound(r, f.ptr, f.len, 0)));
    }
    /** The relay closes: the unsubscribe frames for what the outside consumer left open. @returns {object[]} */
    close() {
      return parseExact(/** @type {string} */ (freeResult(M._slop_relay_close(this.#live()))));
    }
    /** Frees the relay; further calls throw. Idempotent. */
    free() {
      if (!this.#ptr) return;
      registry.unregister(this);
      M._slop_relay_free(this.#ptr);
      this.#ptr = 0;
    }
  };
}

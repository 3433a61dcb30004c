// slop-core.js: the typed JS wrapper of the SLOP consumer core (wasm).
//
//   import { loadSlopCore } from './slop-core.js';
//   const core = await loadSlopCore();
//   const c = new core.SlopConsumer({ transport: 'ws' });
//   c.subscribe({ path: '/', depth: -1 }, Date.now());
//   c.receive(frameText, Date.now());
//   for (const out of c.drain()) out.kind === 'send' ? ws.send(out.frame) : show(out.event);
//
// This file only moves bytes across the wasm boundary. Every protocol decision
// is the core's (wasm/include/slop_core.h); do not add protocol logic here.
//
// Memory rules (from the header): strings go in as UTF-8 with explicit lengths
// and are freed here after the call; a consumer-owned result is valid until the
// next call on that consumer, so it is copied out at once; a free-standing
// result is copied and released with slop_free.

import createSlopCore from '../dist/slop_core.mjs';
import { parseExact, parseVerbatim, stringifyExact, ODD_NUMBER } from './exact-json.js';
import { PatchRecordReader } from './patch-record.js';
import { SlopCode, SlopOutputKind, LIMIT_FIELDS, DEFAULT_LIMITS, CoreEventName, CONTRACT_HASH } from './core-contract.js';
import { makeMemory } from './slop-core-memory.js';
import { makeRelayClass } from './slop-core-relay.js';

// The header's codes, kinds and limits are declared once, in core-contract.js; kept importable from here.
export { SlopCode, DEFAULT_LIMITS };
/** @type {Map<number, string>} */
const CODE_NAMES = new Map(Object.entries(SlopCode).map(([k, v]) => [v, k]));

/** A call refused by the core. `code` is a slop_code (negative), `codeName` e.g. "E_PARAMS". */
export class SlopError extends Error {
  /** @param {number} code @param {string} message */
  constructor(code, message) {
    super(message || CODE_NAMES.get(code) || `slop error ${code}`);
    this.name = 'SlopError';
    this.code = code;
    this.codeName = CODE_NAMES.get(code) ?? 'UNKNOWN';
  }
}

/**
 * @typedef {object} SlopLimits  0 or omitted = the core's default.
 * @property {number} [maxFrameBytes]
 * @property {number} [maxJsonDepth]
 * @property {number} [maxNodes]
 * @property {number} [requestTimeoutMs]
 * @property {number} [maxPending]
 */
/** @typedef {{kind: 'send', frame: string} | {kind: 'event', event: import('./core-contract.js').DrainedEvent}} SlopOutput */
/**
 * @typedef {object} SlopCore
 * @property {ReturnType<typeof makeConsumerClass>['SlopConsumer']} SlopConsumer
 * @property {(schema: any, params: any) => (ParamsFailure[]|null)} validateParams
 * @property {(text: string) => any} parseDescriptor
 * @property {(text: string) => any} parseLocalDescriptor
 * @property {(e: {kind: 'dir'|'name'|'file', name?: string, type?: 'd'|'f'|'l'|'?', mode?: number, uid?: number, me?: number}) => ({code: string, why: string}|null)} localRefusal
 * @property {(content: string, pageUrl: string) => any} parseMeta
 * @property {(pageUrl: string, targetUrl: string) => any} classifyTarget
 * @property {(consumers: SlopConsumerT[], generatedAt: string) => (string|null)} renderStateTail
 * @property {(consumers: SlopConsumerT[], generatedAt: string, maxBytes: number) => (StateTail|null)} stateTail
 * @property {ReturnType<typeof makeRelayClass>} SlopRelay
 * @property {(kind: string, requestId: string|null, code: string, message: string) => object} relayRefusal
 * @property {() => string} version
 * @property {() => number} heapBytes
 */
/** @typedef {{code: string, path: Array<string|number>, message: string}} ParamsFailure */
/**
 * @typedef {object} StateTail  slop_render_state_tail() under a budget.
 * @property {string} text  the <slop-state> block, at most maxBytes UTF-8 bytes (whole lines)
 * @property {number} bytes  its length in UTF-8 bytes
 * @property {number} nodesLeftOut  nodes without a line, all providers (0: nothing cut)
 */
/**
 * @typedef {object} ToolList  slop_consumer_tools(): the affordances as LLM tools.
 * @property {Array<{name: string, description: string, parameters: object, dangerous: boolean}>} tools
 * @property {Record<string, {path: string, action: string}>} resolve  the offered tools' targets
 * @property {number} total  every action of the subscription, offered or not
 */
/** @typedef {import('../dist/slop_core.mjs').SlopCoreModule} SlopCoreModule */
/** @typedef {ReturnType<typeof makeMemory>} Memory  (slop-core-memory.js) */
/** @typedef {InstanceType<ReturnType<typeof makeConsumerClass>['SlopConsumer']>} SlopConsumerT */

const { NONE: OUT_NONE, SEND: OUT_SEND, PATCH: OUT_PATCH } = SlopOutputKind;

/** SLOP_LOCAL_DIR, SLOP_LOCAL_NAME, SLOP_LOCAL_FILE of slop_core.h. */
const LOCAL_KINDS = Object.freeze({ dir: 1, name: 2, file: 3 });

/** The largest size_t / unsigned of the wasm32 core. */
const SIZE_MAX = 0xffffffff;
/**
 * A count for a size_t or unsigned argument: a non-negative number, at most SIZE_MAX (a larger
 * one would wrap in the i32 the call passes).
 * @param {number} n @param {string} what @returns {number}
 */
function countArg(n, what) {
  if (typeof n !== 'number' || !(n >= 0)) throw new TypeError(`${what} must be a number >= 0`);
  return Math.min(Math.floor(n), SIZE_MAX);
}

/**
 * The core's names must be the ones this glue was generated with (core-contract.js): a wasm from
 * another build would give events and codes this glue does not know, silently. Exported for the test.
 * @param {number} coreHash  slop_contract_hash() of the loaded wasm
 */
export function checkContract(coreHash) {
  if (coreHash === CONTRACT_HASH) return;
  const hex = (/** @type {number} */ n) => `0x${n.toString(16).padStart(8, '0')}`;
  throw new Error(`the wasm core's contract (${hex(coreHash)}, version ${coreHash >>> 24}) is not the one `
    + `js-glue/core-contract.js was made from (${hex(CONTRACT_HASH)}, version ${CONTRACT_HASH >>> 24}): `
    + 'they come from different builds; run build.sh so both are made from wasm/include/slop_core.h');
}

/**
 * Instantiates the wasm core.
 * @param {{wasmBinary?: ArrayBuffer|Uint8Array}} [options]  wasmBinary: the module's
 *   bytes (Node); otherwise dist/slop_core.wasm is fetched next to the glue.
 * @returns {Promise<SlopCore>}
 */
export async function loadSlopCore(options = {}) {
  const M = await createSlopCore(options.wasmBinary ? { wasmBinary: options.wasmBinary } : {});
  checkContract(M._slop_contract_hash() >>> 0);
  const mem = makeMemory(M, () => new SlopError(SlopCode.E_NOMEM, 'out of wasm memory'));
  const { SlopConsumer, pointerOf } = makeConsumerClass(M, mem);

  /** Copies a free-standing result and releases it with slop_free. @param {number} ptr */
  const freeResult = (ptr) => {
    if (!ptr) return null;
    try { return M.UTF8ToString(ptr); } finally { M._slop_free(ptr); }
  };

  /**
   * slop_render_state_tail(consumers, n, generated_at, max_bytes, &left).
   * @param {SlopConsumerT[]} consumers @param {string} generatedAt @param {number} maxBytes
   * @returns {StateTail|null}
   */
  const stateTailOf = (consumers, generatedAt, maxBytes) => {
    const ptrs = consumers.map(pointerOf);
    const arr = M._malloc(4 + ptrs.length * 4); // [0]: size_t left, then the consumers
    if (!arr) throw new SlopError(SlopCode.E_NOMEM, 'out of wasm memory');
    try {
      const view = mem.view();
      ptrs.forEach((p, i) => view.setUint32(arr + 4 + 4 * i, p, true));
      return mem.withStrings([generatedAt], ([g]) => {
        const ptr = M._slop_render_state_tail(arr + 4, ptrs.length, g.ptr, maxBytes, arr);
        if (!ptr) return null;
        const bytes = M.HEAPU8.indexOf(0, ptr) - ptr;
        const text = freeResult(ptr) ?? '';
        return { text, bytes, nodesLeftOut: mem.u32(arr) };
      });
    } finally { M._free(arr); }
  };

  return {
    SlopConsumer,
    SlopRelay: makeRelayClass(M, mem, freeResult, SlopError),
    /**
     * The provider-style answer to a relayed request refused before it reached the provider
     * (slop_relay_refusal): a result for an invoke, an error message for the rest (requestId null:
     * one without an id, refusing the relay itself).
     * @param {string} kind @param {string|null} requestId @param {string} code @param {string} message
     * @returns {object}
     */
    relayRefusal(kind, requestId, code, message) {
      return JSON.parse(mem.withStrings([kind, requestId, code, message], ([k, r, c, m]) =>
        /** @type {string} */ (freeResult(M._slop_relay_refusal(k.ptr, r.ptr, c.ptr, m.ptr)))));
    },
    /**
     * @param {any} schema affordance params schema @param {any} params (undefined: NULL to the core)
     * @returns {ParamsFailure[]|null} null when
     *   params fit the schema, else every failure, its path as data (slop_validate_params).
     */
    validateParams(schema, params) {
      const text = mem.withStrings([stringifyExact(schema), params === undefined ? null : stringifyExact(params)], ([s, p]) =>
        freeResult(M._slop_validate_params(s.ptr, s.len, p.ptr, p.len)));
      return text === null ? null : JSON.parse(text).errors;
    },
    /** @param {string} text @returns {{ok: boolean, descriptor?: any, error?: string}} */
    parseDescriptor(text) {
      return JSON.parse(mem.withStrings([text], ([t]) => /** @type {string} */ (freeResult(M._slop_parse_descriptor(t.ptr, t.len)))));
    },
    /**
     * A local provider's descriptor file (slop_parse_local_descriptor): unix, stdio or ws.
     * @param {string} text @returns {{ok: boolean, descriptor?: any, error?: string}}
     */
    parseLocalDescriptor(text) {
      return JSON.parse(mem.withStrings([text], ([t]) => /** @type {string} */ (freeResult(M._slop_parse_local_descriptor(t.ptr, t.len)))));
    },
    /**
     * Local discovery's filesystem hardening (slop_local_refusal): null when the entry passes.
     * @param {{kind: 'dir'|'name'|'file', name?: string, type?: 'd'|'f'|'l'|'?', mode?: number, uid?: number, me?: number}} e
     * @returns {{code: string, why: string}|null}
     */
    localRefusal({ kind, name = '', type = '?', mode = 0, uid = -1, me = -2 }) {
      const k = LOCAL_KINDS[kind];
      if (!k) throw new TypeError(`localRefusal: unknown kind "${kind}"`);
      const text = mem.withStrings([name], ([n]) =>
        freeResult(M._slop_local_refusal(k, n.ptr, type.charCodeAt(0), mode >>> 0, uid, me)));
      return text === null ? null : JSON.parse(text);
    },
    /**
     * @param {string} content @param {string} pageUrl
     * @returns {{ok: boolean, transport?: {type: string, url?: string}, error?: string}}
     */
    parseMeta(content, pageUrl) {
      return JSON.parse(mem.withStrings([content, pageUrl], ([c, u]) => /** @type {string} */ (freeResult(M._slop_parse_meta(c.ptr, u.ptr)))));
    },
    /**
     * @param {string} pageUrl @param {string} targetUrl
     * @returns {{classification: 'same-origin'|'cross-origin', page_origin: string|null, approval_key: string}}
     */
    classifyTarget(pageUrl, targetUrl) {
      return JSON.parse(mem.withStrings([pageUrl, targetUrl], ([p, t]) =>
        /** @type {string} */ (freeResult(M._slop_classify_target(p.ptr, t.ptr)))));
    },
    /**
     * The whole LLM state tail (no budget): one section per connected provider, each its
     * primary subscription's tree text (slop_render_state_tail with max_bytes 0).
     * @param {SlopConsumerT[]} consumers @param {string} generatedAt @returns {string|null}
     */
    renderStateTail(consumers, generatedAt) {
      return stateTailOf(consumers, generatedAt, 0)?.text ?? null;
    },
    /**
     * The LLM state tail within maxBytes UTF-8 bytes, envelope included (slop_render_state_tail:
     * whole lines, a fair share per provider, a cut section says how many of its nodes it leaves
     * out; below 512 counts as 512; 0: no limit). null when no consumer has a provider.
     * @param {SlopConsumerT[]} consumers @param {string} generatedAt @param {number} maxBytes
     * @returns {StateTail|null}
     */
    stateTail(consumers, generatedAt, maxBytes) {
      if (typeof maxBytes !== 'number' || !(maxBytes >= 0) || !Number.isFinite(maxBytes)) {
        throw new TypeError('stateTail: maxBytes must be a number of bytes (0: no limit)');
      }
      return stateTailOf(consumers, generatedAt, Math.min(Math.floor(maxBytes), SIZE_MAX));
    },
    /** @returns {string} */
    version() { return M.UTF8ToString(M._slop_core_version()); },
    /** Bytes of wasm linear memory (it only grows): for memory figures. @returns {number} */
    heapBytes() { return M.HEAPU8.length; },
  };
}

/** @param {SlopCoreModule} M @param {Memory} mem */
function makeConsumerClass(M, mem) {
  /** @type {FinalizationRegistry<number>} */
  const registry = new FinalizationRegistry((ptr) => M._slop_consumer_free(ptr));
  /** @type {(c: SlopConsumer) => number} */
  let pointerOf;

  /** One consumer per provider connection (slop_consumer). */
  class SlopConsumer {
    #ptr = 0;
    /** @type {(text: string) => any} */
    #read = JSON.parse;
    /** drain() adds an event's text (`exact`) where a plain reading may lose a number. */
    #withText = true;
    /** Reads patch events from their records (patch-record.js). */
    #records = new PatchRecordReader();
    static {
      pointerOf = (c) => {
        if (!(c instanceof SlopConsumer) || !c.#ptr) throw new TypeError('not a live SlopConsumer');
        return c.#ptr;
      };
    }

    /**
     * @param {{transport?: 'ws'|'unix'|'stdio'|'postmessage'|'document'|'replay', seed?: bigint|number, limits?: SlopLimits,
     *   numbers?: 'plain'|'exact'|'verbatim', patchEvents?: 'record'|'json'}} options
     *   without a transport the core refuses (E_ARG). numbers: how the core's JSON (events, trees,
     *   views) is read (exact-json.js): 'plain' (the default) is JSON.parse, whose values any port
     *   can carry; 'exact' keeps integers a double cannot hold; 'verbatim' keeps every number
     *   JavaScript would write otherwise (for writing it out again). Read plainly, an event that
     *   may hold such a number comes with its text beside it (`exact`, see drain()).
     *   patchEvents: how the core hands patch events over, 'record' (the default: read without
     *   JSON.parse) or 'json'; drain() gives the same event either way (a test compares them).
     */
    constructor({ transport, seed, limits, numbers = 'plain', patchEvents = 'record' } = {}) {
      this.#read = numbers === 'verbatim' ? parseVerbatim : numbers === 'exact' ? parseExact : JSON.parse;
      this.#withText = this.#read === JSON.parse;
      if (seed === undefined) seed = crypto.getRandomValues(new BigUint64Array(1))[0];
      seed = BigInt.asUintN(64, BigInt(seed));
      let lim = 0;
      try {
        if (limits) {
          for (const k of Object.keys(limits)) if (!(/** @type {readonly string[]} */ (LIMIT_FIELDS)).includes(k)) throw new TypeError(`unknown limit "${k}"`);
          lim = M._malloc(4 * LIMIT_FIELDS.length);
          if (!lim) throw new SlopError(SlopCode.E_NOMEM, 'out of wasm memory');
          const view = mem.view();
          LIMIT_FIELDS.forEach((k, i) => view.setUint32(lim + 4 * i, limits[k] ?? 0, true));
        }
        this.#ptr = mem.withStrings([transport], ([t]) => M._slop_consumer_new(lim, t.ptr, seed));
      } finally {
        if (lim) M._free(lim);
      }
      if (!this.#ptr) throw new SlopError(SlopCode.E_ARG, `cannot create a consumer for transport "${transport}"`);
      M._slop_consumer_patch_records(this.#ptr, patchEvents === 'json' ? 0 : 1);
      registry.register(this, this.#ptr, this);
    }

    #live() {
      if (!this.#ptr) throw new SlopError(SlopCode.E_STATE, 'SlopConsumer used after free()');
      return this.#ptr;
    }
    #fail() {
      return new SlopError(M._slop_consumer_last_code(this.#ptr) || SlopCode.E_ARG,
        M.UTF8ToString(M._slop_consumer_last_error(this.#ptr)));
    }
    /** A consumer-owned result (copied now) or null. @param {number} ptr */
    #out(ptr) { return mem.readOut(ptr); }
    /** @param {number} ptr */
    #outJson(ptr) { const s = mem.readOut(ptr); return s === null ? null : this.#read(s); }

    /**
     * Feeds one provider frame (string or UTF-8 bytes).
     * @param {string|Uint8Array} frame @param {number} nowMs @returns {number} outputs queued
     */
    receive(frame, nowMs) {
      const c = this.#live();
      const len = mem.putFrame(frame); // the usual frame: no callback made per frame
      if (len >= 0) return M._slop_consumer_receive(c, mem.framePtr(), len, nowMs);
      return mem.withFrame(frame, (ptr, n) => M._slop_consumer_receive(c, ptr, n, nowMs));
    }
    /**
     * A frame the transport dropped unread for its size (a stream's line over maxFrameBytes; it is
     * never buffered whole): reported as an oversize frame is (slop_consumer_receive_oversize).
     * @param {number} bytes the bytes seen when it was dropped @param {number} nowMs @returns {number} outputs queued
     */
    receiveOversize(bytes, nowMs) {
      return M._slop_consumer_receive_oversize(this.#live(), countArg(bytes, 'bytes'), nowMs);
    }
    /** The "type" of the frame the last receive() took, as the core read it ("" if none). */
    frameType() { return M.UTF8ToString(M._slop_consumer_frame_type(this.#live())); }
    /** @param {number} nowMs @returns {number} outputs queued */
    tick(nowMs) { return M._slop_consumer_tick(this.#live(), nowMs); }
    /** @param {number} nowMs @returns {number} outputs queued */
    close(nowMs) { return M._slop_consumer_close(this.#live(), nowMs); }
    /** @param {number} nowMs @returns {number} outputs queued */
    reset(nowMs) { return M._slop_consumer_reset(this.#live(), nowMs); }

    /**
     * Takes every queued output. Read plainly (numbers 'plain': the worker, whose events cross
     * ports as doubles), an event other than a patch whose text may hold a number JSON.parse or a
     * port would change (-0, 1.50, 1E5, a 64-bit integer: ODD_NUMBER) carries the core's text as
     * `exact`, for the reader that shows or returns its values (exact-json.js exactEvent). Patches
     * never do: they carry paths, and are the stream's bulk.
     * @returns {SlopOutput[]}
     */
    drain() {
      const c = this.#live();
      /** @type {SlopOutput[]} */
      const outs = [];
      for (;;) {
        const kind = M._slop_consumer_next(c, mem.outPtr, mem.lenPtr);
        if (kind === OUT_NONE) return outs;
        if (kind === OUT_PATCH) {
          outs.push({ kind: 'event', event: this.#records.read(M.HEAPU8, mem.view(), mem.u32(mem.outPtr), mem.u32(mem.lenPtr)) });
          continue;
        }
        const text = mem.read(mem.u32(mem.outPtr), mem.u32(mem.lenPtr));
        if (kind === OUT_SEND) {
          outs.push({ kind: 'send', frame: text });
          continue;
        }
        const event = this.#read(text);
        if (this.#withText && event.event !== CoreEventName.PATCH && ODD_NUMBER.test(text)) event.exact = text;
        outs.push({ kind: 'event', event });
      }
    }

    /**
     * @param {object|undefined} options {path, depth, max_nodes, filter} @param {number} nowMs
     * @returns {string} subscription id
     */
    subscribe(options, nowMs) { return this.#request(M._slop_consumer_subscribe, options, nowMs); }
    /** @param {object|undefined} options as subscribe plus window @param {number} nowMs @returns {string} request id */
    query(options, nowMs) { return this.#request(M._slop_consumer_query, options, nowMs); }
    /** @param {(...args: Array<number|bigint>) => number} fn @param {object|undefined} options @param {number} nowMs */
    #request(fn, options, nowMs) {
      const c = this.#live();
      const id = mem.withStrings([stringifyExact(options ?? {})], ([o]) => this.#out(fn(c, o.ptr, o.len, nowMs, mem.lenPtr)));
      if (id === null) throw this.#fail();
      return id;
    }
    /** @param {string} subId @param {number} [nowMs] */
    unsubscribe(subId, nowMs = Date.now()) {
      const c = this.#live();
      const rc = mem.withStrings([subId], ([s]) => M._slop_consumer_unsubscribe(c, s.ptr, nowMs));
      if (rc < 0) throw this.#fail();
    }
    /** Starts a stale or failed subscription over now (the user's Retry). @param {string} subId @param {number} [nowMs] */
    resync(subId, nowMs = Date.now()) {
      const c = this.#live();
      const rc = mem.withStrings([subId], ([s]) => M._slop_consumer_resync(c, s.ptr, nowMs));
      if (rc < 0) throw this.#fail();
    }
    /**
     * @param {string} path absolute node path @param {string} action
     * @param {object|undefined} params @param {number} nowMs @returns {string} request id
     */
    invoke(path, action, params, nowMs) {
      const c = this.#live();
      const p = params === undefined ? null : stringifyExact(params);
      const id = mem.withStrings([path, action, p], ([pa, ac, pr]) =>
        this.#out(M._slop_consumer_invoke(c, pa.ptr, ac.ptr, pr.ptr, pr.len, nowMs, mem.lenPtr)));
      if (id === null) throw this.#fail();
      return id;
    }

    /**
     * Loads a document (an export, a snapshot message or a bare node) into a consumer made with
     * transport "document": read-only, checked as a provider's snapshot (slop_consumer_load).
     * @param {string|Uint8Array} doc @param {string|null} [name] the file's name @param {number} [nowMs]
     * @returns {{sub: string, format: string, version: number, nodes: number, provider: object,
     *   names_provider: boolean, exported_at: string|null}}
     */
    load(doc, name = null, nowMs = Date.now()) {
      const c = this.#live();
      const info = mem.withStrings([doc, name], ([d, n]) => this.#outJson(M._slop_consumer_load(c, d.ptr, d.len, n.ptr, nowMs, mem.lenPtr)));
      if (info === null) throw this.#fail();
      return info;
    }

    /** @returns {import('./session-host.js').CoreStatus} provider and connection state */
    status() { return this.#outJson(M._slop_consumer_status(this.#live(), mem.lenPtr)); }
    /** @param {string|null} subId @param {string} [path] @param {number} [depth] @returns {object|null} mirrored subtree cut at depth (-1 = all) */
    tree(subId, path = '/', depth = -1) {
      const text = this.treeJson(subId, path, depth);
      return text === null ? null : this.#read(text);
    }
    /**
     * tree() as the core's JSON text: every number as the provider wrote it, for writing out.
     * @param {string|null} subId @param {string} [path] @param {number} [depth] @returns {string|null}
     */
    treeJson(subId, path = '/', depth = -1) {
      const c = this.#live();
      return mem.withStrings([subId, path], ([s, p]) => this.#out(M._slop_consumer_tree(c, s.ptr, p.ptr, depth, mem.lenPtr)));
    }
    /**
     * The subscription's mirror as a snapshot frame with its last seq (slop_consumer_checkpoint):
     * where a recording that dropped its oldest frames starts; a "replay" consumer takes it.
     * @param {string} subId @returns {string|null}
     */
    checkpoint(subId) {
      const c = this.#live();
      return mem.withStrings([subId], ([s]) => this.#out(M._slop_consumer_checkpoint(c, s.ptr, mem.lenPtr)));
    }
    /**
     * The same checkpoint in parts (slop_consumer_checkpoint_begin/_next), for writing a large
     * mirror over several tasks. Throws when the subscription has no mirror.
     * @param {string} subId
     */
    checkpointBegin(subId) {
      const c = this.#live();
      const rc = mem.withStrings([subId], ([s]) => M._slop_consumer_checkpoint_begin(c, s.ptr));
      if (rc < 0) throw this.#fail();
    }
    /**
     * The next part of about maxBytes (whole nodes); '' once all were given. Throws when none was
     * begun or the consumer took a frame (or anything that may change a mirror) since.
     * @param {number} maxBytes @returns {string}
     */
    checkpointNext(maxBytes) {
      const text = this.#out(M._slop_consumer_checkpoint_next(this.#live(), maxBytes, mem.lenPtr));
      if (text === null) throw this.#fail();
      return text;
    }
    /** @param {string|null} subId @param {string} path @returns {object|null} one node with child_ids and path */
    node(subId, path) {
      const text = this.nodeText(subId, path);
      return text === null ? null : this.#read(text);
    }
    /** node() as the core's JSON text, for passing on without parsing. @param {string|null} subId @param {string} path @returns {string|null} */
    nodeText(subId, path) {
      const c = this.#live();
      return mem.withStrings([subId, path], ([s, p]) => this.#out(M._slop_consumer_node(c, s.ptr, p.ptr, mem.lenPtr)));
    }
    /**
     * What the state costs, per node (slop_consumer_profile), as the core's JSON text: sizes,
     * actions, traffic counters, and the tree text of the nodes changed after serial `since`.
     * @param {string|null} subId @param {number} [since] 0: every node's text @returns {string|null}
     */
    profileText(subId, since = 0) {
      const c = this.#live();
      return mem.withStrings([subId], ([s]) => this.#out(M._slop_consumer_profile(c, s.ptr, since, mem.lenPtr)));
    }
    /** @param {string|null} subId @returns {string|null} canonical tree text */
    treeText(subId) {
      const c = this.#live();
      return mem.withStrings([subId], ([s]) => this.#out(M._slop_consumer_tree_text(c, s.ptr, mem.lenPtr)));
    }
    /**
     * The canonical text of the node at path and depth levels below it (slop_consumer_subtree_text);
     * a node the depth cuts says how many children it has. null when there is no node at path.
     * @param {string|null} subId @param {string} path @param {number} depth -1: all
     * @returns {string|null}
     */
    subtreeText(subId, path, depth) {
      const c = this.#live();
      return mem.withStrings([subId, path], ([s, p]) => this.#out(M._slop_consumer_subtree_text(c, s.ptr, p.ptr, depth | 0, mem.lenPtr)));
    }
    /**
     * The affordances as LLM tools (slop_consumer_tools): all of them (maxTools 0), or the maxTools
     * most salient (meta.salience, none = 0.5; ties in tree order), listed in tree order, named
     * unique among those offered. null when the subscription has no mirror.
     * @param {string|null} subId @param {string|null} [prefix] provider prefix of every name
     * @param {number} [maxLen] longest name (0: 64) @param {number} [maxTools] most tools offered (0: all)
     * @returns {ToolList|null}
     */
    tools(subId, prefix = null, maxLen = 0, maxTools = 0) {
      const text = this.toolsText(subId, maxTools, prefix, maxLen);
      return text === null ? null : this.#read(text);
    }
    /** tools() as the core's JSON text. @param {string|null} subId @param {number} [maxTools] @param {string|null} [prefix] @param {number} [maxLen] @returns {string|null} */
    toolsText(subId, maxTools = 0, prefix = null, maxLen = 0) {
      const c = this.#live();
      const n = countArg(maxTools, 'maxTools');
      return mem.withStrings([subId, prefix], ([s, p]) =>
        this.#out(M._slop_consumer_tools(c, s.ptr, p.ptr, countArg(maxLen, 'maxLen'), n, mem.lenPtr)));
    }
    /**
     * Where the provider breaks SLOP (slop_consumer_conformance): every rule checked and every
     * finding so far (its shape: slop_core.h).
     * @returns {import('./conformance-report.js').ConformanceReport}
     */
    conformance() { return this.#outJson(M._slop_consumer_conformance(this.#live(), mem.lenPtr)); }
    /**
     * Checks the subscription's mirror against the provider's state (slop_consumer_check_drift):
     * the outcome is a "drift" event with the returned request id.
     * @param {string|null} subId  null: refused, as an unknown one @param {number} [nowMs] @returns {string}
     */
    checkDrift(subId, nowMs = Date.now()) {
      const c = this.#live();
      const id = mem.withStrings([subId], ([s]) => this.#out(M._slop_consumer_check_drift(c, s.ptr, nowMs, mem.lenPtr)));
      if (id === null) throw this.#fail();
      return id;
    }
    /**
     * A tool name back to its target, in the list tools(subId, prefix, maxLen, maxTools) gives
     * (slop_consumer_resolve_tool): null when that list has no such name. Throws a SlopError
     * E_STATE when the name was offered by the last tools() call with these arguments but the
     * state changed since and it now names another target, or none: read the tools again.
     * @param {string} subId @param {string} name
     * @param {{prefix?: string|null, maxLen?: number, maxTools?: number}} [options]  as given to tools()
     * @returns {{path: string, action: string}|null}
     */
    resolveTool(subId, name, { prefix = null, maxLen = 0, maxTools = 0 } = {}) {
      const c = this.#live();
      const len = countArg(maxLen, 'maxLen'), n = countArg(maxTools, 'maxTools');
      const r = mem.withStrings([subId, prefix, name], ([s, p, t]) =>
        this.#outJson(M._slop_consumer_resolve_tool(c, s.ptr, p.ptr, len, n, t.ptr, mem.lenPtr)));
      if (r === null && M._slop_consumer_last_code(c) !== SlopCode.E_NOT_FOUND) throw this.#fail();
      return r;
    }

    /** Frees the core consumer; further calls throw. Idempotent. */
    free() {
      if (!this.#ptr) return;
      registry.unregister(this);
      M._slop_consumer_free(this.#ptr);
      this.#ptr = 0;
    }
  }
  return { SlopConsumer, pointerOf };
}
